// The neutral instruction set's names, operator symbols, unsupported-construct
// messages, and DecodedCode::dump, the deterministic listing used by
// PYCUDA_JIT_DUMP=bytecode and the tests:
//
//   # kwcall  (file.py:219, 1 arg)
//      0 L221  LOAD_GLOBAL       0 (helper)
//      1 L221  LOAD_FAST         0 (x)
//      2 L221  LOAD_CONST        1 (2)
//      3 L221  CALL              2 kw=('b',)
//      7 L223  POP_JUMP_IF_FALSE -> 12
#include "bytecode/Instr.h"

#include <cstdio>

namespace pcj::bc {

const char *opName(Op O) {
  switch (O) {
#define PCJ_OP(Name, Doc)                                                      \
  case Op::Name:                                                               \
    return #Name;
#include "bytecode/Ops.def"
#undef PCJ_OP
  }
  return "?";
}

const char *binOpSymbol(BinOpKind K) {
  switch (K) {
  case BinOpKind::Add:
    return "+";
  case BinOpKind::Sub:
    return "-";
  case BinOpKind::Mul:
    return "*";
  case BinOpKind::TrueDiv:
    return "/";
  case BinOpKind::FloorDiv:
    return "//";
  case BinOpKind::Mod:
    return "%";
  case BinOpKind::Pow:
    return "**";
  case BinOpKind::LShift:
    return "<<";
  case BinOpKind::RShift:
    return ">>";
  case BinOpKind::And:
    return "&";
  case BinOpKind::Or:
    return "|";
  case BinOpKind::Xor:
    return "^";
  case BinOpKind::MatMul:
    return "@";
  }
  return "?";
}

const char *cmpSymbol(CmpKind K) {
  switch (K) {
  case CmpKind::Lt:
    return "<";
  case CmpKind::Le:
    return "<=";
  case CmpKind::Eq:
    return "==";
  case CmpKind::Ne:
    return "!=";
  case CmpKind::Gt:
    return ">";
  case CmpKind::Ge:
    return ">=";
  }
  return "?";
}

const char *unsupportedMessage(UnsupportedKind K) {
  switch (K) {
#define X(Name, Msg, Hint)                                                     \
  case UnsupportedKind::Name:                                                  \
    return Msg;
    PCJ_UNSUPPORTED_KINDS(X)
#undef X
  }
  return "unsupported construct";
}

const char *unsupportedHint(UnsupportedKind K) {
  switch (K) {
#define X(Name, Msg, Hint)                                                     \
  case UnsupportedKind::Name:                                                  \
    return Hint;
    PCJ_UNSUPPORTED_KINDS(X)
#undef X
  }
  return "";
}

static const char *unsupportedKindName(UnsupportedKind K) {
  switch (K) {
#define X(Name, Msg, Hint)                                                     \
  case UnsupportedKind::Name:                                                  \
    return #Name;
    PCJ_UNSUPPORTED_KINDS(X)
#undef X
  }
  return "?";
}

bool Instr::isJump() const {
  switch (op) {
  case Op::JUMP:
  case Op::POP_JUMP_IF_FALSE:
  case Op::POP_JUMP_IF_TRUE:
  case Op::POP_JUMP_IF_NONE:
  case Op::POP_JUMP_IF_NOT_NONE:
  case Op::JUMP_IF_FALSE_OR_POP:
  case Op::JUMP_IF_TRUE_OR_POP:
  case Op::FOR_ITER:
    return true;
  default:
    return false;
  }
}

bool Instr::isTerminator() const {
  return op == Op::JUMP || op == Op::RETURN_VALUE || op == Op::RAISE;
}

namespace {

template <typename T> std::string nameAt(const std::vector<T> &V, int32_t I) {
  if (I < 0 || (size_t)I >= V.size())
    return "<bad index>";
  if constexpr (std::is_same_v<T, std::string>)
    return V[I];
  else
    return V[I].repr();
}

std::string argText(const DecodedCode &C, const Instr &I) {
  std::string N = std::to_string(I.arg);
  switch (I.op) {
  case Op::LOAD_CONST:
    return N + " (" + nameAt(C.consts, I.arg) + ")";
  case Op::LOAD_FAST:
  case Op::STORE_FAST:
  case Op::DELETE_FAST:
    return N + " (" + nameAt(C.varnames, I.arg) + ")";
  case Op::LOAD_DEREF:
    return N + " (" + nameAt(C.derefNames, I.arg) + ")";
  case Op::LOAD_GLOBAL:
  case Op::LOAD_ATTR:
  case Op::LOAD_METHOD:
  case Op::STORE_ATTR:
    return N + " (" + nameAt(C.names, I.arg) + ")";
  case Op::BINARY_OP:
    return N + " (" + binOpSymbol((BinOpKind)I.arg) +
           ((I.flags & flag::InPlace) ? "=)" : ")");
  case Op::COMPARE_OP:
    return N + " (" + cmpSymbol((CmpKind)I.arg) + ")";
  case Op::IS_OP:
    return N + (I.arg ? " (is not)" : " (is)");
  case Op::CONTAINS_OP:
    return N + (I.arg ? " (not in)" : " (in)");
  case Op::MAKE_FUNCTION:
    return N + " (" + nameAt(C.consts, I.arg) + ")";
  case Op::SET_FUNCTION_ATTRIBUTE:
  case Op::COPY:
  case Op::SWAP:
  case Op::BUILD_TUPLE:
  case Op::BUILD_SLICE:
  case Op::UNPACK_SEQUENCE:
  case Op::RAISE:
    return N;
  case Op::CALL_EX:
    return N + ((I.flags & flag::CallPair) ? " pair" : "");
  case Op::CALL: {
    std::string S = N;
    if (I.flags & flag::CallPair)
      S += " pair";
    if (I.aux >= 0 && (size_t)I.aux < C.kwnames.size()) {
      S += " kw=(";
      const auto &K = C.kwnames[I.aux];
      for (size_t J = 0; J < K.size(); ++J)
        S += (J ? ", '" : "'") + K[J] + "'";
      S += K.size() == 1 ? ",)" : ")";
    }
    return S;
  }
  case Op::UNSUPPORTED:
    return std::string(unsupportedKindName((UnsupportedKind)I.arg)) + " (" +
           nameAt(C.opnames, I.aux) + ")";
  default:
    break;
  }
  if (I.isJump())
    return "-> " + std::to_string(I.target);
  return "";
}

} // namespace

std::string DecodedCode::dump() const {
  std::string Out = "# " + qualname + "  (" + (file ? *file : "<unknown>") +
                    ":" + std::to_string(firstLineNo) + ", " +
                    std::to_string(argCount) +
                    (argCount == 1 ? " arg)\n" : " args)\n");
  char Buf[96];
  for (size_t Idx = 0; Idx < instrs.size(); ++Idx) {
    const Instr &I = instrs[Idx];
    std::string Line = I.line >= 0 ? "L" + std::to_string(I.line) : "L-";
    std::snprintf(Buf, sizeof(Buf), "%4zu %-6s %-20s", Idx, Line.c_str(),
                  opName(I.op));
    std::string Row = Buf;
    std::string Arg = argText(*this, I);
    if (!Arg.empty())
      Row += " " + Arg;
    while (!Row.empty() && Row.back() == ' ')
      Row.pop_back();
    Out += Row + "\n";
  }
  return Out;
}

} // namespace pcj::bc
