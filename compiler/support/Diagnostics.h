// Diagnostics: the one exception type the compiler throws for user errors.
//
// A CompileError names what kind of problem it is (which becomes the Python
// exception subclass in pycuda_jit/_core/errors.cpp), the source location, a
// message and an optional hint.  Internal invariants use PCJ_ASSERT, which
// throws InternalError with the C++ location: it is a compiler bug, never the
// user's fault, and still never crashes the interpreter.
#pragma once

#include "support/SourceLoc.h"

#include <stdexcept>
#include <string>

namespace pcj {

// Each kind maps to one Python exception class (see pycuda_jit/errors.py).
#define PCJ_ERROR_KINDS(X)                                                     \
  X(Unsupported, "UnsupportedError")   /* construct outside the language */    \
  X(Typing, "TypingError")             /* types do not fit */                  \
  X(Index, "ConstantIndexError")       /* constant index out of range */       \
  X(Value, "ConstantValueError")       /* a constant the operation rejects */  \
  X(Name, "NameResolutionError")       /* unknown global / attribute */        \
  X(Signature, "SignatureError")       /* bad signature string / args */       \
  X(Bytecode, "BytecodeError")         /* code object we cannot decode */      \
  X(Backend, "BackendError")           /* LLVM / PTX / link failure */         \
  X(Internal, "InternalCompilerError") /* a bug in pycuda_jit */

enum class ErrorKind {
#define X(Name, Py) Name,
  PCJ_ERROR_KINDS(X)
#undef X
};

const char *errorKindPythonName(ErrorKind Kind);

class CompileError : public std::runtime_error {
public:
  CompileError(ErrorKind Kind, SourceLoc Loc, std::string Message,
               std::string Hint = {});

  ErrorKind kind() const { return Kind; }
  const SourceLoc &loc() const { return Loc; }
  const std::string &message() const { return Message; }
  const std::string &hint() const { return Hint; }

private:
  ErrorKind Kind;
  SourceLoc Loc;
  std::string Message;
  std::string Hint;
};

[[noreturn]] void throwInternal(const char *File, int Line,
                                const std::string &Msg);

} // namespace pcj

#define PCJ_ASSERT(Cond, Msg)                                                  \
  do {                                                                         \
    if (!(Cond))                                                               \
      ::pcj::throwInternal(__FILE__, __LINE__,                                 \
                           std::string("assertion failed: " #Cond ": ") +      \
                               (Msg));                                         \
  } while (0)
