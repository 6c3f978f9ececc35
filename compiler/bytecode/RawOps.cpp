// The decoder's first step: the per-version meaning of every opcode name
// (kOps below), the opcode-number dispatch built from the interpreter's own
// opmap, and the scan of co_code into raw instructions.
//
//   3.11 bytes  90 01 | 72 05 00 00   (EXTENDED_ARG 1;
//   POP_JUMP_FORWARD_IF_FALSE 5)
//   -> RawInstr{start=0, offset=2, arg=0x105, jumpTo=4 + 2*0x105}
//
// Jump arguments: 3.10 counts in code units, absolute for JUMP_ABSOLUTE /
// POP_JUMP_IF_* / JUMP_IF_*_OR_POP and relative to the next instruction for
// JUMP_FORWARD / FOR_ITER.  3.11+ jumps are all relative to the end of the
// instruction's inline caches, forward or (JUMP_BACKWARD*,
// POP_JUMP_BACKWARD_IF_*) backward.  Checked against `dis` of each version
// by tests/unit/bytecode_test.cpp.
#include "bytecode/RawOps.h"

#include "support/Diagnostics.h"

#include <unordered_map>

namespace pcj::bc::detail {

namespace {

using K = RawKind;
using J = JumpMode;
using U = UnsupportedKind;

constexpr int P(Op O) { return (int)O; }
constexpr int P(U Kind) { return (int)Kind; }
constexpr int Bin(BinOpKind B, bool InPlace = false) {
  return (int)B | (InPlace ? 0x100 : 0);
}

// clang-format off
const RawOpInfo kOps[] = {
  // ---- dropped ------------------------------------------------------------
  {"NOP",              10, 13, K::Drop},
  {"RESUME",           11, 13, K::Drop},
  {"CACHE",            11, 13, K::Drop},
  {"PRECALL",          11, 11, K::Drop},
  {"COPY_FREE_VARS",   11, 13, K::Drop},
  {"MAKE_CELL",        11, 13, K::Drop},
  {"GEN_START",        10, 10, K::Drop},
  {"EXTENDED_ARG",     10, 13, K::ExtendedArg},

  // ---- stack --------------------------------------------------------------
  {"POP_TOP",          10, 13, K::Simple, P(Op::POP_TOP)},
  {"PUSH_NULL",        11, 13, K::Simple, P(Op::PUSH_NULL)},
  {"COPY",             11, 13, K::WithArg, P(Op::COPY)},
  {"SWAP",             11, 13, K::WithArg, P(Op::SWAP)},
  {"ROT_TWO",          10, 10, K::RotN, 2},
  {"ROT_THREE",        10, 10, K::RotN, 3},
  {"ROT_FOUR",         10, 10, K::RotN, 4},
  {"ROT_N",            10, 10, K::RotN, 0},
  {"DUP_TOP",          10, 10, K::Dup, 1},
  {"DUP_TOP_TWO",      10, 10, K::Dup, 2},

  // ---- constants, locals, globals, attributes -----------------------------
  {"LOAD_CONST",       10, 13, K::LoadConst},
  {"RETURN_CONST",     12, 13, K::ReturnConst},
  {"LOAD_FAST",        10, 13, K::LoadFast},
  {"LOAD_FAST_CHECK",  12, 13, K::LoadFast},
  {"LOAD_FAST_LOAD_FAST",   13, 13, K::LoadFastLoadFast},
  {"STORE_FAST_LOAD_FAST",  13, 13, K::StoreFastLoadFast},
  {"STORE_FAST_STORE_FAST", 13, 13, K::StoreFastStoreFast},
  {"STORE_FAST",       10, 13, K::StoreFast},
  {"LOAD_DEREF",       10, 10, K::LoadDeref, 0},
  {"LOAD_DEREF",       11, 13, K::LoadDeref, 1},
  {"STORE_DEREF",      10, 10, K::StoreDeref, 0},
  {"STORE_DEREF",      11, 13, K::StoreDeref, 1},
  {"LOAD_CLOSURE",     10, 13, K::LoadClosure},
  {"LOAD_GLOBAL",      10, 10, K::LoadGlobal, 0},
  {"LOAD_GLOBAL",      11, 12, K::LoadGlobal, 1},
  {"LOAD_GLOBAL",      13, 13, K::LoadGlobal, 2},
  {"LOAD_ATTR",        10, 11, K::LoadAttr, 0},
  {"LOAD_ATTR",        12, 13, K::LoadAttr, 1},
  {"LOAD_METHOD",      10, 11, K::LoadMethod},
  {"STORE_ATTR",       10, 13, K::StoreAttr},
  {"LOAD_ASSERTION_ERROR", 10, 13, K::Simple, P(Op::LOAD_ASSERTION_ERROR)},

  // ---- operators ------------------------------------------------------------
  {"BINARY_OP",        11, 13, K::BinaryOp},
  {"BINARY_ADD",             10, 10, K::BinaryLegacy, Bin(BinOpKind::Add)},
  {"BINARY_SUBTRACT",        10, 10, K::BinaryLegacy, Bin(BinOpKind::Sub)},
  {"BINARY_MULTIPLY",        10, 10, K::BinaryLegacy, Bin(BinOpKind::Mul)},
  {"BINARY_TRUE_DIVIDE",     10, 10, K::BinaryLegacy, Bin(BinOpKind::TrueDiv)},
  {"BINARY_FLOOR_DIVIDE",    10, 10, K::BinaryLegacy, Bin(BinOpKind::FloorDiv)},
  {"BINARY_MODULO",          10, 10, K::BinaryLegacy, Bin(BinOpKind::Mod)},
  {"BINARY_POWER",           10, 10, K::BinaryLegacy, Bin(BinOpKind::Pow)},
  {"BINARY_LSHIFT",          10, 10, K::BinaryLegacy, Bin(BinOpKind::LShift)},
  {"BINARY_RSHIFT",          10, 10, K::BinaryLegacy, Bin(BinOpKind::RShift)},
  {"BINARY_AND",             10, 10, K::BinaryLegacy, Bin(BinOpKind::And)},
  {"BINARY_OR",              10, 10, K::BinaryLegacy, Bin(BinOpKind::Or)},
  {"BINARY_XOR",             10, 10, K::BinaryLegacy, Bin(BinOpKind::Xor)},
  {"BINARY_MATRIX_MULTIPLY", 10, 10, K::BinaryLegacy, Bin(BinOpKind::MatMul)},
  {"INPLACE_ADD",            10, 10, K::BinaryLegacy, Bin(BinOpKind::Add, true)},
  {"INPLACE_SUBTRACT",       10, 10, K::BinaryLegacy, Bin(BinOpKind::Sub, true)},
  {"INPLACE_MULTIPLY",       10, 10, K::BinaryLegacy, Bin(BinOpKind::Mul, true)},
  {"INPLACE_TRUE_DIVIDE",    10, 10, K::BinaryLegacy, Bin(BinOpKind::TrueDiv, true)},
  {"INPLACE_FLOOR_DIVIDE",   10, 10, K::BinaryLegacy, Bin(BinOpKind::FloorDiv, true)},
  {"INPLACE_MODULO",         10, 10, K::BinaryLegacy, Bin(BinOpKind::Mod, true)},
  {"INPLACE_POWER",          10, 10, K::BinaryLegacy, Bin(BinOpKind::Pow, true)},
  {"INPLACE_LSHIFT",         10, 10, K::BinaryLegacy, Bin(BinOpKind::LShift, true)},
  {"INPLACE_RSHIFT",         10, 10, K::BinaryLegacy, Bin(BinOpKind::RShift, true)},
  {"INPLACE_AND",            10, 10, K::BinaryLegacy, Bin(BinOpKind::And, true)},
  {"INPLACE_OR",             10, 10, K::BinaryLegacy, Bin(BinOpKind::Or, true)},
  {"INPLACE_XOR",            10, 10, K::BinaryLegacy, Bin(BinOpKind::Xor, true)},
  {"INPLACE_MATRIX_MULTIPLY",10, 10, K::BinaryLegacy, Bin(BinOpKind::MatMul, true)},
  {"UNARY_NEGATIVE",   10, 13, K::Simple, P(Op::UNARY_NEGATIVE)},
  {"UNARY_POSITIVE",   10, 11, K::Simple, P(Op::UNARY_POSITIVE)},
  {"UNARY_NOT",        10, 13, K::Simple, P(Op::UNARY_NOT)},
  {"UNARY_INVERT",     10, 13, K::Simple, P(Op::UNARY_INVERT)},
  {"TO_BOOL",          13, 13, K::Simple, P(Op::TO_BOOL)},
  {"CALL_INTRINSIC_1", 12, 13, K::CallIntrinsic1},
  {"COMPARE_OP",       10, 11, K::CompareOp, 0},
  {"COMPARE_OP",       12, 12, K::CompareOp, 4},
  {"COMPARE_OP",       13, 13, K::CompareOp, 5},
  {"IS_OP",            10, 13, K::WithArg, P(Op::IS_OP)},
  {"CONTAINS_OP",      10, 13, K::WithArg, P(Op::CONTAINS_OP)},

  // ---- containers -----------------------------------------------------------
  {"BUILD_TUPLE",      10, 13, K::WithArg, P(Op::BUILD_TUPLE)},
  {"BUILD_SLICE",      10, 13, K::WithArg, P(Op::BUILD_SLICE)},
  {"BINARY_SUBSCR",    10, 13, K::Simple, P(Op::BINARY_SUBSCR)},
  {"STORE_SUBSCR",     10, 13, K::Simple, P(Op::STORE_SUBSCR)},
  {"BINARY_SLICE",     12, 13, K::BinarySlice},
  {"STORE_SLICE",      12, 13, K::StoreSlice},
  {"UNPACK_SEQUENCE",  10, 13, K::WithArg, P(Op::UNPACK_SEQUENCE)},

  // ---- calls ------------------------------------------------------------------
  {"CALL_FUNCTION",    10, 10, K::CallLegacy, 0},
  {"CALL_METHOD",      10, 10, K::CallLegacy, 1},
  {"CALL_FUNCTION_KW", 10, 10, K::CallLegacyKw},
  {"CALL",             11, 13, K::Call},
  {"CALL_KW",          13, 13, K::CallKw},
  {"KW_NAMES",         11, 12, K::KwNames},

  // ---- control flow ---------------------------------------------------------
  {"JUMP_FORWARD",     10, 13, K::Jump, 0, J::Forward},
  {"JUMP_ABSOLUTE",    10, 10, K::Jump, 0, J::Absolute},
  {"JUMP_BACKWARD",    11, 13, K::Jump, 0, J::Backward},
  {"JUMP_BACKWARD_NO_INTERRUPT", 11, 13, K::Jump, 0, J::Backward},
  {"POP_JUMP_IF_FALSE",    10, 10, K::CondJump, P(Op::POP_JUMP_IF_FALSE), J::Absolute},
  {"POP_JUMP_IF_TRUE",     10, 10, K::CondJump, P(Op::POP_JUMP_IF_TRUE), J::Absolute},
  {"JUMP_IF_FALSE_OR_POP", 10, 10, K::CondJump, P(Op::JUMP_IF_FALSE_OR_POP), J::Absolute},
  {"JUMP_IF_TRUE_OR_POP",  10, 10, K::CondJump, P(Op::JUMP_IF_TRUE_OR_POP), J::Absolute},
  {"JUMP_IF_FALSE_OR_POP", 11, 11, K::CondJump, P(Op::JUMP_IF_FALSE_OR_POP), J::Forward},
  {"JUMP_IF_TRUE_OR_POP",  11, 11, K::CondJump, P(Op::JUMP_IF_TRUE_OR_POP), J::Forward},
  {"POP_JUMP_FORWARD_IF_FALSE",     11, 11, K::CondJump, P(Op::POP_JUMP_IF_FALSE), J::Forward},
  {"POP_JUMP_FORWARD_IF_TRUE",      11, 11, K::CondJump, P(Op::POP_JUMP_IF_TRUE), J::Forward},
  {"POP_JUMP_FORWARD_IF_NONE",      11, 11, K::CondJump, P(Op::POP_JUMP_IF_NONE), J::Forward},
  {"POP_JUMP_FORWARD_IF_NOT_NONE",  11, 11, K::CondJump, P(Op::POP_JUMP_IF_NOT_NONE), J::Forward},
  {"POP_JUMP_BACKWARD_IF_FALSE",    11, 11, K::CondJump, P(Op::POP_JUMP_IF_FALSE), J::Backward},
  {"POP_JUMP_BACKWARD_IF_TRUE",     11, 11, K::CondJump, P(Op::POP_JUMP_IF_TRUE), J::Backward},
  {"POP_JUMP_BACKWARD_IF_NONE",     11, 11, K::CondJump, P(Op::POP_JUMP_IF_NONE), J::Backward},
  {"POP_JUMP_BACKWARD_IF_NOT_NONE", 11, 11, K::CondJump, P(Op::POP_JUMP_IF_NOT_NONE), J::Backward},
  {"POP_JUMP_IF_FALSE",    12, 13, K::CondJump, P(Op::POP_JUMP_IF_FALSE), J::Forward},
  {"POP_JUMP_IF_TRUE",     12, 13, K::CondJump, P(Op::POP_JUMP_IF_TRUE), J::Forward},
  {"POP_JUMP_IF_NONE",     12, 13, K::CondJump, P(Op::POP_JUMP_IF_NONE), J::Forward},
  {"POP_JUMP_IF_NOT_NONE", 12, 13, K::CondJump, P(Op::POP_JUMP_IF_NOT_NONE), J::Forward},
  {"GET_ITER",         10, 13, K::Simple, P(Op::GET_ITER)},
  {"FOR_ITER",         10, 11, K::ForIter, 0, J::Forward},
  {"FOR_ITER",         12, 12, K::ForIter, 1, J::Forward},
  {"FOR_ITER",         13, 13, K::ForIter, 2, J::Forward},
  {"END_FOR",          12, 12, K::EndFor, 2},
  {"END_FOR",          13, 13, K::EndFor, 1},
  {"RETURN_VALUE",     10, 13, K::Simple, P(Op::RETURN_VALUE)},
  {"RAISE_VARARGS",    10, 13, K::WithArg, P(Op::RAISE)},

  // ---- nested functions and lambdas ---------------------------------------
  {"MAKE_FUNCTION",          10, 10, K::MakeFunction, 0},
  {"MAKE_FUNCTION",          11, 12, K::MakeFunction, 1},
  {"MAKE_FUNCTION",          13, 13, K::MakeFunction, 2},
  {"SET_FUNCTION_ATTRIBUTE", 13, 13, K::SetFunctionAttribute},

  // ---- outside the kernel language --------------------------------------------
  {"LOAD_BUILD_CLASS", 10, 13, K::Unsupported, P(U::NestedFunction)},
  {"BUILD_LIST",       10, 13, K::Unsupported, P(U::ListDisplay)},
  {"LIST_APPEND",      10, 13, K::Unsupported, P(U::ListDisplay)},
  {"LIST_EXTEND",      10, 13, K::Unsupported, P(U::ListDisplay)},
  {"LIST_TO_TUPLE",    10, 11, K::Unsupported, P(U::ListDisplay)},
  {"BUILD_MAP",        10, 13, K::Unsupported, P(U::DictDisplay)},
  {"BUILD_CONST_KEY_MAP", 10, 13, K::Unsupported, P(U::DictDisplay)},
  {"DICT_UPDATE",      10, 13, K::Unsupported, P(U::DictDisplay)},
  {"MAP_ADD",          10, 13, K::Unsupported, P(U::DictDisplay)},
  {"BUILD_SET",        10, 13, K::Unsupported, P(U::SetDisplay)},
  {"SET_ADD",          10, 13, K::Unsupported, P(U::SetDisplay)},
  {"SET_UPDATE",       10, 13, K::Unsupported, P(U::SetDisplay)},
  {"LOAD_FAST_AND_CLEAR", 12, 13, K::Unsupported, P(U::Comprehension)},
  {"SETUP_WITH",       10, 10, K::Unsupported, P(U::With)},
  {"BEFORE_WITH",      11, 13, K::Unsupported, P(U::With)},
  {"WITH_EXCEPT_START", 10, 13, K::Unsupported, P(U::With)},
  {"SETUP_FINALLY",    10, 10, K::Unsupported, P(U::Try)},
  {"POP_BLOCK",        10, 10, K::Unsupported, P(U::Try)},
  {"POP_EXCEPT",       10, 13, K::Unsupported, P(U::Try)},
  {"RERAISE",          10, 13, K::Unsupported, P(U::Try)},
  {"JUMP_IF_NOT_EXC_MATCH", 10, 10, K::Unsupported, P(U::Try)},
  {"PUSH_EXC_INFO",    11, 13, K::Unsupported, P(U::Try)},
  {"CHECK_EXC_MATCH",  11, 13, K::Unsupported, P(U::Try)},
  {"CHECK_EG_MATCH",   11, 13, K::Unsupported, P(U::Try)},
  {"PREP_RERAISE_STAR", 11, 11, K::Unsupported, P(U::Try)},
  {"YIELD_VALUE",      10, 13, K::Unsupported, P(U::Generator)},
  {"YIELD_FROM",       10, 10, K::Unsupported, P(U::Generator)},
  {"GET_YIELD_FROM_ITER", 10, 13, K::Unsupported, P(U::Generator)},
  {"RETURN_GENERATOR", 11, 13, K::Unsupported, P(U::Generator)},
  {"SEND",             11, 13, K::Unsupported, P(U::Generator)},
  {"END_SEND",         12, 13, K::Unsupported, P(U::Generator)},
  {"CLEANUP_THROW",    12, 13, K::Unsupported, P(U::Generator)},
  {"GET_AWAITABLE",    10, 13, K::Unsupported, P(U::Async)},
  {"GET_AITER",        10, 13, K::Unsupported, P(U::Async)},
  {"GET_ANEXT",        10, 13, K::Unsupported, P(U::Async)},
  {"BEFORE_ASYNC_WITH", 10, 13, K::Unsupported, P(U::Async)},
  {"SETUP_ASYNC_WITH", 10, 10, K::Unsupported, P(U::Async)},
  {"END_ASYNC_FOR",    10, 13, K::Unsupported, P(U::Async)},
  {"ASYNC_GEN_WRAP",   11, 11, K::Unsupported, P(U::Async)},
  {"IMPORT_NAME",      10, 13, K::Unsupported, P(U::Import)},
  {"IMPORT_FROM",      10, 13, K::Unsupported, P(U::Import)},
  {"IMPORT_STAR",      10, 11, K::Unsupported, P(U::Import)},
  {"FORMAT_VALUE",     10, 12, K::Unsupported, P(U::FString)},
  {"FORMAT_SIMPLE",    13, 13, K::Unsupported, P(U::FString)},
  {"FORMAT_WITH_SPEC", 13, 13, K::Unsupported, P(U::FString)},
  {"CONVERT_VALUE",    13, 13, K::Unsupported, P(U::FString)},
  {"BUILD_STRING",     10, 13, K::Unsupported, P(U::FString)},
  {"CALL_FUNCTION_EX", 10, 10, K::CallEx, 0},
  {"CALL_FUNCTION_EX", 11, 13, K::CallEx, 1},
  {"DICT_MERGE",       10, 13, K::Unsupported, P(U::StarArgs)},
  {"STORE_GLOBAL",     10, 13, K::Unsupported, P(U::GlobalStore)},
  {"DELETE_GLOBAL",    10, 13, K::Unsupported, P(U::GlobalStore)},
  {"DELETE_FAST",      10, 13, K::Unsupported, P(U::Delete)},
  {"DELETE_NAME",      10, 13, K::Unsupported, P(U::Delete)},
  {"DELETE_ATTR",      10, 13, K::Unsupported, P(U::Delete)},
  {"DELETE_SUBSCR",    10, 13, K::Unsupported, P(U::Delete)},
  {"DELETE_DEREF",     10, 13, K::Unsupported, P(U::Delete)},
};
// clang-format on

// Out-of-range targets become -1; the decoder reports them as malformed.
int clampTarget(int64_t T) { return T < 0 || T > (1 << 30) ? -1 : (int)T; }

const RawOpInfo kUnknown = {"<unknown>", 10, 13, K::Unsupported, P(U::Other)};

} // namespace

void malformed(const SourceLoc &Loc, const std::string &Msg) {
  throw CompileError(ErrorKind::Bytecode, Loc, "malformed bytecode: " + Msg);
}

const RawOpInfo &lookupOpInfo(const std::string &Name, int Minor) {
  // name -> the rows for that name (one per version range); built once.
  static const std::unordered_multimap<std::string, const RawOpInfo *> ByName =
      [] {
        std::unordered_multimap<std::string, const RawOpInfo *> M;
        for (const RawOpInfo &S : kOps)
          M.emplace(S.name, &S);
        return M;
      }();
  auto [Lo, Hi] = ByName.equal_range(Name);
  for (auto It = Lo; It != Hi; ++It)
    if (Minor >= It->second->minMinor && Minor <= It->second->maxMinor)
      return *It->second;
  return kUnknown;
}

Dispatch buildDispatch(const OpcodeTable &T, int Minor) {
  Dispatch D;
  D.info.assign(256, nullptr);
  D.name.assign(256, nullptr);
  D.caches.assign(256, 0);
  D.haveArgument = T.haveArgument;
  for (const auto &[Name, Num] : T.opmap) {
    if (Num < 0 || Num > 255)
      continue; // pseudo-instructions never appear in co_code
    D.info[Num] = &lookupOpInfo(Name, Minor);
    D.name[Num] = &Name;
    if ((size_t)Num < T.cacheEntries.size())
      D.caches[Num] = T.cacheEntries[Num];
  }
  return D;
}

std::vector<RawInstr> scanRaw(const RawCode &Raw, const Dispatch &D,
                              const SourceLoc &FnLoc) {
  const std::string &Code = Raw.code;
  const int Size = (int)Code.size();
  if (Size == 0)
    malformed(FnLoc, "empty co_code");
  if (Size % 2)
    malformed(FnLoc,
              "co_code has an odd length (" + std::to_string(Size) + " bytes)");
  const bool HavePositions = !Raw.positions.empty();

  std::vector<RawInstr> Out;
  uint32_t Ext = 0;
  int Start = -1;
  size_t LineIdx = 0; // sweeps Raw.lines in offset order
  int LastLine = -1;
  for (int Off = 0; Off < Size;) {
    if (Start < 0)
      Start = Off;
    int OpNum = (unsigned char)Code[Off];
    int A = (unsigned char)Code[Off + 1];
    const RawOpInfo *Info = D.info[OpNum];
    if (!Info)
      malformed(FnLoc, "unknown opcode " + std::to_string(OpNum) +
                           " at offset " + std::to_string(Off));
    uint32_t Arg = OpNum >= D.haveArgument ? (Ext | (uint32_t)A) : 0;
    int Next = Off + 2 + 2 * D.caches[OpNum];
    if (Next > Size)
      malformed(FnLoc, "code ends inside the inline caches of the "
                       "instruction at offset " +
                           std::to_string(Off));
    if (Info->kind == RawKind::ExtendedArg) {
      if (Arg >> 24) // a fourth prefix would overflow 32 bits
        malformed(FnLoc, "too many EXTENDED_ARG prefixes at offset " +
                             std::to_string(Off));
      Ext = Arg << 8;
      Off = Next;
      continue;
    }
    Ext = 0;

    RawInstr R;
    R.start = Start;
    R.offset = Off;
    R.next = Next;
    R.opcode = OpNum;
    R.arg = Arg;
    R.info = Info;
    R.opname = D.name[OpNum];
    switch (Info->jump) {
    case JumpMode::None:
      break;
    case JumpMode::Absolute:
      R.jumpTo = clampTarget(2 * (int64_t)Arg);
      break;
    case JumpMode::Forward:
      R.jumpTo = clampTarget(Next + 2 * (int64_t)Arg);
      break;
    case JumpMode::Backward:
      R.jumpTo = clampTarget(Next - 2 * (int64_t)Arg);
      break;
    }

    // Source position: co_positions() per code unit when the version has
    // it, else the co_lines() range holding the offset.
    int Line = -1;
    if (HavePositions && (size_t)(Off / 2) < Raw.positions.size()) {
      const Position &Pos = Raw.positions[Off / 2];
      Line = Pos.line;
      R.col = Pos.col;
      R.endCol = Pos.endCol;
    } else {
      while (LineIdx < Raw.lines.size() && Raw.lines[LineIdx].end <= Off)
        ++LineIdx;
      if (LineIdx < Raw.lines.size() && Raw.lines[LineIdx].start <= Off)
        Line = Raw.lines[LineIdx].line;
    }
    if (Line > 0)
      LastLine = Line;
    R.line = Line > 0 ? Line : LastLine;
    if (R.line <= 0)
      R.line = Raw.firstLineNo;
    Out.push_back(R);
    Start = -1;
    Off = Next;
  }
  if (Start >= 0)
    malformed(FnLoc, "code ends with EXTENDED_ARG");
  return Out;
}

std::vector<ExceptionEntry> parseExceptionTable(const std::string &Table,
                                                const SourceLoc &FnLoc) {
  std::vector<ExceptionEntry> Out;
  size_t Pos = 0;
  // Each entry is four varints (start, length, target in code units, then
  // depth << 1 | lasti); six bits per byte, most significant first, bit 6
  // = "more follows", bit 7 marks the first byte of an entry.
  auto VarInt = [&]() -> int {
    if (Pos >= Table.size())
      malformed(FnLoc, "truncated exception table");
    unsigned char B = Table[Pos++];
    int64_t V = B & 63;
    while (B & 64) {
      if (Pos >= Table.size())
        malformed(FnLoc, "truncated exception table");
      B = Table[Pos++];
      V = (V << 6) | (B & 63);
      if (V > (1 << 28))
        malformed(FnLoc, "exception table value out of range");
    }
    return (int)V;
  };
  while (Pos < Table.size()) {
    if (!((unsigned char)Table[Pos] & 128))
      malformed(FnLoc, "exception table entry does not start an entry");
    ExceptionEntry E;
    E.start = VarInt() * 2;
    E.end = E.start + VarInt() * 2;
    E.target = VarInt() * 2;
    int DL = VarInt();
    E.depth = DL >> 1;
    E.lasti = DL & 1;
    Out.push_back(E);
  }
  return Out;
}

} // namespace pcj::bc::detail
