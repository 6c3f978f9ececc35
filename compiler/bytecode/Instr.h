// The decoder's output: a version-neutral instruction list (see Ops.def).
#pragma once

#include "bytecode/RawCode.h"
#include "support/SourceLoc.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pcj::bc {

enum class Op : uint8_t {
#define PCJ_OP(Name, Doc) Name,
#include "bytecode/Ops.def"
#undef PCJ_OP
};

const char *opName(Op O);

// Python's binary operators, in one neutral order (not CPython's NB_* numbers).
enum class BinOpKind : uint8_t {
  Add,
  Sub,
  Mul,
  TrueDiv,
  FloorDiv,
  Mod,
  Pow,
  LShift,
  RShift,
  And,
  Or,
  Xor,
  MatMul,
};
const char *binOpSymbol(BinOpKind K); // "+", "-", ...

enum class CmpKind : uint8_t { Lt, Le, Eq, Ne, Gt, Ge };
const char *cmpSymbol(CmpKind K);

// Constructs outside the kernel language, each with a message and a hint
// (support in Decoder.cpp: unsupportedMessage / unsupportedHint).
#define PCJ_UNSUPPORTED_KINDS(X)                                               \
  X(ListDisplay, "list displays are not supported in kernels",                 \
    "use cuda.local.array(shape, dtype) for per-thread scratch arrays")        \
  X(DictDisplay, "dict displays are not supported in kernels",                 \
    "use cuda.local.array or pass the data in as an array")                    \
  X(SetDisplay, "set displays are not supported in kernels",                   \
    "use cuda.local.array or pass the data in as an array")                    \
  X(Comprehension, "comprehensions are not supported in kernels",              \
    "write an explicit for loop")                                              \
  X(With, "'with' statements are not supported in kernels", "")                \
  X(Try, "try/except/finally is not supported in kernels", "")                 \
  X(Generator, "generators (yield) are not supported in kernels", "")          \
  X(Async, "async functions are not supported in kernels", "")                 \
  X(NestedFunction,                                                            \
    "nested functions and lambdas are not supported in kernels",               \
    "define a device function at module level with @cuda.jit(device=True)")    \
  X(Import, "import statements are not supported in kernels",                  \
    "import at module level; kernels can use module globals")                  \
  X(FString, "string formatting is not supported in kernels",                  \
    "print the values directly: print(\"x =\", x)")                            \
  X(StarArgs,                                                                  \
    "calls with **kwargs, or with arguments before a *tuple, are not "         \
    "supported in kernels",                                                    \
    "pass the arguments explicitly, or spread one tuple: f(*t)")               \
  X(GlobalStore, "assigning to a global variable is not supported in kernels", \
    "write results into an array argument")                                    \
  X(Delete, "'del' is not supported in kernels", "")                           \
  X(Closure, "modifying closure variables is not supported in kernels", "")    \
  X(LateCapture,                                                               \
    "a variable that a nested function captures is assigned after the "        \
    "function is defined (or the function refers to itself)",                  \
    "kernels capture a variable's value where the def or lambda is: assign "   \
    "it before, and do not recurse in nested functions")                       \
  X(NestedDefaults,                                                            \
    "keyword-only parameters of nested functions and lambdas are not "         \
    "supported in kernels",                                                    \
    "make them ordinary parameters")                                           \
  X(Other, "this Python construct is not supported in kernels", "")

enum class UnsupportedKind : uint8_t {
#define X(Name, Msg, Hint) Name,
  PCJ_UNSUPPORTED_KINDS(X)
#undef X
};
const char *unsupportedMessage(UnsupportedKind K);
const char *unsupportedHint(UnsupportedKind K);

namespace flag {
constexpr uint32_t InPlace = 1;  // BINARY_OP: augmented assignment
constexpr uint32_t CallPair = 2; // CALL: callable takes two stack entries
} // namespace flag

struct Instr {
  Op op = Op::POP_TOP;
  int32_t arg = 0;
  int32_t target = -1; // jumps: index into DecodedCode::instrs
  int32_t aux = -1;    // CALL: kwnames index; UNSUPPORTED: opnames index
  uint32_t flags = 0;
  int32_t offset = 0; // byte offset of the raw instruction in co_code
  int32_t line = -1, col = -1, endCol = -1;

  bool isJump() const;       // has a target
  bool isTerminator() const; // JUMP, RETURN_VALUE, RAISE: no fall-through
};

struct DecodedCode {
  std::shared_ptr<const std::string> file; // shared by every SourceLoc
  std::string name, qualname;
  int firstLineNo = 0; // the `def` line (below any decorators)
  int argCount = 0;    // positional parameters (incl. pos-only)
  std::vector<Instr> instrs;
  std::vector<ConstValue> consts;
  std::vector<std::string> names;      // LOAD_GLOBAL / LOAD_ATTR / ...
  std::vector<std::string> varnames;   // LOAD_FAST / STORE_FAST
  std::vector<std::string> derefNames; // LOAD_DEREF
  std::vector<std::vector<std::string>> kwnames; // CALL aux
  std::vector<std::string> opnames; // raw opnames for UNSUPPORTED messages

  SourceLoc loc(const Instr &I) const {
    return SourceLoc{file, I.line, I.col, I.endCol};
  }
  // Deterministic listing: "   12  L5   LOAD_FAST x" per line.
  std::string dump() const;
};

} // namespace pcj::bc
