#include "support/Diagnostics.h"

namespace pcj {

const std::string &SourceLoc::fileName() const {
  static const std::string Unknown = "<unknown>";
  return file ? *file : Unknown;
}

std::string SourceLoc::str() const {
  if (!known())
    return fileName();
  return fileName() + ":" + std::to_string(line);
}

const char *errorKindPythonName(ErrorKind Kind) {
  switch (Kind) {
#define X(Name, Py)                                                            \
  case ErrorKind::Name:                                                        \
    return Py;
    PCJ_ERROR_KINDS(X)
#undef X
  }
  return "CompileError";
}

static std::string composeWhat(const SourceLoc &Loc, const std::string &Msg) {
  return Loc.known() ? Loc.str() + ": " + Msg : Msg;
}

CompileError::CompileError(ErrorKind Kind, SourceLoc Loc, std::string Message,
                           std::string Hint)
    : std::runtime_error(composeWhat(Loc, Message)), Kind(Kind),
      Loc(std::move(Loc)), Message(std::move(Message)), Hint(std::move(Hint)) {}

void throwInternal(const char *File, int Line, const std::string &Msg) {
  throw CompileError(ErrorKind::Internal, SourceLoc{},
                     Msg + " [" + File + ":" + std::to_string(Line) + "]",
                     "this is a bug in pycuda_jit; please report it");
}

} // namespace pcj
