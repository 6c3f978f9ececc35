// Tests for stage 1, the bytecode decoder (compiler/bytecode/Decoder.cpp),
// against fixtures recorded from real CPython 3.10-3.13 interpreters
// (tests/unit/fixtures/gen_bytecode_fixtures.py).  Every check runs for every
// version:
//   BytecodeSample.*   per (version, sample function): decodes or is rejected
//                      as expected; jump targets, lines, names, constants and
//                      operators agree with `dis`; the neutral stack effects
//                      are consistent over the control-flow graph;
//   BytecodeVersion.*  per version: specific normalisation rules;
//   BytecodeMalformed.* per version: corrupted input throws BytecodeError;
//   BytecodeTables.*   the opcode tables themselves.
#include "bytecode/Decoder.h"
#include "support/Diagnostics.h"
#include "support/RawCodeFixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace pcj::bc {
namespace {

using test::BytecodeFixture;
using test::OracleInstr;

const std::vector<std::string> kVersions = {"3.10", "3.11", "3.12", "3.13"};

int minorOf(const std::string &V) { return std::stoi(V.substr(2)); }

std::string paramName(const std::string &V) {
  std::string S = "py" + V;
  std::replace(S.begin(), S.end(), '.', '_');
  return S;
}

const char *kindName(UnsupportedKind K) {
  switch (K) {
#define X(Name, Msg, Hint)                                                     \
  case UnsupportedKind::Name:                                                  \
    return #Name;
    PCJ_UNSUPPORTED_KINDS(X)
#undef X
  }
  return "?";
}

std::optional<UnsupportedKind> kindFromMessage(const std::string &Msg) {
  for (int K = 0; K <= (int)UnsupportedKind::Other; ++K)
    if (Msg == unsupportedMessage((UnsupportedKind)K))
      return (UnsupportedKind)K;
  return std::nullopt;
}

// ---- fixture cache
// -----------------------------------------------------------

const BytecodeFixture &fixture(const std::string &Version,
                               const std::string &Name) {
  static std::map<std::string, BytecodeFixture> Cache;
  std::string Key = Version + "/" + Name;
  auto It = Cache.find(Key);
  if (It == Cache.end())
    It = Cache.emplace(Key, test::loadBytecodeFixture(Version, Name)).first;
  return It->second;
}

DecodedCode decodeFixture(const std::string &Version, const std::string &Name) {
  return decode(fixture(Version, Name).raw);
}

const OracleInstr *oracleAt(const BytecodeFixture &F, int Offset) {
  for (const OracleInstr &O : F.oracle)
    if (O.offset == Offset)
      return &O;
  return nullptr;
}

// Index of the first neutral instruction at or after byte offset `Off`.
int firstAtOrAfter(const DecodedCode &C, int Off) {
  for (size_t I = 0; I < C.instrs.size(); ++I)
    if (C.instrs[I].offset >= Off)
      return (int)I;
  return (int)C.instrs.size();
}

std::vector<const Instr *> atOffset(const DecodedCode &C, int Off) {
  std::vector<const Instr *> Out;
  for (const Instr &I : C.instrs)
    if (I.offset == Off)
      Out.push_back(&I);
  return Out;
}

bool hasUnsupported(const DecodedCode &C) {
  return std::any_of(C.instrs.begin(), C.instrs.end(),
                     [](const Instr &I) { return I.op == Op::UNSUPPORTED; });
}

// ---- neutral stack effects (Ops.def)
// ------------------------------------------

struct Effect {
  int pops = 0, pushes = 0;
};

// Effect of `I` on the path that falls through (Taken = false) or jumps.
std::optional<Effect> stackEffect(const Instr &I, bool Taken) {
  switch (I.op) {
  case Op::POP_TOP:
    return Effect{1, 0};
  case Op::COPY:
    return Effect{I.arg, I.arg + 1};
  case Op::SWAP:
    return Effect{I.arg, I.arg};
  case Op::PUSH_NULL:
  case Op::LOAD_CONST:
  case Op::LOAD_FAST:
  case Op::LOAD_DEREF:
  case Op::LOAD_GLOBAL:
  case Op::LOAD_ASSERTION_ERROR:
    return Effect{0, 1};
  case Op::STORE_FAST:
    return Effect{1, 0};
  case Op::DELETE_FAST:
    return Effect{0, 0};
  case Op::LOAD_ATTR:
    return Effect{1, 1};
  case Op::LOAD_METHOD:
    return Effect{1, 2};
  case Op::STORE_ATTR:
    return Effect{2, 0};
  case Op::BINARY_OP:
  case Op::COMPARE_OP:
  case Op::IS_OP:
  case Op::CONTAINS_OP:
  case Op::BINARY_SUBSCR:
    return Effect{2, 1};
  case Op::UNARY_NEGATIVE:
  case Op::UNARY_POSITIVE:
  case Op::UNARY_NOT:
  case Op::UNARY_INVERT:
  case Op::TO_BOOL:
  case Op::GET_ITER:
    return Effect{1, 1};
  case Op::BUILD_TUPLE:
  case Op::BUILD_SLICE:
    return Effect{I.arg, 1};
  case Op::STORE_SUBSCR:
    return Effect{3, 0};
  case Op::UNPACK_SEQUENCE:
    return Effect{1, I.arg};
  case Op::CALL:
    return Effect{I.arg + ((I.flags & flag::CallPair) ? 2 : 1), 1};
  case Op::CALL_EX: // the callable and one tuple
    return Effect{1 + ((I.flags & flag::CallPair) ? 2 : 1), 1};
  case Op::MAKE_FUNCTION:
    return Effect{1, 1};
  case Op::SET_FUNCTION_ATTRIBUTE:
    return Effect{2, 1};
  case Op::JUMP:
    return Effect{0, 0};
  case Op::POP_JUMP_IF_FALSE:
  case Op::POP_JUMP_IF_TRUE:
  case Op::POP_JUMP_IF_NONE:
  case Op::POP_JUMP_IF_NOT_NONE:
    return Effect{1, 0};
  case Op::JUMP_IF_FALSE_OR_POP:
  case Op::JUMP_IF_TRUE_OR_POP:
    return Taken ? Effect{1, 1} : Effect{1, 0};
  case Op::FOR_ITER:
    return Taken ? Effect{1, 0} : Effect{1, 2};
  case Op::RETURN_VALUE:
    return Effect{1, 0};
  case Op::RAISE:
    return Effect{I.arg, 0};
  case Op::UNSUPPORTED:
    return std::nullopt;
  }
  return std::nullopt;
}

// Walks the CFG from instruction 0 at depth 0; returns "" when depths agree
// at every join, never go negative, are 1 at every RETURN_VALUE and stay
// within co_stacksize; else a description of the first problem.
std::string checkStackDepths(const DecodedCode &C, int StackSize,
                             int *MaxDepth = nullptr) {
  std::vector<int> Depth(C.instrs.size(), -1);
  std::vector<int> Work = {0};
  Depth[0] = 0;
  int Max = 0;
  auto Flow = [&](int From, int To, int D) -> std::string {
    if (To < 0 || To >= (int)C.instrs.size())
      return "edge " + std::to_string(From) + " -> " + std::to_string(To) +
             " leaves the code";
    if (Depth[To] < 0) {
      Depth[To] = D;
      Work.push_back(To);
    } else if (Depth[To] != D) {
      return "depth mismatch at " + std::to_string(To) + ": " +
             std::to_string(Depth[To]) + " vs " + std::to_string(D) +
             " (from " + std::to_string(From) + ")";
    }
    return "";
  };
  while (!Work.empty()) {
    int I = Work.back();
    Work.pop_back();
    const Instr &X = C.instrs[I];
    int D = Depth[I];
    for (bool Taken : {false, true}) {
      if (Taken && !X.isJump())
        continue;
      if (!Taken && X.op == Op::JUMP)
        continue;
      auto E = stackEffect(X, Taken);
      if (!E)
        return "unsupported instruction at " + std::to_string(I);
      if (E->pops > D)
        return "stack underflow at " + std::to_string(I) + " (" + opName(X.op) +
               ", depth " + std::to_string(D) + ")";
      int After = D - E->pops + E->pushes;
      Max = std::max(Max, std::max(After, D));
      if (X.op == Op::RETURN_VALUE) {
        if (D != 1)
          return "RETURN_VALUE at " + std::to_string(I) + " with depth " +
                 std::to_string(D);
        continue;
      }
      if (X.op == Op::RAISE)
        continue;
      std::string Err = Flow(I, Taken ? X.target : I + 1, After);
      if (!Err.empty())
        return Err;
    }
  }
  if (Max > StackSize)
    return "max depth " + std::to_string(Max) + " exceeds co_stacksize " +
           std::to_string(StackSize);
  if (MaxDepth)
    *MaxDepth = Max;
  return "";
}

// ---- per (version, sample)
// --------------------------------------------------------

struct SampleParam {
  std::string version, name;
};
void PrintTo(const SampleParam &P, std::ostream *OS) {
  *OS << P.version << "/" << P.name;
}

std::vector<SampleParam> allSamples() {
  std::vector<SampleParam> Out;
  for (const std::string &V : kVersions)
    for (const std::string &N : test::bytecodeFixtureNames(V))
      Out.push_back({V, N});
  return Out;
}

class BytecodeSample : public ::testing::TestWithParam<SampleParam> {
protected:
  const BytecodeFixture &fx() const {
    return fixture(GetParam().version, GetParam().name);
  }
  // Decodes, or returns nullopt when the function is rejected as a whole.
  std::optional<DecodedCode> tryDecode() const {
    try {
      return decode(fx().raw);
    } catch (const CompileError &E) {
      if (E.kind() != ErrorKind::Unsupported)
        throw;
      return std::nullopt;
    }
  }
};

TEST_P(BytecodeSample, DecodesOrRejectsAsExpected) {
  const BytecodeFixture &F = fx();
  if (F.expectOk) {
    DecodedCode C = decode(F.raw);
    EXPECT_FALSE(hasUnsupported(C)) << C.dump();
    return;
  }
  // An unsupported construct is either rejected for the whole function or
  // shows up as an UNSUPPORTED instruction; both at the marked line.
  try {
    DecodedCode C = decode(F.raw);
    bool Found = false;
    std::string Seen;
    for (const Instr &I : C.instrs) {
      if (I.op != Op::UNSUPPORTED)
        continue;
      ASSERT_GE(I.aux, 0);
      ASSERT_LT((size_t)I.aux, C.opnames.size());
      Seen += std::string(" ") + kindName((UnsupportedKind)I.arg) + "@" +
              std::to_string(I.line) + "(" + C.opnames[I.aux] + ")";
      if (kindName((UnsupportedKind)I.arg) == F.expectKind &&
          I.line == F.expectLine)
        Found = true;
    }
    EXPECT_TRUE(Found) << "expected " << F.expectKind << "@" << F.expectLine
                       << ", saw" << Seen << "\n"
                       << C.dump();
  } catch (const CompileError &E) {
    ASSERT_EQ(E.kind(), ErrorKind::Unsupported) << E.what();
    auto K = kindFromMessage(E.message());
    ASSERT_TRUE(K.has_value()) << E.message();
    EXPECT_EQ(kindName(*K), F.expectKind) << E.what();
    EXPECT_EQ(E.loc().line, F.expectLine) << E.what();
    EXPECT_EQ(E.loc().fileName(), F.raw.filename);
    EXPECT_EQ(E.hint(), unsupportedHint(*K));
  }
}

TEST_P(BytecodeSample, JumpTargetsMatchDis) {
  const BytecodeFixture &F = fx();
  auto C = tryDecode();
  if (!C)
    GTEST_SKIP() << "rejected as a whole";
  int Minor = minorOf(F.version);
  for (size_t I = 0; I < C->instrs.size(); ++I) {
    const Instr &X = C->instrs[I];
    if (!X.isJump()) {
      EXPECT_EQ(X.target, -1) << I;
      continue;
    }
    const OracleInstr *O = oracleAt(F, X.offset);
    ASSERT_NE(O, nullptr) << "no dis instruction at offset " << X.offset;
    ASSERT_GE(O->target, 0) << O->opname << " has no jump target in dis";
    int Expect = O->target;
    if (X.op == Op::FOR_ITER && Minor >= 12) {
      // dis shows END_FOR as the target; exhaustion resumes after END_FOR
      // (3.12) or END_FOR + POP_TOP (3.13).
      auto It = std::find_if(
          F.oracle.begin(), F.oracle.end(),
          [&](const OracleInstr &Q) { return Q.offset == O->target; });
      ASSERT_NE(It, F.oracle.end());
      EXPECT_EQ(It->opname, "END_FOR");
      int Skip = Minor == 12 ? 1 : 2;
      if (Minor == 13) {
        EXPECT_EQ((It + 1)->opname, "POP_TOP");
      }
      Expect = (It + Skip)->offset;
    }
    EXPECT_EQ(X.target, firstAtOrAfter(*C, Expect))
        << "instr " << I << " (" << O->opname << " at " << O->offset << ")\n"
        << C->dump();
  }
  // Every jump dis knows of is a neutral jump, unless it belongs to an
  // unsupported construct.
  if (!hasUnsupported(*C))
    for (const OracleInstr &O : F.oracle) {
      if (O.target < 0)
        continue;
      auto At = atOffset(*C, O.offset);
      EXPECT_TRUE(std::any_of(At.begin(), At.end(),
                              [](const Instr *X) { return X->isJump(); }))
          << O.opname << " at " << O.offset;
    }
}

TEST_P(BytecodeSample, LinesAndOffsetsMatchDis) {
  const BytecodeFixture &F = fx();
  auto C = tryDecode();
  if (!C)
    GTEST_SKIP() << "rejected as a whole";
  int Prev = -1;
  for (size_t I = 0; I < C->instrs.size(); ++I) {
    const Instr &X = C->instrs[I];
    EXPECT_GE(X.offset, Prev) << "offsets go backwards at " << I;
    Prev = X.offset;
    const OracleInstr *O = oracleAt(F, X.offset);
    ASSERT_NE(O, nullptr) << "offset " << X.offset
                          << " is not an instruction in dis";
    EXPECT_NE(O->opname, "EXTENDED_ARG");
    EXPECT_NE(O->opname, "CACHE");
    EXPECT_GT(X.line, 0) << I;
    if (O->line > 0) {
      EXPECT_EQ(X.line, O->line) << "instr " << I << " " << O->opname;
    }
    if (minorOf(F.version) == 10) {
      EXPECT_EQ(X.col, -1);
      EXPECT_EQ(X.endCol, -1);
    } else {
      const Position &P = F.raw.positions[X.offset / 2];
      EXPECT_EQ(X.col, P.col);
      EXPECT_EQ(X.endCol, P.endCol);
    }
    SourceLoc L = C->loc(X);
    EXPECT_EQ(L.fileName(), F.raw.filename);
    EXPECT_EQ(L.line, X.line);
  }
}

std::string stripNull(std::string S) {
  for (const char *Pre : {"NULL + ", "NULL|self + "})
    if (S.rfind(Pre, 0) == 0)
      S.erase(0, std::strlen(Pre));
  for (const char *Post : {" + NULL|self", " + NULL"}) {
    size_t N = std::strlen(Post);
    if (S.size() >= N && S.compare(S.size() - N, N, Post) == 0)
      S.erase(S.size() - N);
  }
  return S;
}

TEST_P(BytecodeSample, OperandsMatchDis) {
  const BytecodeFixture &F = fx();
  auto C = tryDecode();
  if (!C)
    GTEST_SKIP() << "rejected as a whole";
  for (const OracleInstr &O : F.oracle) {
    auto At = atOffset(*C, O.offset);
    if (At.empty() || At.front()->op == Op::UNSUPPORTED)
      continue;
    const std::string &N = O.opname;
    std::string Ctx = N + " at " + std::to_string(O.offset);
    if (N == "LOAD_CONST" || N == "RETURN_CONST") {
      ASSERT_EQ(At.front()->op, Op::LOAD_CONST) << Ctx;
      const ConstValue &K = C->consts.at(At.front()->arg);
      if (K.kind != ConstValue::Kind::Code) {
        EXPECT_EQ(K.repr(), O.argrepr) << Ctx;
      }
      if (N == "RETURN_CONST") {
        ASSERT_EQ(At.size(), 2u);
        EXPECT_EQ(At[1]->op, Op::RETURN_VALUE);
      }
    } else if (N.find("FAST") != std::string::npos &&
               N != "LOAD_FAST_AND_CLEAR" && N != "DELETE_FAST") {
      std::string Names;
      for (const Instr *X : At) {
        ASSERT_TRUE(X->op == Op::LOAD_FAST || X->op == Op::STORE_FAST) << Ctx;
        Names += (Names.empty() ? "" : ", ") + C->varnames.at(X->arg);
      }
      EXPECT_EQ(Names, O.argrepr) << Ctx;
    } else if (N == "LOAD_GLOBAL") {
      const Instr *G = nullptr;
      for (const Instr *X : At)
        if (X->op == Op::LOAD_GLOBAL)
          G = X;
      ASSERT_NE(G, nullptr) << Ctx;
      EXPECT_EQ(C->names.at(G->arg), stripNull(O.argrepr)) << Ctx;
      // PUSH_NULL exactly where the interpreter pushes its NULL.
      std::vector<Op> Ops;
      for (const Instr *X : At)
        Ops.push_back(X->op);
      if (O.argrepr.rfind("NULL + ", 0) == 0)
        EXPECT_EQ(Ops, (std::vector<Op>{Op::PUSH_NULL, Op::LOAD_GLOBAL}));
      else if (O.argrepr.find(" + NULL") != std::string::npos)
        EXPECT_EQ(Ops, (std::vector<Op>{Op::LOAD_GLOBAL, Op::PUSH_NULL}));
      else
        EXPECT_EQ(Ops, (std::vector<Op>{Op::LOAD_GLOBAL}));
    } else if (N == "LOAD_ATTR" || N == "LOAD_METHOD" || N == "STORE_ATTR") {
      ASSERT_EQ(At.size(), 1u) << Ctx;
      bool Method = N == "LOAD_METHOD" ||
                    O.argrepr.find("NULL|self") != std::string::npos;
      EXPECT_EQ(At[0]->op, N == "STORE_ATTR" ? Op::STORE_ATTR
                           : Method          ? Op::LOAD_METHOD
                                             : Op::LOAD_ATTR)
          << Ctx;
      EXPECT_EQ(C->names.at(At[0]->arg), stripNull(O.argrepr)) << Ctx;
    } else if (N == "LOAD_DEREF" || N == "LOAD_CLOSURE") {
      // A cell of the function itself is a local (nested functions get its
      // value where they are defined); a free variable stays LOAD_DEREF.
      bool Cell = std::find(F.raw.cellvars.begin(), F.raw.cellvars.end(),
                            O.argrepr) != F.raw.cellvars.end();
      ASSERT_EQ(At[0]->op, Cell ? Op::LOAD_FAST : Op::LOAD_DEREF) << Ctx;
      EXPECT_EQ(Cell ? C->varnames.at(At[0]->arg)
                     : C->derefNames.at(At[0]->arg),
                O.argrepr)
          << Ctx;
    } else if (N == "STORE_DEREF") {
      ASSERT_EQ(At[0]->op, Op::STORE_FAST) << Ctx;
      EXPECT_EQ(C->varnames.at(At[0]->arg), O.argrepr) << Ctx;
    } else if (N == "COMPARE_OP") {
      ASSERT_EQ(At[0]->op, Op::COMPARE_OP) << Ctx;
      std::string Sym = O.argrepr;
      if (Sym.rfind("bool(", 0) == 0)
        Sym = Sym.substr(5, Sym.size() - 6);
      EXPECT_EQ(cmpSymbol((CmpKind)At[0]->arg), Sym) << Ctx;
    } else if (N == "BINARY_OP") {
      ASSERT_EQ(At[0]->op, Op::BINARY_OP) << Ctx;
      std::string Sym = binOpSymbol((BinOpKind)At[0]->arg);
      if (At[0]->flags & flag::InPlace)
        Sym += "=";
      EXPECT_EQ(Sym, O.argrepr) << Ctx;
    } else if (N == "IS_OP" || N == "CONTAINS_OP") {
      EXPECT_EQ(At[0]->arg, O.arg & 1) << Ctx;
    } else if (N == "CALL_INTRINSIC_1" &&
               O.argrepr == "INTRINSIC_LIST_TO_TUPLE") {
      // the end of a long tuple display (markLongTupleDisplays)
      EXPECT_EQ(At[0]->op, Op::BUILD_TUPLE) << Ctx;
    } else if (N == "CALL_INTRINSIC_1") {
      EXPECT_EQ(O.argrepr, "INTRINSIC_UNARY_POSITIVE");
      EXPECT_EQ(At[0]->op, Op::UNARY_POSITIVE) << Ctx;
    } else if (N == "EXTENDED_ARG" || N == "CACHE") {
      ADD_FAILURE() << "neutral instruction at the offset of " << Ctx;
    }
  }
}

TEST_P(BytecodeSample, StackDepthsAreConsistent) {
  const BytecodeFixture &F = fx();
  auto C = tryDecode();
  if (!C)
    GTEST_SKIP() << "rejected as a whole";
  if (hasUnsupported(*C))
    GTEST_SKIP() << "contains UNSUPPORTED instructions";
  // A long tuple display, which CPython builds in a list (one stack slot),
  // holds its elements on the stack once decoded.
  int Bound = F.raw.stackSize;
  for (const Instr &X : C->instrs)
    if (X.op == Op::BUILD_TUPLE && X.arg > 30)
      Bound = std::max(Bound, F.raw.stackSize + X.arg - 1);
  std::string Err = checkStackDepths(*C, Bound);
  EXPECT_EQ(Err, "") << C->dump();
}

TEST_P(BytecodeSample, DumpIsDeterministic) {
  auto C = tryDecode();
  if (!C)
    GTEST_SKIP() << "rejected as a whole";
  auto D = decode(fx().raw);
  std::string A = C->dump(), B = D.dump();
  EXPECT_EQ(A, B);
  EXPECT_EQ((size_t)std::count(A.begin(), A.end(), '\n'), C->instrs.size() + 1);
  EXPECT_EQ(A.find("<bad index>"), std::string::npos) << A;
}

INSTANTIATE_TEST_SUITE_P(Bytecode, BytecodeSample,
                         ::testing::ValuesIn(allSamples()),
                         [](const ::testing::TestParamInfo<SampleParam> &I) {
                           return paramName(I.param.version) + "_" +
                                  I.param.name;
                         });

// ---- per version: specific rules
// ----------------------------------------------------

class BytecodeVersion : public ::testing::TestWithParam<std::string> {
protected:
  std::string v() const { return GetParam(); }
  int minor() const { return minorOf(GetParam()); }
  DecodedCode get(const std::string &Name) const {
    return decodeFixture(GetParam(), Name);
  }
};

std::vector<const Instr *> ofOp(const DecodedCode &C, Op O) {
  std::vector<const Instr *> Out;
  for (const Instr &I : C.instrs)
    if (I.op == O)
      Out.push_back(&I);
  return Out;
}

TEST_P(BytecodeVersion, SampleSetIsComplete) {
  auto Names = test::bytecodeFixtureNames(v());
  EXPECT_GE(Names.size(), 25u);
  EXPECT_EQ(Names, test::bytecodeFixtureNames("3.10"));
}

TEST_P(BytecodeVersion, KeywordNamesFoldIntoCall) {
  DecodedCode C = get("kwcall");
  auto Calls = ofOp(C, Op::CALL);
  ASSERT_EQ(Calls.size(), 3u) << C.dump();
  ASSERT_GE(Calls[0]->aux, 0);
  ASSERT_GE(Calls[1]->aux, 0);
  EXPECT_EQ(C.kwnames.at(Calls[0]->aux), std::vector<std::string>{"b"});
  EXPECT_EQ(C.kwnames.at(Calls[1]->aux), (std::vector<std::string>{"c", "b"}));
  EXPECT_EQ(Calls[2]->aux, -1);
  EXPECT_EQ(Calls[0]->arg, 2);
  EXPECT_EQ(Calls[1]->arg, 3);
  // The names tuple is not left on the stack as a constant load.
  for (const Instr *L : ofOp(C, Op::LOAD_CONST))
    EXPECT_NE(C.consts.at(L->arg).kind, ConstValue::Kind::Tuple) << C.dump();
  // CALL takes a callable pair exactly where the version's protocol does.
  for (const Instr *Call : Calls)
    EXPECT_EQ((bool)(Call->flags & flag::CallPair), minor() >= 11);
  EXPECT_EQ(ofOp(C, Op::PUSH_NULL).size(), minor() >= 11 ? 3u : 0u);
}

TEST_P(BytecodeVersion, MethodCallsUseCallPair) {
  DecodedCode C = get("attr_chain");
  auto M = ofOp(C, Op::LOAD_METHOD);
  ASSERT_EQ(M.size(), 1u) << C.dump();
  EXPECT_EQ(C.names.at(M[0]->arg), "grid");
  auto Calls = ofOp(C, Op::CALL);
  ASSERT_EQ(Calls.size(), 1u);
  EXPECT_TRUE(Calls[0]->flags & flag::CallPair);
  EXPECT_EQ(Calls[0]->arg, 1);
  EXPECT_EQ(ofOp(C, Op::LOAD_ATTR).size(), 6u);
  EXPECT_EQ(ofOp(C, Op::STORE_ATTR).size(), 1u);

  DecodedCode S = get("method_call"); // math.sqrt(x): a module attribute
  for (const Instr *Call : ofOp(S, Op::CALL))
    EXPECT_TRUE(Call->flags & flag::CallPair) << S.dump();
}

TEST_P(BytecodeVersion, SuperInstructionsExpand) {
  // tuples: `a, b = b, a` and friends; 3.13 fuses these into
  // LOAD_FAST_LOAD_FAST / STORE_FAST_STORE_FAST.  The neutral local accesses
  // are the same as 3.12's, which has no super-instructions.
  auto Accesses = [](const DecodedCode &C) {
    std::vector<std::string> Out;
    for (const Instr &I : C.instrs)
      if (I.op == Op::LOAD_FAST || I.op == Op::STORE_FAST)
        Out.push_back(std::string(I.op == Op::LOAD_FAST ? "L " : "S ") +
                      C.varnames[I.arg]);
    return Out;
  };
  if (minor() < 12)
    GTEST_SKIP() << "compared between 3.12 and 3.13";
  for (const std::string &Name : test::bytecodeFixtureNames(v())) {
    if (!fixture(v(), Name).expectOk)
      continue;
    EXPECT_EQ(Accesses(get(Name)), Accesses(decodeFixture("3.12", Name)))
        << Name;
  }
}

TEST_P(BytecodeVersion, ForIterExitsAfterLoopCleanup) {
  DecodedCode C = get("for_ranges");
  auto Loops = ofOp(C, Op::FOR_ITER);
  ASSERT_EQ(Loops.size(), 3u) << C.dump();
  // After loops 1 and 2 the next `for` starts (with its `range` global);
  // after loop 3 comes `return s`.
  for (int L = 0; L < 2; ++L) {
    const Instr &T = C.instrs.at(Loops[L]->target);
    EXPECT_TRUE(T.op == Op::PUSH_NULL || T.op == Op::LOAD_GLOBAL) << C.dump();
  }
  const Instr &Last = C.instrs.at(Loops[2]->target);
  ASSERT_EQ(Last.op, Op::LOAD_FAST) << C.dump();
  EXPECT_EQ(C.varnames[Last.arg], "s");
  // END_FOR (and 3.13's POP_TOP after it) is gone.
  EXPECT_TRUE(ofOp(C, Op::POP_TOP).empty()) << C.dump();
  // The loop body starts by storing the next value.
  for (const Instr *F : Loops)
    EXPECT_EQ(C.instrs.at(F - C.instrs.data() + 1).op, Op::STORE_FAST);
}

// 3.12+: an END_FOR that execution can fall into is kept, as the POP_TOPs
// it performs; FOR_ITER still exits past it.
TEST_P(BytecodeVersion, ReachableEndForBecomesPopTop) {
  if (minor() < 12)
    GTEST_SKIP() << "END_FOR is 3.12+";
  const BytecodeFixture &F = fixture(v(), "for_ranges");
  auto End =
      std::find_if(F.oracle.begin(), F.oracle.end(),
                   [](const OracleInstr &O) { return O.opname == "END_FOR"; });
  ASSERT_NE(End, F.oracle.end());
  const OracleInstr &Back = *(End - 1);
  ASSERT_EQ(Back.opname, "JUMP_BACKWARD");
  RawCode R = F.raw;
  R.code[Back.offset] = (char)R.opcodes.number("NOP");
  DecodedCode C = decode(R);
  auto Pops = ofOp(C, Op::POP_TOP);
  // 3.12: END_FOR pops two; 3.13: END_FOR pops one, then its POP_TOP.
  ASSERT_EQ(Pops.size(), 2u) << C.dump();
  EXPECT_EQ(Pops[0]->offset, End->offset);
  const Instr &Loop = *ofOp(C, Op::FOR_ITER).at(0);
  EXPECT_EQ(Loop.target, Pops[1] - C.instrs.data() + 1) << C.dump();
}

TEST_P(BytecodeVersion, ExtendedArgFolds) {
  DecodedCode C = get("long_code");
  const BytecodeFixture &F = fixture(v(), "long_code");
  int MaxConst = 0;
  for (const Instr *L : ofOp(C, Op::LOAD_CONST))
    MaxConst = std::max(MaxConst, L->arg);
  EXPECT_GT(MaxConst, 255);
  EXPECT_GT(C.consts.size(), 256u);
  // The `if` jumps over > 256 code units to the `while` loop, whose back
  // edge spans > 256 code units too.
  const Instr *FirstCond = nullptr;
  for (const Instr &I : C.instrs)
    if (I.isJump()) {
      FirstCond = &I;
      break;
    }
  ASSERT_NE(FirstCond, nullptr);
  const Instr &Loop = C.instrs.at(FirstCond->target);
  EXPECT_GT(Loop.offset - FirstCond->offset, 512);
  EXPECT_EQ(Loop.line, F.raw.firstLineNo + 29); // `while x < 10000:`
  // Both the forward and the backward jump need EXTENDED_ARG (3.10: the
  // absolute target is past unit 255; 3.11+: the distance is).
  int LongJumps = 0, LongBack = 0;
  for (size_t I = 0; I < C.instrs.size(); ++I) {
    const Instr &X = C.instrs[I];
    if (!X.isJump())
      continue;
    const OracleInstr *O = oracleAt(F, X.offset);
    ASSERT_NE(O, nullptr);
    if (O->arg > 255) {
      ++LongJumps;
      LongBack += X.target < (int)I;
    }
  }
  EXPECT_GE(LongJumps, 2);
  EXPECT_GE(LongBack, 1);
  size_t Extended =
      std::count_if(F.oracle.begin(), F.oracle.end(), [](const OracleInstr &O) {
        return O.opname == "EXTENDED_ARG";
      });
  EXPECT_GT(Extended, 10u);
}

// Symbolic execution of straight-line neutral code: every store, call and
// return rendered as text.  Equal renderings across versions mean the
// normalisation (ROT_*/DUP_* -> SWAP/COPY, super-instructions, NULL pushes,
// keyword names, slices, method calls) preserves meaning.
std::vector<std::string> symbolicEffects(const DecodedCode &C) {
  std::vector<std::string> St, Effects;
  std::map<std::string, std::string> Env; // local -> its symbolic value
  auto Pop = [&]() {
    if (St.empty())
      throw std::runtime_error("stack underflow");
    std::string V = St.back();
    St.pop_back();
    return V;
  };
  auto PopN = [&](int N) {
    std::vector<std::string> Out(N);
    for (int I = N - 1; I >= 0; --I)
      Out[I] = Pop();
    return Out;
  };
  auto Join = [](const std::vector<std::string> &V, size_t From = 0) {
    std::string S;
    for (size_t I = From; I < V.size(); ++I)
      S += (I > From ? ", " : "") + V[I];
    return S;
  };
  for (const Instr &I : C.instrs) {
    switch (I.op) {
    case Op::POP_TOP:
      Effects.push_back("drop " + Pop());
      break;
    case Op::COPY:
      St.push_back(St.at(St.size() - I.arg));
      break;
    case Op::SWAP:
      std::swap(St.back(), St.at(St.size() - I.arg));
      break;
    case Op::PUSH_NULL:
      St.push_back("NULL");
      break;
    case Op::LOAD_CONST:
      St.push_back(C.consts.at(I.arg).repr());
      break;
    case Op::LOAD_FAST: {
      auto It = Env.find(C.varnames.at(I.arg));
      St.push_back(It == Env.end() ? C.varnames[I.arg] : It->second);
      break;
    }
    case Op::LOAD_DEREF:
      St.push_back("cell:" + C.derefNames.at(I.arg));
      break;
    case Op::LOAD_GLOBAL:
      St.push_back("g:" + C.names.at(I.arg));
      break;
    case Op::LOAD_ATTR:
      St.push_back(Pop() + "." + C.names.at(I.arg));
      break;
    case Op::LOAD_METHOD: {
      std::string O = Pop();
      St.push_back(O + "." + C.names.at(I.arg));
      St.push_back("SELF");
      break;
    }
    case Op::STORE_FAST:
      Env[C.varnames.at(I.arg)] = Pop();
      break;
    case Op::STORE_ATTR: {
      std::string O = Pop(), V = Pop();
      Effects.push_back(O + "." + C.names.at(I.arg) + " = " + V);
      break;
    }
    case Op::BINARY_OP: {
      std::string B = Pop(), A = Pop();
      St.push_back("(" + A + binOpSymbol((BinOpKind)I.arg) +
                   ((I.flags & flag::InPlace) ? "=" : "") + B + ")");
      break;
    }
    case Op::COMPARE_OP: {
      std::string B = Pop(), A = Pop();
      St.push_back("(" + A + cmpSymbol((CmpKind)I.arg) + B + ")");
      break;
    }
    case Op::IS_OP:
    case Op::CONTAINS_OP: {
      std::string B = Pop(), A = Pop();
      St.push_back("(" + A + (I.arg ? " not" : "") +
                   (I.op == Op::IS_OP ? " is " : " in ") + B + ")");
      break;
    }
    case Op::UNARY_NEGATIVE:
      St.push_back("-" + Pop());
      break;
    case Op::UNARY_POSITIVE:
      St.push_back("+" + Pop());
      break;
    case Op::UNARY_INVERT:
      St.push_back("~" + Pop());
      break;
    case Op::UNARY_NOT:
      St.push_back("not " + Pop());
      break;
    case Op::TO_BOOL:
      break; // implied by the consumer
    case Op::BUILD_TUPLE:
      St.push_back("(" + Join(PopN(I.arg)) + ")");
      break;
    case Op::BUILD_SLICE:
      St.push_back("slice(" + Join(PopN(I.arg)) + ")");
      break;
    case Op::BINARY_SUBSCR: {
      std::string K = Pop(), O = Pop();
      St.push_back(O + "[" + K + "]");
      break;
    }
    case Op::STORE_SUBSCR: {
      std::string K = Pop(), O = Pop(), V = Pop();
      Effects.push_back(O + "[" + K + "] = " + V);
      break;
    }
    case Op::UNPACK_SEQUENCE: {
      std::string S = Pop();
      for (int K = I.arg - 1; K >= 0; --K)
        St.push_back(S + "[" + std::to_string(K) + "]");
      break;
    }
    case Op::CALL: {
      std::vector<std::string> Args = PopN(I.arg);
      std::string Callee;
      if (I.flags & flag::CallPair) {
        std::string Hi = Pop(), Lo = Pop();
        Callee = Lo == "NULL" ? Hi : Lo;
        if (Lo != "NULL" && Hi != "NULL" && Hi != "SELF")
          Args.insert(Args.begin(), Hi);
      } else {
        Callee = Pop();
      }
      if (I.aux >= 0) {
        const auto &KW = C.kwnames.at(I.aux);
        for (size_t K = 0; K < KW.size(); ++K)
          Args[Args.size() - KW.size() + K] =
              KW[K] + "=" + Args[Args.size() - KW.size() + K];
      }
      std::string R = Callee + "(" + Join(Args) + ")";
      Effects.push_back("call " + R);
      St.push_back(R);
      break;
    }
    case Op::RETURN_VALUE:
      Effects.push_back("return " + Pop());
      break;
    default:
      throw std::runtime_error(std::string("not straight-line: ") +
                               opName(I.op));
    }
  }
  for (const auto &[Name, Value] : Env)
    Effects.push_back(Name + " = " + Value);
  return Effects;
}

TEST_P(BytecodeVersion, SymbolicEffectsMatchAcrossVersions) {
  for (const char *Name :
       {"arith", "augassign", "tuples", "subscripts", "slices", "kwcall",
        "method_call", "attr_chain", "closure_read", "globals_read",
        "unary_ops", "nested_calls", "constants", "long_tuple"}) {
    DecodedCode C = get(Name), Ref = decodeFixture("3.10", Name);
    std::vector<std::string> A, B;
    try {
      A = symbolicEffects(C);
      B = symbolicEffects(Ref);
    } catch (const std::exception &E) {
      ADD_FAILURE() << Name << ": " << E.what() << "\n" << C.dump();
      continue;
    }
    EXPECT_EQ(A, B) << Name << "\n" << C.dump();
    EXPECT_FALSE(A.empty());
  }
  // Spot-check the rendering itself.
  auto T = symbolicEffects(get("tuples"));
  // a, b = b, a; then a, b, c = c, b, a
  EXPECT_NE(std::find(T.begin(), T.end(), "a = c"), T.end());
  EXPECT_NE(std::find(T.begin(), T.end(), "b = a"), T.end());
  EXPECT_NE(std::find(T.begin(), T.end(), "c = b"), T.end());
  auto K = symbolicEffects(get("kwcall"));
  EXPECT_EQ(K.at(0), "call g:helper(x, b=2)");
  auto M = symbolicEffects(get("attr_chain"));
  EXPECT_EQ(M.at(1), "call g:cuda.grid(1)");
}

// A tuple display of more than 30 elements, built by CPython in a list, is
// one BUILD_TUPLE: no list step and nothing unsupported is left.
TEST_P(BytecodeVersion, LongTupleDisplayIsOneBuildTuple) {
  DecodedCode C = get("long_tuple");
  auto T = ofOp(C, Op::BUILD_TUPLE);
  ASSERT_EQ(T.size(), 1u) << C.dump();
  EXPECT_EQ(T[0]->arg, 33);
  EXPECT_TRUE(ofOp(C, Op::UNSUPPORTED).empty()) << C.dump();
}

TEST_P(BytecodeVersion, ClosureNamesResolve) {
  DecodedCode C = get("closure_read");
  auto D = ofOp(C, Op::LOAD_DEREF);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(C.derefNames.at(D[0]->arg), "k");
  EXPECT_EQ(C.derefNames, std::vector<std::string>{"k"});

  // A free variable written with `nonlocal`: still a closure variable.
  DecodedCode N = get("u_nonlocal");
  auto DN = ofOp(N, Op::LOAD_DEREF);
  ASSERT_EQ(DN.size(), 1u) << N.dump();
  EXPECT_EQ(N.derefNames.at(DN[0]->arg), "k");
}

// Cells are locals, and a nested function is MAKE_FUNCTION (the code's
// constant index) + SET_FUNCTION_ATTRIBUTE 8 over a tuple of the captured
// locals, the same in every version (3.10's qualname is popped first).
TEST_P(BytecodeVersion, NestedFunctionsAreVersionNeutral) {
  auto Shape = [](const DecodedCode &C) {
    std::vector<std::string> Out;
    for (const Instr &I : C.instrs) {
      switch (I.op) {
      case Op::LOAD_FAST:
      case Op::STORE_FAST:
        Out.push_back(std::string(opName(I.op)) + " " + C.varnames.at(I.arg));
        break;
      case Op::BUILD_TUPLE:
      case Op::SET_FUNCTION_ATTRIBUTE:
        Out.push_back(std::string(opName(I.op)) + " " + std::to_string(I.arg));
        break;
      case Op::MAKE_FUNCTION: { // 3.10 names code objects by co_name
        const std::string &Q = C.consts.at(I.arg).text;
        Out.push_back("MAKE_FUNCTION " + Q.substr(Q.rfind('.') + 1));
        break;
      }
      case Op::LOAD_DEREF:
      case Op::UNSUPPORTED:
        Out.push_back(opName(I.op));
        break;
      default:
        break;
      }
    }
    return Out;
  };
  for (const char *Name : {"lambda_capture", "nested_def"}) {
    DecodedCode C = get(Name);
    EXPECT_EQ(Shape(C), Shape(decodeFixture("3.10", Name))) << C.dump();
    EXPECT_EQ(ofOp(C, Op::MAKE_FUNCTION).size(), 1u) << C.dump();
    EXPECT_FALSE(hasUnsupported(C)) << C.dump();
  }
  // The cell `c` of nested_def is not a parameter: a local after them.
  DecodedCode D = get("nested_def");
  EXPECT_EQ(D.argCount, 2);
  EXPECT_NE(std::find(D.varnames.begin(), D.varnames.end(), "c"),
            D.varnames.end());
}

TEST_P(BytecodeVersion, OperatorsAreVersionNeutral) {
  auto Kinds = [](const DecodedCode &C, Op O) {
    std::vector<std::pair<int, uint32_t>> Out;
    for (const Instr &I : C.instrs)
      if (I.op == O)
        Out.push_back({I.arg, I.flags});
    return Out;
  };
  for (const char *Name : {"arith", "augassign", "chained_compare",
                           "subscripts", "constants", "long_code"}) {
    EXPECT_EQ(Kinds(get(Name), Op::BINARY_OP),
              Kinds(decodeFixture("3.10", Name), Op::BINARY_OP))
        << Name;
    EXPECT_EQ(Kinds(get(Name), Op::COMPARE_OP),
              Kinds(decodeFixture("3.10", Name), Op::COMPARE_OP))
        << Name;
  }
  DecodedCode A = get("augassign");
  auto B = ofOp(A, Op::BINARY_OP);
  ASSERT_EQ(B.size(), 12u);
  const BinOpKind Expect[] = {
      BinOpKind::Add,      BinOpKind::Sub, BinOpKind::Mul, BinOpKind::TrueDiv,
      BinOpKind::FloorDiv, BinOpKind::Mod, BinOpKind::Pow, BinOpKind::LShift,
      BinOpKind::RShift,   BinOpKind::And, BinOpKind::Or,  BinOpKind::Xor};
  for (size_t I = 0; I < 12; ++I) {
    EXPECT_EQ((BinOpKind)B[I]->arg, Expect[I]) << I;
    EXPECT_TRUE(B[I]->flags & flag::InPlace) << I;
  }
  DecodedCode U = get("unary_ops");
  EXPECT_EQ(ofOp(U, Op::UNARY_POSITIVE).size(), 1u) << U.dump();
  EXPECT_EQ(ofOp(U, Op::UNARY_NEGATIVE).size(), 1u);
  EXPECT_EQ(ofOp(U, Op::UNARY_INVERT).size(), 1u);
  EXPECT_EQ(ofOp(U, Op::UNARY_NOT).size(), 1u);
  EXPECT_EQ(ofOp(U, Op::TO_BOOL).size(), minor() >= 13 ? 1u : 0u);
}

TEST_P(BytecodeVersion, ContainerOpsAreVersionNeutral) {
  auto Count = [&](const char *Name, Op O) {
    return ofOp(get(Name), O).size();
  };
  auto Count310 = [&](const char *Name, Op O) {
    return ofOp(decodeFixture("3.10", Name), O).size();
  };
  // 3.12+ BINARY_SLICE / STORE_SLICE become BUILD_SLICE 2 + subscript.
  for (Op O : {Op::BUILD_SLICE, Op::BINARY_SUBSCR, Op::STORE_SUBSCR})
    EXPECT_EQ(Count("slices", O), Count310("slices", O)) << opName(O);
  EXPECT_EQ(Count("slices", Op::BUILD_SLICE), 5u);
  for (Op O : {Op::BUILD_TUPLE, Op::UNPACK_SEQUENCE, Op::BINARY_SUBSCR})
    EXPECT_EQ(Count("tuples", O), Count310("tuples", O)) << opName(O);
  for (Op O : {Op::BINARY_SUBSCR, Op::STORE_SUBSCR, Op::BUILD_TUPLE})
    EXPECT_EQ(Count("subscripts", O), Count310("subscripts", O)) << opName(O);
  // ROT_* / DUP_TOP* (3.10) and COPY/SWAP (3.11+) all become COPY/SWAP.
  DecodedCode S = get("subscripts");
  EXPECT_EQ(ofOp(S, Op::COPY).size(), 4u) << S.dump();
}

TEST_P(BytecodeVersion, ConditionalJumpsKeepTheirShape) {
  DecodedCode B = get("bool_ops");
  // 3.10/3.11 keep JUMP_IF_*_OR_POP; 3.12+ spell it COPY + POP_JUMP_IF_*.
  size_t OrPop = ofOp(B, Op::JUMP_IF_TRUE_OR_POP).size() +
                 ofOp(B, Op::JUMP_IF_FALSE_OR_POP).size();
  EXPECT_EQ(OrPop > 0, minor() <= 11) << B.dump();
  DecodedCode N = get("is_in_none");
  size_t NoneJumps = ofOp(N, Op::POP_JUMP_IF_NONE).size() +
                     ofOp(N, Op::POP_JUMP_IF_NOT_NONE).size();
  EXPECT_EQ(NoneJumps, minor() >= 11 ? 2u : 0u) << N.dump();
  EXPECT_EQ(ofOp(N, Op::IS_OP).size(), minor() >= 11 ? 1u : 3u);
  auto Is = ofOp(N, Op::IS_OP);
  EXPECT_EQ(Is.back()->arg, 1); // `a is not b`
}

// A jump that lands on an instruction the decoder drops (NOP), or on the
// EXTENDED_ARG prefix of an instruction, continues at the next neutral one.
TEST_P(BytecodeVersion, JumpsOntoDroppedInstructionsMoveForward) {
  const BytecodeFixture &F = fixture(v(), "if_elif_else");
  const OracleInstr *J = nullptr;
  for (const OracleInstr &O : F.oracle)
    if (O.target >= 0) {
      J = &O;
      break;
    }
  ASSERT_NE(J, nullptr);
  // The jump target is `x` of `elif x < -10`; the next instruction loads -10.
  const OracleInstr *T = oracleAt(F, J->target);
  ASSERT_NE(T, nullptr);
  ASSERT_EQ(T->opname, "LOAD_FAST") << T->opname;
  const OracleInstr *After = &*(std::find_if(F.oracle.begin(), F.oracle.end(),
                                             [&](const OracleInstr &O) {
                                               return O.offset == T->offset;
                                             }) +
                                1);
  ASSERT_EQ(After->opname, "LOAD_CONST");
  for (const char *Filler : {"NOP", "EXTENDED_ARG"}) {
    RawCode R = F.raw;
    R.code[T->offset] = (char)R.opcodes.number(Filler);
    R.code[T->offset + 1] = 0;
    DecodedCode C = decode(R);
    const Instr *Jump = nullptr;
    for (const Instr &I : C.instrs)
      if (I.offset == J->offset && I.isJump())
        Jump = &I;
    ASSERT_NE(Jump, nullptr) << Filler;
    const Instr &Dest = C.instrs.at(Jump->target);
    EXPECT_EQ(Dest.op, Op::LOAD_CONST) << Filler << "\n" << C.dump();
    EXPECT_EQ(Dest.offset, After->offset) << Filler;
  }
}

TEST_P(BytecodeVersion, ReturnConstExpands) {
  DecodedCode C = get("early_return");
  // `return -1`: LOAD_CONST -1; RETURN_VALUE in every version.
  bool Found = false;
  for (size_t I = 0; I + 1 < C.instrs.size(); ++I)
    if (C.instrs[I].op == Op::LOAD_CONST &&
        C.consts[C.instrs[I].arg].repr() == "-1" &&
        C.instrs[I + 1].op == Op::RETURN_VALUE)
      Found = true;
  EXPECT_TRUE(Found) << C.dump();
  EXPECT_EQ(ofOp(C, Op::RETURN_VALUE).size(), 3u);
}

TEST_P(BytecodeVersion, AssertAndRaise) {
  DecodedCode C = get("assert_raise");
  EXPECT_EQ(ofOp(C, Op::LOAD_ASSERTION_ERROR).size(), 1u);
  auto R = ofOp(C, Op::RAISE);
  ASSERT_EQ(R.size(), 3u);
  EXPECT_EQ(R[0]->arg, 1);
  EXPECT_EQ(R[1]->arg, 1);
  EXPECT_EQ(R[2]->arg, 2);
  EXPECT_TRUE(R[0]->isTerminator());
}

TEST_P(BytecodeVersion, UnsupportedRecordsOpnames) {
  DecodedCode C = get("u_list");
  auto U = ofOp(C, Op::UNSUPPORTED);
  ASSERT_FALSE(U.empty());
  EXPECT_EQ((UnsupportedKind)U[0]->arg, UnsupportedKind::ListDisplay);
  EXPECT_EQ(C.opnames.at(U[0]->aux), "BUILD_LIST");
  EXPECT_NE(C.dump().find("ListDisplay (BUILD_LIST)"), std::string::npos);
  EXPECT_STREQ(unsupportedMessage(UnsupportedKind::ListDisplay),
               "list displays are not supported in kernels");
  EXPECT_NE(std::string(unsupportedHint(UnsupportedKind::ListDisplay)), "");
}

// Opcode numbers come only from the OpcodeTable: renumber every opcode
// (keeping the no-argument / argument split) and rewrite co_code; the
// decoded result must not change.
TEST_P(BytecodeVersion, OpcodeNumbersComeFromTheTable) {
  for (const std::string &Name : test::bytecodeFixtureNames(v())) {
    RawCode R = fixture(v(), Name).raw;
    const int HA = R.opcodes.haveArgument;
    auto Perm = [HA](int N) { return N < HA ? HA - 1 - N : 255 - (N - HA); };
    OpcodeTable T = R.opcodes;
    T.opmap.clear();
    T.cacheEntries.assign(256, 0);
    for (const auto &[OpName, Num] : R.opcodes.opmap) {
      if (Num > 255) {
        T.opmap[OpName] = Num;
        continue;
      }
      T.opmap[OpName] = Perm(Num);
      if ((size_t)Num < R.opcodes.cacheEntries.size())
        T.cacheEntries[Perm(Num)] = R.opcodes.cacheEntries[Num];
    }
    RawCode P = R;
    P.opcodes = T;
    for (size_t I = 0; I < P.code.size(); I += 2)
      P.code[I] = (char)Perm((unsigned char)R.code[I]);
    std::string A, B;
    try {
      A = decode(R).dump();
    } catch (const CompileError &E) {
      A = E.what();
    }
    try {
      B = decode(P).dump();
    } catch (const CompileError &E) {
      B = E.what();
    }
    EXPECT_EQ(A, B) << Name;
  }
}

INSTANTIATE_TEST_SUITE_P(Bytecode, BytecodeVersion,
                         ::testing::ValuesIn(kVersions),
                         [](const ::testing::TestParamInfo<std::string> &I) {
                           return paramName(I.param);
                         });

// ---- malformed input
// ------------------------------------------------------------------

class BytecodeMalformed : public ::testing::TestWithParam<std::string> {
protected:
  RawCode raw(const char *Name) const { return fixture(GetParam(), Name).raw; }
  // Byte offset of the first dis instruction named `Op` in `Name`.
  int offsetOf(const char *Name, const char *Op) const {
    for (const OracleInstr &O : fixture(GetParam(), Name).oracle)
      if (O.opname == Op)
        return O.offset;
    return -1;
  }
};

void expectBytecodeError(const RawCode &R, const std::string &Why) {
  try {
    decode(R);
    ADD_FAILURE() << "no error for " << Why;
  } catch (const CompileError &E) {
    EXPECT_EQ(E.kind(), ErrorKind::Bytecode) << Why << ": " << E.what();
  }
}

TEST_P(BytecodeMalformed, UnknownVersions) {
  RawCode R = raw("arith");
  R.pyMinor = 9;
  expectBytecodeError(R, "3.9");
  R.pyMinor = 14;
  expectBytecodeError(R, "3.14");
  R.pyMajor = 2;
  R.pyMinor = 7;
  expectBytecodeError(R, "2.7");
}

TEST_P(BytecodeMalformed, TruncatedCode) {
  RawCode R = raw("if_elif_else");
  RawCode Odd = R;
  Odd.code.pop_back();
  expectBytecodeError(Odd, "odd length");
  RawCode Half = R;
  Half.code.resize(R.code.size() / 2 & ~size_t(1));
  expectBytecodeError(Half, "half the code");
  RawCode Empty = R;
  Empty.code.clear();
  expectBytecodeError(Empty, "empty code");
  // Cut inside the inline caches of a LOAD_GLOBAL (3.11+ have caches).
  RawCode G = raw("globals_read");
  int Off = offsetOf("globals_read", "LOAD_GLOBAL");
  ASSERT_GE(Off, 0);
  if (!G.opcodes.cacheEntries.empty()) {
    G.code.resize(Off + 4);
    expectBytecodeError(G, "cut inside caches");
  }
  // Code ending in EXTENDED_ARG.
  RawCode E = R;
  E.code.resize(2);
  E.code[0] = (char)R.opcodes.number("EXTENDED_ARG");
  E.code[1] = 1;
  expectBytecodeError(E, "trailing EXTENDED_ARG");
}

TEST_P(BytecodeMalformed, BadJumpTargets) {
  const BytecodeFixture &F = fixture(GetParam(), "if_elif_else");
  const OracleInstr *J = nullptr;
  for (const OracleInstr &O : F.oracle)
    if (O.target >= 0 && O.opname.find("POP_JUMP") != std::string::npos) {
      J = &O;
      break;
    }
  ASSERT_NE(J, nullptr);
  RawCode R = F.raw;
  R.code[J->offset + 1] = (char)0xfe; // far past the end
  expectBytecodeError(R, "jump past the end");
  // A target that is not an instruction boundary: inside an instruction's
  // inline caches (3.11+), or the end of the code (3.10).
  int Cmp = -1;
  for (const OracleInstr &O : F.oracle)
    if (O.opname == "COMPARE_OP") {
      Cmp = O.offset;
      break;
    }
  ASSERT_GE(Cmp, 0);
  if (minorOf(GetParam()) == 10) {
    // 3.10 counts jumps in code units, so no target is mid-unit; jump to
    // the end of the code instead.
    RawCode C = F.raw;
    C.code[0] = (char)F.raw.opcodes.number("JUMP_ABSOLUTE");
    C.code[1] = (char)(F.raw.code.size() / 2);
    expectBytecodeError(C, "jump to the end");
  }
  if (!F.raw.opcodes.cacheEntries.empty() &&
      F.raw.opcodes.cacheEntries[F.raw.opcodes.number("COMPARE_OP")] > 0) {
    // 3.11+: a JUMP_FORWARD from offset 0 into COMPARE_OP's cache.
    RawCode C = F.raw;
    int Caches =
        F.raw.opcodes.cacheEntries[F.raw.opcodes.number("JUMP_FORWARD")];
    int Dest = Cmp + 2; // first cache unit
    C.code[0] = (char)F.raw.opcodes.number("JUMP_FORWARD");
    C.code[1] = (char)((Dest - 2 - 2 * Caches) / 2);
    expectBytecodeError(C, "jump into caches");
  }
}

TEST_P(BytecodeMalformed, BadOperands) {
  const BytecodeFixture &F = fixture(GetParam(), "globals_read");
  int Off = offsetOf("globals_read", "LOAD_GLOBAL");
  RawCode R = F.raw;
  R.code[Off + 1] = (char)0xf0; // name index out of range
  expectBytecodeError(R, "name index");

  const BytecodeFixture &A = fixture(GetParam(), "arith");
  int C = offsetOf("arith", "LOAD_FAST");
  RawCode L = A.raw;
  L.code[C + 1] = (char)0x7f; // local index out of range
  expectBytecodeError(L, "local index");

  int K = -1;
  for (const OracleInstr &O : A.oracle)
    if (O.opname == "LOAD_CONST")
      K = O.offset;
  ASSERT_GE(K, 0);
  RawCode CK = A.raw;
  CK.code[K + 1] = (char)0xfe; // constant index out of range
  expectBytecodeError(CK, "constant index");

  // An opcode number the interpreter does not have.
  std::set<int> Used;
  for (const auto &[N, Num] : A.raw.opcodes.opmap)
    Used.insert(Num);
  int Unused = -1;
  for (int N = 255; N >= 0 && Unused < 0; --N)
    if (!Used.count(N))
      Unused = N;
  ASSERT_GE(Unused, 0);
  RawCode U = A.raw;
  U.code[C] = (char)Unused;
  expectBytecodeError(U, "unknown opcode");
}

TEST_P(BytecodeMalformed, TruncatedExceptionTable) {
  if (minorOf(GetParam()) == 10)
    GTEST_SKIP() << "3.10 has no exception table";
  RawCode R = raw("u_try");
  ASSERT_FALSE(R.exceptionTable.empty());
  R.exceptionTable.pop_back();
  R.exceptionTable.back() = (char)0x7f; // "more follows", then nothing
  expectBytecodeError(R, "truncated exception table");
}

// Corrupting any single byte yields a decoded function or a CompileError;
// never a crash, a hang or another exception (run under ASan/UBSan with
// -DPCJ_SANITIZE=ON).
TEST_P(BytecodeMalformed, ByteFlipsNeverCrash) {
  for (const char *Name : {"nested_loops", "kwcall", "u_try", "tuples"}) {
    const RawCode &Orig = raw(Name);
    for (size_t I = 0; I < Orig.code.size(); ++I)
      for (unsigned char Flip : {0x01, 0x80, 0xff}) {
        RawCode R = Orig;
        R.code[I] = (char)((unsigned char)R.code[I] ^ Flip);
        try {
          DecodedCode C = decode(R);
          (void)C.dump();
        } catch (const CompileError &) {
        }
      }
    for (size_t I = 0; I < Orig.exceptionTable.size(); ++I) {
      RawCode R = Orig;
      R.exceptionTable[I] = (char)((unsigned char)R.exceptionTable[I] ^ 0x40);
      try {
        decode(R);
      } catch (const CompileError &) {
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Bytecode, BytecodeMalformed,
                         ::testing::ValuesIn(kVersions),
                         [](const ::testing::TestParamInfo<std::string> &I) {
                           return paramName(I.param);
                         });

// ---- tables and helpers
// -----------------------------------------------------------------

TEST(BytecodeTables, OperandTableDefaultsMatchEveryInterpreter) {
  OpcodeTable Defaults;
  for (const std::string &V : kVersions) {
    OpcodeTable T = test::loadOpcodeTable(test::bytecodeFixtureRoot() + "/py" +
                                          V + "/opcodes.txt");
    EXPECT_EQ(T.cmpOps, Defaults.cmpOps) << V;
    EXPECT_EQ(T.binaryOps, Defaults.binaryOps) << V;
    ASSERT_GE(T.intrinsic1.size(), Defaults.intrinsic1.size()) << V;
    EXPECT_TRUE(std::equal(Defaults.intrinsic1.begin(),
                           Defaults.intrinsic1.end(), T.intrinsic1.begin()))
        << V;
    EXPECT_GE(T.number("LOAD_FAST"), 0);
    EXPECT_EQ(T.number("NO_SUCH_OP"), -1);
  }
}

TEST(BytecodeTables, ConstReprIsPythonLike) {
  EXPECT_EQ(ConstValue::ofFloat(1.0).repr(), "1.0");
  EXPECT_EQ(ConstValue::ofFloat(-0.0).repr(), "-0.0");
  EXPECT_EQ(ConstValue::ofFloat(1e16).repr(), "1e+16");
  EXPECT_EQ(ConstValue::ofFloat(123456789012345.0).repr(), "123456789012345.0");
  EXPECT_EQ(ConstValue::ofFloat(1.5e-7).repr(), "1.5e-07");
  EXPECT_EQ(ConstValue::ofFloat(0.0001).repr(), "0.0001");
  EXPECT_EQ(ConstValue::ofFloat(0.1).repr(), "0.1");
  EXPECT_EQ(ConstValue::ofStr("it's").repr(), "\"it's\"");
  EXPECT_EQ(ConstValue::ofStr("a\n").repr(), "'a\\n'");
  ConstValue T;
  T.kind = ConstValue::Kind::Tuple;
  T.elems = {ConstValue::ofInt(1)};
  EXPECT_EQ(T.repr(), "(1,)");
  ConstValue Z;
  Z.kind = ConstValue::Kind::Complex;
  Z.f = 1;
  Z.imag = -2;
  EXPECT_EQ(Z.repr(), "(1-2j)");
  EXPECT_FALSE(ConstValue::ofFloat(0.0) == ConstValue::ofFloat(-0.0));
  EXPECT_TRUE(ConstValue::ofFloat(2.5) == ConstValue::ofFloat(2.5));
  EXPECT_FALSE(ConstValue::ofInt(1) == ConstValue::ofBool(true));
  EXPECT_TRUE(T == T);
}

TEST(BytecodeTables, DumpFormat) {
  DecodedCode C = decodeFixture("3.11", "kwcall");
  std::string D = C.dump();
  int L = fixture("3.11", "kwcall").raw.firstLineNo;
  auto Line = [&](int Off) { return std::to_string(L + Off); };
  std::string Expect =
      "# kwcall  (gen_bytecode_fixtures.py:" + std::to_string(L) +
      ", 1 arg)\n"
      "   0 L" +
      Line(2) +
      "   PUSH_NULL\n"
      "   1 L" +
      Line(2) +
      "   LOAD_GLOBAL          0 (helper)\n"
      "   2 L" +
      Line(2) +
      "   LOAD_FAST            0 (x)\n"
      "   3 L" +
      Line(2) +
      "   LOAD_CONST           1 (2)\n"
      "   4 L" +
      Line(2) +
      "   CALL                 2 pair kw=('b',)\n"
      "   5 L" +
      Line(2) + "   STORE_FAST           1 (y)\n";
  EXPECT_EQ(D.substr(0, Expect.size()), Expect) << D;
  Instr J;
  J.op = Op::JUMP;
  J.target = 17;
  EXPECT_TRUE(J.isJump());
  EXPECT_TRUE(J.isTerminator());
  DecodedCode One;
  One.qualname = "f";
  One.instrs.push_back(J);
  EXPECT_NE(One.dump().find("JUMP                 -> 17"), std::string::npos)
      << One.dump();
}

} // namespace
} // namespace pcj::bc
