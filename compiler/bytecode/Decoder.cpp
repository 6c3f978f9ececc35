// Stage 1: CPython 3.10-3.13 bytecode -> version-neutral instructions.
//
// decode() runs in four steps:
//   1. scanRaw (RawOps.cpp): co_code -> raw instructions, EXTENDED_ARG
//      folded, caches skipped, jump targets as byte offsets, lines/columns;
//   2. reject whole functions the kernel language cannot express:
//      generators/coroutines, exception handling, `with`;
//   3. normalise each raw instruction into zero or more neutral ones
//      (Normalizer::emit below; long tuple displays, which CPython builds
//      in a list, become BUILD_TUPLE: markLongTupleDisplays);
//   4. resolve jump targets to neutral indices (a target that lands on a
//      dropped instruction moves to the next kept one).
//
// Example (3.11 `return helper(x, b=2)`):
//   LOAD_GLOBAL 1 (NULL + helper)   ->  PUSH_NULL; LOAD_GLOBAL 0 (helper)
//   LOAD_FAST 0 (x); LOAD_CONST 1   ->  LOAD_FAST 0; LOAD_CONST 1
//   KW_NAMES 2; PRECALL 2; CALL 2   ->  CALL 2 pair kw=('b',)
//   RETURN_VALUE                    ->  RETURN_VALUE
#include "bytecode/Decoder.h"

#include "bytecode/RawOps.h"
#include "support/Diagnostics.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace pcj::bc {

using namespace detail;

namespace {

// co_flags bits (inspect.CO_*), stable across CPython versions.
constexpr int CoVarargs = 0x04;
constexpr int CoVarkeywords = 0x08;
constexpr int CoGenerator = 0x20;
constexpr int CoCoroutine = 0x80;
constexpr int CoIterableCoroutine = 0x100;
constexpr int CoAsyncGenerator = 0x200;

bool isName(const RawInstr &R, const char *Name) {
  return R.opname && *R.opname == Name;
}

bool isComprehensionName(const std::string &Name) {
  for (const char *Suffix :
       {"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"}) {
    size_t N = std::strlen(Suffix);
    if (Name.size() >= N && Name.compare(Name.size() - N, N, Suffix) == 0)
      return true;
  }
  return false;
}

class Normalizer {
public:
  Normalizer(const RawCode &Raw, DecodedCode &Out)
      : Raw(Raw), Out(Out), Minor(Raw.pyMinor) {}

  void run();

private:
  const RawCode &Raw;
  DecodedCode &Out;
  const int Minor;
  SourceLoc FnLoc;
  std::vector<RawInstr> Ins;
  std::unordered_map<int, int> ByStart; // byte offset -> raw index
  std::vector<int> RawTarget;           // raw index -> raw target index
  std::vector<int> FirstNeutral;        // raw index -> first neutral index
  // unreachable loop-exit cleanup; a long tuple display's list steps
  std::vector<bool> Dropped;
  // raw index -> elements of the long tuple display it completes (0: none)
  std::vector<int> TupleOfList;
  std::vector<bool> FoldedAway; // LOAD_CONST / KW_NAMES of a CALL
  std::vector<bool> Targeted;   // by a jump (FOR_ITER exits aside)
  struct Fixup {
    size_t neutral;
    int raw;
  };
  std::vector<Fixup> Fixups;
  int PendingKw = -1;                  // KW_NAMES waiting for its CALL
  std::vector<std::string> LocalsPlus; // 3.11+ fast-locals layout
  // Cell variables (and, with freevarsAsParams, free variables) are plain
  // locals: name -> index into Out.varnames.
  std::unordered_map<std::string, int> CellLocal;
  int Shift = 0; // freevarsAsParams: the free variables come first
  std::vector<std::string> Captured; // cells a nested function captured so far

  SourceLoc locOf(const RawInstr &R) const {
    return SourceLoc{Out.file, R.line, R.col, R.endCol};
  }
  [[noreturn]] void bad(const RawInstr &R, const std::string &Msg) const {
    malformed(locOf(R), Msg + " (" + (R.opname ? *R.opname : "?") +
                            " at offset " + std::to_string(R.offset) + ")");
  }
  [[noreturn]] void reject(UnsupportedKind K, const RawInstr &R) const {
    throw CompileError(ErrorKind::Unsupported, locOf(R), unsupportedMessage(K),
                       unsupportedHint(K));
  }

  void rejectWholeFunction();
  void resolveTargets();
  void markLoopExits();
  void markLongTupleDisplays();
  int longTupleDisplayAt(size_t I) const;
  void emit(size_t I);

  Instr &add(Op O, const RawInstr &R, int32_t Arg = 0) {
    Instr X;
    X.op = O;
    X.arg = Arg;
    X.offset = R.offset;
    X.line = R.line;
    X.col = R.col;
    X.endCol = R.endCol;
    Out.instrs.push_back(X);
    return Out.instrs.back();
  }
  void addJump(Op O, const RawInstr &R, int RawTargetIdx) {
    add(O, R);
    Fixups.push_back({Out.instrs.size() - 1, RawTargetIdx});
  }
  void addUnsupported(UnsupportedKind K, const RawInstr &R) {
    Instr &X = add(Op::UNSUPPORTED, R, (int32_t)K);
    const std::string &Name = R.opname ? *R.opname : std::string("?");
    auto It = std::find(Out.opnames.begin(), Out.opnames.end(), Name);
    X.aux = (int32_t)(It - Out.opnames.begin());
    if (It == Out.opnames.end())
      Out.opnames.push_back(Name);
  }

  const ConstValue &constAt(const RawInstr &R, uint32_t Idx) const {
    if (Idx >= Raw.consts.size())
      bad(R, "constant index " + std::to_string(Idx) + " out of range");
    return Raw.consts[Idx];
  }
  int32_t nameIdx(const RawInstr &R, uint32_t Idx) const {
    if (Idx >= Raw.names.size())
      bad(R, "name index " + std::to_string(Idx) + " out of range");
    return (int32_t)Idx;
  }
  int32_t kwnamesFrom(const RawInstr &R, const ConstValue &C);
  void loadFast(const RawInstr &R, uint32_t Idx);
  void storeFast(const RawInstr &R, uint32_t Idx);
  const std::string &derefName(const RawInstr &R, bool LocalsPlusIndex) const;
  void loadCell(const RawInstr &R, const std::string &Name, bool Capture);
  void setLocalLayout();
  int codeConstBefore(size_t I) const;
  UnsupportedKind functionKind(size_t I) const;
  void makeFunction(size_t I);
  void foldPreviousKwConst(size_t I, Instr &Call);
  bool startsKwargsCall(size_t I) const;
  bool startsStarListCall(size_t I) const;
  bool buildsKwDefaults(size_t I) const;
};

// ---- whole-function checks
// ---------------------------------------------------

void Normalizer::rejectWholeFunction() {
  auto FirstNamed = [&](std::initializer_list<const char *> Names) -> int {
    for (size_t I = 0; I < Ins.size(); ++I)
      for (const char *N : Names)
        if (isName(Ins[I], N))
          return (int)I;
    return -1;
  };
  const RawInstr Head = [&] {
    RawInstr R;
    R.line = Out.firstLineNo;
    return R;
  }();

  if (Raw.flags & (CoCoroutine | CoIterableCoroutine | CoAsyncGenerator))
    reject(UnsupportedKind::Async, Head);
  auto BadParams = [&](const char *What) {
    throw CompileError(
        ErrorKind::Signature, FnLoc,
        std::string("kernels and device functions cannot take ") + What,
        "name every parameter (defaults are allowed)");
  };
  if ((Raw.flags & CoVarargs) && !Raw.varargsAsParam)
    BadParams("*args");
  if (Raw.flags & CoVarkeywords)
    BadParams("**kwargs");
  if (Raw.kwOnlyArgCount > 0)
    BadParams("keyword-only parameters");
  if (Raw.flags & CoGenerator) {
    int Y = FirstNamed({"YIELD_VALUE", "YIELD_FROM", "SEND"});
    reject(UnsupportedKind::Generator, Y >= 0 ? Ins[Y] : Head);
  }

  int W = FirstNamed({"BEFORE_WITH", "SETUP_WITH"});
  if (W >= 0)
    reject(UnsupportedKind::With, Ins[W]);
  int AW = FirstNamed({"BEFORE_ASYNC_WITH", "SETUP_ASYNC_WITH"});
  if (AW >= 0)
    reject(UnsupportedKind::Async, Ins[AW]);

  // Where does exception handling start?  3.10: the first SETUP_FINALLY
  // (on the `try:` line); 3.11+: the first instruction the exception table
  // covers, or the NOPs just before it, which carry the `try:` lines.
  int Covered = -1;
  if (Minor == 10) {
    Covered = FirstNamed({"SETUP_FINALLY"});
  } else if (!Raw.exceptionTable.empty()) {
    auto Entries = parseExceptionTable(Raw.exceptionTable, FnLoc);
    int Lo = -1;
    for (const ExceptionEntry &E : Entries)
      if (Lo < 0 || E.start < Lo)
        Lo = E.start;
    for (size_t I = 0; I < Ins.size() && Lo >= 0; ++I)
      if (Ins[I].next > Lo) {
        Covered = (int)I;
        break;
      }
    if (Lo >= 0 && Covered < 0)
      malformed(FnLoc, "exception table starts past the end of the code");
  }
  if (Covered < 0)
    return;
  // 3.12+ inline comprehensions protect their iteration variable with a
  // handler; report the comprehension, not a `try`.
  int Comp = FirstNamed({"LOAD_FAST_AND_CLEAR"});
  if (Comp >= 0)
    reject(UnsupportedKind::Comprehension, Ins[Comp]);
  // (Nested `try:` lines are a run of NOPs: the first is the outermost.)
  while (Minor >= 11 && Covered > 0 && isName(Ins[Covered - 1], "NOP") &&
         Ins[Covered - 1].line > 0)
    --Covered;
  reject(UnsupportedKind::Try, Ins[Covered]);
}

// ---- jump targets
// ----------------------------------------------------------------

void Normalizer::resolveTargets() {
  for (size_t I = 0; I < Ins.size(); ++I)
    ByStart[Ins[I].start] = (int)I;
  RawTarget.assign(Ins.size(), -1);
  Targeted.assign(Ins.size(), false);
  for (size_t I = 0; I < Ins.size(); ++I) {
    const RawInstr &R = Ins[I];
    if (R.info->jump == JumpMode::None)
      continue;
    auto It = ByStart.find(R.jumpTo);
    if (R.jumpTo < 0 || It == ByStart.end())
      bad(R, "jump target " + std::to_string(R.jumpTo) +
                 " is not an instruction boundary");
    RawTarget[I] = It->second;
    if (R.info->kind != RawKind::ForIter || R.info->param == 0)
      Targeted[It->second] = true;
  }
}

// 3.12+: FOR_ITER's exhaustion target is the END_FOR (3.13: END_FOR,
// POP_TOP) that the interpreter skips after popping the iterator.  When
// nothing else reaches that cleanup it is dropped.
void Normalizer::markLoopExits() {
  Dropped.assign(Ins.size(), false);
  for (size_t I = 0; I < Ins.size(); ++I) {
    const RawInstr &R = Ins[I];
    if (R.info->kind != RawKind::ForIter || R.info->param == 0)
      continue;
    int T = RawTarget[I];
    int Skip = R.info->param;
    if (Ins[T].info->kind != RawKind::EndFor)
      bad(R, "FOR_ITER does not jump to END_FOR");
    if (T + Skip >= (int)Ins.size())
      bad(R, "loop exit runs off the end of the code");
    for (int K = 1; K < Skip; ++K)
      if (!(Ins[T + K].info->kind == RawKind::Simple &&
            Ins[T + K].info->param == (int)Op::POP_TOP))
        bad(R, "END_FOR is not followed by POP_TOP");
    auto FallsThrough = [&](int Idx) {
      if (Idx == 0)
        return true;
      if (Dropped[Idx - 1])
        return false;
      const RawOpInfo &P = *Ins[Idx - 1].info;
      switch (P.kind) {
      case RawKind::Jump:
      case RawKind::ReturnConst:
        return false;
      case RawKind::Simple:
        return P.param != (int)Op::RETURN_VALUE;
      case RawKind::WithArg:
        return P.param != (int)Op::RAISE;
      default:
        return true;
      }
    };
    for (int K = 0; K < Skip; ++K)
      if (!Targeted[T + K] && !FallsThrough(T + K))
        Dropped[T + K] = true;
  }
}

// A tuple display of more than 30 elements is built in a list:
//   BUILD_LIST 0; (<element>; LIST_APPEND 1)...; LIST_TO_TUPLE
// (3.12+: CALL_INTRINSIC_1 INTRINSIC_LIST_TO_TUPLE).  When every element is
// straight-line code, the list steps are dropped and the conversion becomes
// BUILD_TUPLE n, the instruction shorter displays use:
//   BUILD_LIST 0; LOAD_FAST a; LIST_APPEND 1; ...; LIST_TO_TUPLE
//     -> LOAD_FAST a; ...; BUILD_TUPLE n
// Anything else (a jump, a nested list, `*t`) stays a list display.
int Normalizer::longTupleDisplayAt(size_t I) const {
  if (!isName(Ins[I], "BUILD_LIST") || Ins[I].arg != 0)
    return -1;
  for (size_t K = I + 1; K < Ins.size(); ++K) {
    const RawInstr &R = Ins[K];
    if (Targeted[K] || !R.opname)
      return -1;
    RawKind Kind = R.info->kind;
    if (Kind == RawKind::Jump || Kind == RawKind::CondJump ||
        Kind == RawKind::ForIter)
      return -1;
    const std::string &N = *R.opname;
    if (N == "LIST_APPEND") {
      if (R.arg != 1)
        return -1;
      continue;
    }
    bool Intrinsic = Kind == RawKind::CallIntrinsic1 &&
                     R.arg < Raw.opcodes.intrinsic1.size() &&
                     Raw.opcodes.intrinsic1[R.arg] == "INTRINSIC_LIST_TO_TUPLE";
    if (N == "LIST_TO_TUPLE" || Intrinsic)
      return int(K);
    if (N == "BUILD_LIST" || N == "LIST_EXTEND" || Kind == RawKind::Unsupported)
      return -1;
  }
  return -1;
}

void Normalizer::markLongTupleDisplays() {
  TupleOfList.assign(Ins.size(), 0);
  for (size_t I = 0; I < Ins.size(); ++I) {
    int End = longTupleDisplayAt(I);
    if (End < 0)
      continue;
    int N = 0;
    for (int K = int(I) + 1; K < End; ++K)
      N += isName(Ins[K], "LIST_APPEND");
    if (N == 0)
      continue;
    Dropped[I] = true;
    for (int K = int(I) + 1; K < End; ++K)
      if (isName(Ins[K], "LIST_APPEND"))
        Dropped[K] = true;
    TupleOfList[End] = N;
    I = size_t(End);
  }
}

// ---- operands
// ------------------------------------------------------------------------

int32_t Normalizer::kwnamesFrom(const RawInstr &R, const ConstValue &C) {
  if (C.kind != ConstValue::Kind::Tuple)
    bad(R, "keyword names are not a tuple");
  std::vector<std::string> Names;
  for (const ConstValue &E : C.elems) {
    if (E.kind != ConstValue::Kind::Str)
      bad(R, "keyword name is not a string");
    Names.push_back(E.text);
  }
  auto It = std::find(Out.kwnames.begin(), Out.kwnames.end(), Names);
  if (It != Out.kwnames.end())
    return (int32_t)(It - Out.kwnames.begin());
  Out.kwnames.push_back(std::move(Names));
  return (int32_t)Out.kwnames.size() - 1;
}

// The neutral locals: with freevarsAsParams the free variables first (they
// are the leading parameters), then co_varnames, then the cell variables
// that are not parameters.  A cell is an ordinary local: the kernel
// language has no cells, a nested function gets the values it captures
// where it is defined (MAKE_FUNCTION).
void Normalizer::setLocalLayout() {
  Out.varnames.clear();
  if (Raw.freevarsAsParams) {
    Shift = (int)Raw.freevars.size();
    Out.varnames = Raw.freevars;
    Out.argCount += Shift;
  }
  Out.varnames.insert(Out.varnames.end(), Raw.varnames.begin(),
                      Raw.varnames.end());
  for (int K = 0; K < Shift; ++K)
    CellLocal[Raw.freevars[K]] = K;
  for (const std::string &C : Raw.cellvars) {
    auto It = std::find(Raw.varnames.begin(), Raw.varnames.end(), C);
    if (It != Raw.varnames.end()) {
      CellLocal[C] = Shift + (int)(It - Raw.varnames.begin());
      continue;
    }
    CellLocal[C] = (int)Out.varnames.size();
    Out.varnames.push_back(C);
  }
}

// MAKE_FUNCTION's code object is the nearest LOAD_CONST of a code constant
// before it (3.10 puts the qualname between them; 3.13 follows with
// SET_FUNCTION_ATTRIBUTE): its index in consts, or -1.
int Normalizer::codeConstBefore(size_t I) const {
  for (size_t Back = 1; Back <= 4 && Back <= I; ++Back) {
    const RawInstr &P = Ins[I - Back];
    if (P.info->kind != RawKind::LoadConst || P.arg >= Raw.consts.size())
      continue;
    if (Raw.consts[P.arg].kind == ConstValue::Kind::Code)
      return (int)P.arg;
  }
  return -1;
}

UnsupportedKind Normalizer::functionKind(size_t I) const {
  int C = codeConstBefore(I);
  return C >= 0 && isComprehensionName(Raw.consts[C].text)
             ? UnsupportedKind::Comprehension
             : UnsupportedKind::NestedFunction;
}

// A nested function or lambda: MAKE_FUNCTION, then one
// SET_FUNCTION_ATTRIBUTE per attribute (3.13's own form; 3.10-3.12 pass
// the attributes as flags, the closure tuple nearest the code).  3.10/3.11
// comprehensions are nested functions too: refused as comprehensions.
void Normalizer::makeFunction(size_t I) {
  const RawInstr &R = Ins[I];
  int Code = codeConstBefore(I);
  if (Code < 0 || functionKind(I) == UnsupportedKind::Comprehension) {
    addUnsupported(functionKind(I), R);
    return;
  }
  int Form = R.info->param;
  if (Form == 0)
    add(Op::POP_TOP, R); // 3.10: the qualname
  add(Op::MAKE_FUNCTION, R, Code);
  if (Form == 2)
    return;
  for (uint32_t Flag : {8u, 4u, 2u, 1u})
    if (R.arg & Flag) {
      if (Flag == 2)
        addUnsupported(UnsupportedKind::NestedDefaults, R);
      else
        add(Op::SET_FUNCTION_ATTRIBUTE, R, (int32_t)Flag);
    }
}

// 3.11+ LOAD_FAST indexes "localsplus"; varnames is its prefix.  A cell or
// free variable beyond it is loaded to pack a nested function's closure
// (3.13 turned LOAD_CLOSURE into LOAD_FAST).
void Normalizer::loadFast(const RawInstr &R, uint32_t Idx) {
  if (Idx < Raw.varnames.size()) {
    const std::string &Name = Raw.varnames[Idx];
    if (Minor >= 13 && CellLocal.count(Name))
      Captured.push_back(Name);
    add(Op::LOAD_FAST, R, (int32_t)Idx + Shift);
    return;
  }
  if (Minor == 10 || Idx >= LocalsPlus.size())
    bad(R, "local index " + std::to_string(Idx) + " out of range");
  loadCell(R, LocalsPlus[Idx], true);
}

void Normalizer::storeFast(const RawInstr &R, uint32_t Idx) {
  if (Idx >= Raw.varnames.size())
    bad(R, "local index " + std::to_string(Idx) + " out of range");
  add(Op::STORE_FAST, R, (int32_t)Idx + Shift);
}

// A cell or free variable read (LOAD_DEREF), or loaded to be captured by a
// nested function (LOAD_CLOSURE): a local, or the free variable of a
// kernel defined inside a Python function (a compile-time value).
void Normalizer::loadCell(const RawInstr &R, const std::string &Name,
                          bool Capture) {
  auto It = CellLocal.find(Name);
  if (It != CellLocal.end()) {
    if (Capture)
      Captured.push_back(Name);
    add(Op::LOAD_FAST, R, It->second);
    return;
  }
  auto D = std::find(Out.derefNames.begin(), Out.derefNames.end(), Name);
  if (D == Out.derefNames.end())
    bad(R, "'" + Name + "' is neither a cell nor a free variable");
  add(Op::LOAD_DEREF, R, (int32_t)(D - Out.derefNames.begin()));
}

const std::string &Normalizer::derefName(const RawInstr &R,
                                         bool LocalsPlusIndex) const {
  uint32_t Idx = R.arg;
  if (!LocalsPlusIndex) { // 3.10: cellvars + freevars
    if (Idx < Raw.cellvars.size())
      return Raw.cellvars[Idx];
    Idx -= (uint32_t)Raw.cellvars.size();
    if (Idx < Raw.freevars.size())
      return Raw.freevars[Idx];
    bad(R, "closure index " + std::to_string(R.arg) + " out of range");
  }
  if (Idx >= LocalsPlus.size())
    bad(R, "closure index " + std::to_string(R.arg) + " out of range");
  return LocalsPlus[Idx];
}

// 3.10 CALL_FUNCTION_KW / 3.13 CALL_KW take the keyword-name tuple from a
// LOAD_CONST emitted just before; fold it into the CALL.
void Normalizer::foldPreviousKwConst(size_t I, Instr &Call) {
  const RawInstr &R = Ins[I];
  if (I == 0 || Ins[I - 1].info->kind != RawKind::LoadConst ||
      Out.instrs.size() < 2 ||
      Out.instrs[Out.instrs.size() - 2].op != Op::LOAD_CONST ||
      Out.instrs[Out.instrs.size() - 2].offset != Ins[I - 1].offset)
    bad(R, "keyword call is not preceded by its LOAD_CONST of names");
  Call.aux = kwnamesFrom(R, constAt(Ins[I - 1], Ins[I - 1].arg));
  Out.instrs.erase(Out.instrs.end() - 2);
  FoldedAway[I - 1] = true;
}

// `f(**d)` starts with an empty BUILD_MAP that DICT_MERGE fills before
// CALL_FUNCTION_EX: report the call, not a dict display.
bool Normalizer::startsKwargsCall(size_t I) const {
  if (!isName(Ins[I], "BUILD_MAP") || Ins[I].arg != 0)
    return false;
  for (size_t K = I + 1; K < Ins.size(); ++K) {
    if (isName(Ins[K], "DICT_MERGE"))
      return true;
    if (isName(Ins[K], "CALL_FUNCTION_EX") || isName(Ins[K], "BUILD_MAP"))
      return false;
  }
  return false;
}

// `f(a, *t)` collects its arguments in a list (BUILD_LIST, LIST_EXTEND),
// made a tuple just before CALL_FUNCTION_EX: report the call, not a list
// display.
bool Normalizer::startsStarListCall(size_t I) const {
  if (!isName(Ins[I], "BUILD_LIST"))
    return false;
  for (size_t K = I + 1; K < Ins.size(); ++K) {
    if (!Ins[K].opname)
      return false;
    const std::string &N = *Ins[K].opname;
    if (N == "CALL_FUNCTION_EX")
      return isName(Ins[K - 1], "LIST_TO_TUPLE") ||
             isName(Ins[K - 1], "CALL_INTRINSIC_1");
    if (N == "BUILD_LIST" || N == "BUILD_MAP" || N.rfind("STORE_", 0) == 0 ||
        N.rfind("RETURN_", 0) == 0 || N.find("JUMP") != std::string::npos)
      return false;
  }
  return false;
}

// A dict built for a nested function's keyword-only defaults (a
// MAKE_FUNCTION with flag 2, or 3.13's SET_FUNCTION_ATTRIBUTE 2, follows
// within the closure tuple, the annotations and the code): report the
// function, not a dict display.
bool Normalizer::buildsKwDefaults(size_t I) const {
  for (size_t K = I + 1; K < Ins.size() && K <= I + 64; ++K) {
    const RawInstr &R = Ins[K];
    if (R.info->kind == RawKind::MakeFunction && R.info->param != 2)
      return (R.arg & 2) != 0;
    if (R.info->kind == RawKind::SetFunctionAttribute && R.arg == 2)
      return true;
    if (R.info->kind == RawKind::Jump || R.info->kind == RawKind::CondJump ||
        R.info->kind == RawKind::StoreFast || R.info->kind == RawKind::Call ||
        R.info->kind == RawKind::CallLegacy)
      return false;
  }
  return false;
}

// ---- one raw instruction
// ------------------------------------------------------------

void Normalizer::emit(size_t I) {
  const RawInstr &R = Ins[I];
  const RawOpInfo &S = *R.info;
  const uint32_t A = R.arg;
  if (Dropped[I])
    return;
  if (TupleOfList[I]) {
    add(Op::BUILD_TUPLE, R, TupleOfList[I]);
    return;
  }
  switch (S.kind) {
  case RawKind::Drop:
  case RawKind::ExtendedArg:
    return;
  case RawKind::Simple:
    add((Op)S.param, R);
    return;
  case RawKind::WithArg: {
    Op O = (Op)S.param;
    if ((O == Op::COPY && A < 1) || (O == Op::SWAP && A < 2) ||
        (O == Op::RAISE && A > 2) || (O == Op::BUILD_SLICE && A != 2 && A != 3))
      bad(R, "bad argument " + std::to_string(A));
    if (O == Op::IS_OP || O == Op::CONTAINS_OP)
      add(O, R, (int32_t)(A & 1));
    else
      add(O, R, (int32_t)A);
    return;
  }
  case RawKind::RotN: {
    // ROT_n moves TOS down to depth n: SWAP n, SWAP n-1, ..., SWAP 2.
    uint32_t N = S.param ? (uint32_t)S.param : A;
    if (N > 1 << 16)
      bad(R, "bad argument " + std::to_string(A));
    for (uint32_t K = N; K >= 2; --K)
      add(Op::SWAP, R, (int32_t)K);
    return;
  }
  case RawKind::Dup:
    for (int K = 0; K < S.param; ++K)
      add(Op::COPY, R, S.param);
    return;
  case RawKind::LoadConst:
    constAt(R, A);
    add(Op::LOAD_CONST, R, (int32_t)A);
    return;
  case RawKind::ReturnConst:
    constAt(R, A);
    add(Op::LOAD_CONST, R, (int32_t)A);
    add(Op::RETURN_VALUE, R);
    return;
  case RawKind::LoadFast:
    loadFast(R, A);
    return;
  case RawKind::LoadFastLoadFast:
    loadFast(R, A >> 4);
    loadFast(R, A & 15);
    return;
  case RawKind::StoreFastLoadFast:
    storeFast(R, A >> 4);
    loadFast(R, A & 15);
    return;
  case RawKind::StoreFastStoreFast:
    storeFast(R, A >> 4);
    storeFast(R, A & 15);
    return;
  case RawKind::StoreFast:
    storeFast(R, A);
    return;
  case RawKind::LoadDeref:
    loadCell(R, derefName(R, S.param == 1), false);
    return;
  case RawKind::StoreDeref: {
    // Writing a free variable is `nonlocal` assignment.  A cell a nested
    // function has captured already keeps the value it had there.
    const std::string &Name = derefName(R, S.param == 1);
    bool Free = std::find(Raw.freevars.begin(), Raw.freevars.end(), Name) !=
                Raw.freevars.end();
    if (Free)
      addUnsupported(UnsupportedKind::Closure, R);
    else if (std::find(Captured.begin(), Captured.end(), Name) !=
             Captured.end())
      addUnsupported(UnsupportedKind::LateCapture, R);
    else
      add(Op::STORE_FAST, R, CellLocal.at(Name));
    return;
  }
  case RawKind::LoadClosure:
    loadCell(R, derefName(R, Minor >= 11), true);
    return;
  case RawKind::LoadGlobal: {
    if (S.param == 0) {
      add(Op::LOAD_GLOBAL, R, nameIdx(R, A));
      return;
    }
    int32_t N = nameIdx(R, A >> 1);
    bool Null = A & 1;
    if (Null && S.param == 1)
      add(Op::PUSH_NULL, R);
    add(Op::LOAD_GLOBAL, R, N);
    if (Null && S.param == 2)
      add(Op::PUSH_NULL, R);
    return;
  }
  case RawKind::LoadAttr:
    if (S.param == 0)
      add(Op::LOAD_ATTR, R, nameIdx(R, A));
    else
      add((A & 1) ? Op::LOAD_METHOD : Op::LOAD_ATTR, R, nameIdx(R, A >> 1));
    return;
  case RawKind::LoadMethod:
    add(Op::LOAD_METHOD, R, nameIdx(R, A));
    return;
  case RawKind::StoreAttr:
    add(Op::STORE_ATTR, R, nameIdx(R, A));
    return;
  case RawKind::BinaryLegacy:
    add(Op::BINARY_OP, R, S.param & 0xff).flags =
        (S.param & 0x100) ? flag::InPlace : 0;
    return;
  case RawKind::BinaryOp: {
    const auto &Ops = Raw.opcodes.binaryOps;
    if (A >= Ops.size())
      bad(R, "unknown binary operator " + std::to_string(A));
    std::string Sym = Ops[A];
    bool InPlace = Sym.size() >= 2 && Sym.back() == '=';
    if (InPlace)
      Sym.pop_back();
    for (int K = 0; K <= (int)BinOpKind::MatMul; ++K)
      if (Sym == binOpSymbol((BinOpKind)K)) {
        add(Op::BINARY_OP, R, K).flags = InPlace ? flag::InPlace : 0;
        return;
      }
    addUnsupported(UnsupportedKind::Other, R);
    return;
  }
  case RawKind::CompareOp: {
    uint32_t Idx = A >> S.param;
    const auto &Cmp = Raw.opcodes.cmpOps;
    if (Idx < Cmp.size())
      for (int K = 0; K <= (int)CmpKind::Ge; ++K)
        if (Cmp[Idx] == cmpSymbol((CmpKind)K)) {
          add(Op::COMPARE_OP, R, K);
          return;
        }
    bad(R, "unknown comparison " + std::to_string(A));
  }
  case RawKind::BinarySlice:
    add(Op::BUILD_SLICE, R, 2);
    add(Op::BINARY_SUBSCR, R);
    return;
  case RawKind::StoreSlice:
    add(Op::BUILD_SLICE, R, 2);
    add(Op::STORE_SUBSCR, R);
    return;
  case RawKind::CallIntrinsic1: {
    const auto &Names = Raw.opcodes.intrinsic1;
    std::string N = A < Names.size() ? Names[A] : "";
    if (N == "INTRINSIC_UNARY_POSITIVE")
      add(Op::UNARY_POSITIVE, R);
    else if (N == "INTRINSIC_LIST_TO_TUPLE")
      addUnsupported(UnsupportedKind::ListDisplay, R);
    else if (N == "INTRINSIC_STOPITERATION_ERROR")
      addUnsupported(UnsupportedKind::Generator, R);
    else if (N == "INTRINSIC_ASYNC_GEN_WRAP")
      addUnsupported(UnsupportedKind::Async, R);
    else if (N == "INTRINSIC_IMPORT_STAR")
      addUnsupported(UnsupportedKind::Import, R);
    else
      addUnsupported(UnsupportedKind::Other, R);
    return;
  }
  case RawKind::CallLegacy:
    add(Op::CALL, R, (int32_t)A).flags = S.param ? flag::CallPair : 0;
    return;
  case RawKind::CallLegacyKw:
  case RawKind::CallKw: {
    bool Pair = S.kind == RawKind::CallKw;
    add(Op::CALL, R, (int32_t)A).flags = Pair ? flag::CallPair : 0;
    foldPreviousKwConst(I, Out.instrs.back());
    return;
  }
  case RawKind::Call: {
    Instr &C = add(Op::CALL, R, (int32_t)A);
    C.flags = flag::CallPair;
    C.aux = PendingKw;
    PendingKw = -1;
    return;
  }
  case RawKind::CallEx:
    if (A & 1) { // a **kwargs dict as well
      addUnsupported(UnsupportedKind::StarArgs, R);
      return;
    }
    add(Op::CALL_EX, R).flags = S.param ? flag::CallPair : 0;
    return;
  case RawKind::KwNames:
    if (PendingKw >= 0)
      bad(R, "two KW_NAMES without a CALL between them");
    PendingKw = kwnamesFrom(R, constAt(R, A));
    FoldedAway[I] = true;
    return;
  case RawKind::Jump:
    addJump(Op::JUMP, R, RawTarget[I]);
    return;
  case RawKind::CondJump:
    addJump((Op)S.param, R, RawTarget[I]);
    return;
  case RawKind::ForIter:
    // Exhaustion continues after the loop cleanup the interpreter skips.
    addJump(Op::FOR_ITER, R, RawTarget[I] + S.param);
    return;
  case RawKind::EndFor:
    // Only reached by fall-through or a jump in unusual code: it pops the
    // iterator's last value (3.13) and the iterator (3.12).
    for (int K = 0; K < S.param; ++K)
      add(Op::POP_TOP, R);
    return;
  case RawKind::MakeFunction:
    makeFunction(I);
    return;
  case RawKind::SetFunctionAttribute:
    if (R.arg == 2)
      addUnsupported(UnsupportedKind::NestedDefaults, R);
    else
      add(Op::SET_FUNCTION_ATTRIBUTE, R, (int32_t)R.arg);
    return;
  case RawKind::Unsupported: {
    auto K = (UnsupportedKind)S.param;
    if (startsKwargsCall(I) || startsStarListCall(I))
      K = UnsupportedKind::StarArgs;
    else if (K == UnsupportedKind::DictDisplay && buildsKwDefaults(I))
      K = UnsupportedKind::NestedDefaults;
    addUnsupported(K, R);
    return;
  }
  }
}

void Normalizer::run() {
  Out.file = std::make_shared<const std::string>(Raw.filename);
  Out.name = Raw.name;
  Out.qualname = Raw.qualname.empty() ? Raw.name : Raw.qualname;
  Out.firstLineNo = Raw.defLine > 0 ? Raw.defLine : Raw.firstLineNo;
  Out.argCount = Raw.argCount;
  // *args (co_varnames[argCount] when there are no keyword-only
  // parameters) as one more parameter: the tuple the caller packs.
  if (Raw.varargsAsParam && (Raw.flags & CoVarargs) && Raw.kwOnlyArgCount == 0)
    ++Out.argCount;
  FnLoc = SourceLoc{Out.file, Out.firstLineNo, -1, -1};
  if (Raw.pyMajor != 3 || Minor < 10 || Minor > 13)
    throw CompileError(ErrorKind::Bytecode, FnLoc,
                       "unsupported Python version " +
                           std::to_string(Raw.pyMajor) + "." +
                           std::to_string(Minor),
                       "pycuda_jit supports CPython 3.10 to 3.13");

  Out.consts = Raw.consts;
  Out.names = Raw.names;
  setLocalLayout();
  Out.derefNames = Raw.cellvars;
  Out.derefNames.insert(Out.derefNames.end(), Raw.freevars.begin(),
                        Raw.freevars.end());
  if (Minor >= 11) {
    LocalsPlus = Raw.varnames;
    for (const std::string &C : Raw.cellvars)
      if (std::find(Raw.varnames.begin(), Raw.varnames.end(), C) ==
          Raw.varnames.end())
        LocalsPlus.push_back(C);
    LocalsPlus.insert(LocalsPlus.end(), Raw.freevars.begin(),
                      Raw.freevars.end());
  }

  Dispatch D = buildDispatch(Raw.opcodes, Minor);
  Ins = scanRaw(Raw, D, FnLoc);
  rejectWholeFunction();
  resolveTargets();
  markLoopExits();
  markLongTupleDisplays();

  FoldedAway.assign(Ins.size(), false);
  FirstNeutral.assign(Ins.size() + 1, 0);
  for (size_t I = 0; I < Ins.size(); ++I) {
    FirstNeutral[I] = (int)Out.instrs.size();
    emit(I);
    if (PendingKw >= 0 && !FoldedAway[I] && Ins[I].info->kind != RawKind::Drop)
      bad(Ins[I], "KW_NAMES is not followed by CALL");
  }
  FirstNeutral[Ins.size()] = (int)Out.instrs.size();

  if (Out.instrs.empty())
    malformed(FnLoc, "the code has no instructions");
  for (const Fixup &F : Fixups) {
    Instr &X = Out.instrs[F.neutral];
    SourceLoc Loc = Out.loc(X);
    if (FoldedAway[F.raw])
      malformed(Loc, "a jump lands between a call and its keyword names");
    if (FirstNeutral[F.raw] >= (int)Out.instrs.size())
      malformed(Loc, "a jump runs off the end of the code");
    X.target = FirstNeutral[F.raw];
  }
  const Instr &Last = Out.instrs.back();
  if (!Last.isTerminator() && Last.op != Op::UNSUPPORTED)
    malformed(Out.loc(Last), "the code runs off its end");
}

} // namespace

DecodedCode decode(const RawCode &Raw) {
  DecodedCode Out;
  Normalizer(Raw, Out).run();
  return Out;
}

} // namespace pcj::bc
