// Tests for stage 4, type inference (compiler/typeinfer), on the fixtures
// recorded from CPython 3.10-3.13
// (tests/unit/fixtures/gen_bytecode_fixtures.py), for every version:
//   TypeInferSample.*  per (version, sample, all-int64 / all-float64 /
//                      all-int32 arguments): the return type NumPy 2 / NEP 50
//                      rules give (Python literals are weak: int32 + 1 stays
//                      int32, int32 / int32 is float64), every value typed,
//                      or a CompileError of the expected kind at a line the
//                      generator marks (`# <typing`, `# <typing_float`); the
//                      typed IR, run by support/IRInterpreter with the
//                      inferred types applied, still gives CPython's results
//                      (int64 / float64; int32 where nothing wrapped), up to
//                      the value-preserving conversion to the inferred return
//                      type (`return 10` joined with float64 gives 10.0);
//   TypeInferFocused.* per (version, row): promotion corner cases with mixed
//                      argument types (float32 * 2.0 stays float32, int16 +
//                      float32 is float32, uint64 + int64 is float64, ...);
//   TypeInferTable.*   every supported sample has expectations.
#include "bytecode/Decoder.h"
#include "cfg/CFG.h"
#include "ssa/SSABuilder.h"
#include "stdlib/Registry.h"
#include "support/Diagnostics.h"
#include "support/IRInterpreter.h"
#include "support/RawCodeFixture.h"
#include "typeinfer/TypeInfer.h"
#include "types/BFloat16.h"
#include "types/Fp8.h"
#include "types/Promotion.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

namespace pcj::typeinfer {
namespace {

using test::BytecodeFixture;
using types::TypeRef;

const std::vector<std::string> kVersions = {"3.10", "3.11", "3.12", "3.13"};

const BytecodeFixture &fixture(const std::string &Version,
                               const std::string &Name) {
  static std::map<std::string, BytecodeFixture> Cache;
  std::string Key = Version + "/" + Name;
  auto It = Cache.find(Key);
  if (It == Cache.end())
    It = Cache.emplace(Key, test::loadBytecodeFixture(Version, Name)).first;
  return It->second;
}

std::unique_ptr<ir::Function> buildFunction(const bc::RawCode &Raw) {
  bc::DecodedCode C = bc::decode(Raw);
  cfg::CFG G = cfg::buildCFG(C);
  return ssa::buildSSA(C, G);
}

// The environment as a table: the builtins the samples use, `math`, and
// the constant globals / closure variables the fixture recorded.
class FakeResolver : public ir::Resolver {
public:
  explicit FakeResolver(const BytecodeFixture &F) : F(F) {}
  ir::CTValue global(const std::string &Name) override {
    for (const char *B :
         {"range", "abs", "min", "max", "len", "float", "int", "bool"})
      if (Name == B)
        return ir::CTValue::intrinsic(Name);
    if (Name == "math")
      return ir::CTValue::module("math", 1);
    for (const auto &[N, C] : F.globals)
      if (N == Name)
        return ir::CTValue::constant(C);
    return ir::CTValue::invalid();
  }
  ir::CTValue deref(const std::string &Name) override {
    for (const auto &[N, C] : F.derefs)
      if (N == Name)
        return ir::CTValue::constant(C);
    return ir::CTValue::invalid();
  }
  ir::CTValue attribute(const ir::CTValue &, const std::string &) override {
    return ir::CTValue::invalid();
  }
  ir::CalleeInfo callee(const ir::CTValue &Fn) override {
    ADD_FAILURE() << "no device functions here: " << Fn.repr();
    return {};
  }

private:
  const BytecodeFixture &F;
};

// What inferring one specialisation should give.
struct Expect {
  std::string ret;                    // the return type, or "" for an error
  ErrorKind kind = ErrorKind::Typing; // the error's kind
  std::string mark;                   // the error's line: a `# <mark` line
};
Expect R(std::string T) { return {std::move(T), ErrorKind::Typing, ""}; }
Expect E(ErrorKind K, std::string Mark) { return {"", K, std::move(Mark)}; }
const Expect TypingErr = E(ErrorKind::Typing, "typing");
const Expect FloatErr = E(ErrorKind::Typing, "typing_float");
const Expect NameErr = E(ErrorKind::Name, "typing");

// ---- standard specialisations: all arguments int64 / float64 / int32 ------

struct Row {
  std::string sample;
  Expect i64, f64, i32;
};

// math.sqrt(x) + math.floor(x * 2.5): a float64 once the registry has
// math.floor, else floor is an unknown attribute of `math`.
const Expect kMathFloor =
    stdlib::lookupIntrinsic("math.floor") ? R("float64") : NameErr;

// Worked out by hand from NEP 50: literals (and constant globals) are weak
// and take the other operand's type within their kind; `/` of integers is
// float64; int32 with float64 is float64; a phi / several returns join
// their types the same way.
const std::vector<Row> kRows = {
    {"arith", R("float64"), FloatErr, R("float64")},
    {"augassign", TypingErr, TypingErr, TypingErr}, // x /= 2; x <<= 1
    {"if_elif_else", R("int64"), R("int64"), R("int64")},
    {"while_else", R("int64"), R("int64"), R("int64")},
    {"for_ranges", R("int64"), FloatErr, R("int32")},
    {"nested_loops", R("int64"), FloatErr, R("int32")},
    {"bool_ops", R("bool"), R("bool"), R("bool")},
    {"ternary", R("int64"), R("float64"), R("int32")},
    {"chained_compare", R("bool"), R("bool"), R("bool")},
    {"tuples", R("Tuple(UniTuple(int64 x 3), int64)"),
     R("Tuple(Tuple(float64, float64, int64), float64)"),
     R("Tuple(Tuple(int32, int32, int64), int32)")},
    {"kwcall", NameErr, NameErr, NameErr}, // helper: a Python function
    {"method_call", kMathFloor, kMathFloor, kMathFloor},
    {"closure_read", R("int64"), R("float64"), R("int32")},
    {"globals_read", R("float64"), R("float64"), R("float64")},
    {"early_return", R("int64"), FloatErr, R("int32")},
    {"nested_calls", NameErr, NameErr, NameErr}, // print
    {"unary_ops", R("Tuple(int64, int64, int64, bool)"), FloatErr,
     R("Tuple(int32, int32, int32, bool)")},
    {"long_code", R("int64"), R("float64"), R("int32")},
    {"bool_values", R("Tuple(int64, int64, int64, bool)"),
     R("Tuple(float64, float64, float64, bool)"),
     R("Tuple(int32, int32, int32, bool)")},
    {"stack_join", R("int64"), R("float64"), R("int32")},
    {"loops_mix", R("UniTuple(int64 x 2)"), FloatErr, R("UniTuple(int32 x 2)")},
    {"augassign_int", R("int64"), FloatErr, R("int32")},
    {"augassign_float", R("float64"), R("float64"), R("float64")},
    {"lit_ops",
     R("Tuple(int64, float64, float64, int64, int64, int64, int64, int64)"),
     R("UniTuple(float64 x 8)"),
     R("Tuple(int32, float64, float64, int32, int32, int32, int32, int32)")},
    {"mixed_ops", R("Tuple(int64, int64, int64, float64, bool, int64, int64)"),
     R("Tuple(float64, float64, float64, float64, bool, float64, float64)"),
     R("Tuple(int32, int32, int32, float64, bool, int32, int32)")},
    {"builtin_calls",
     R("Tuple(int64, float64, bool, int64, int64, int64, int64)"),
     R("Tuple(int64, float64, bool, float64, int64, float64, float64)"),
     R("Tuple(int64, float64, bool, int32, int64, int32, int32)")},
    {"phi_return", R("int64"), R("float64"), R("int32")},
    {"phi_join", R("int64"), R("float64"), R("int32")},
    {"phi_loop", R("int64"), FloatErr, R("int32")},
    {"lit_join", R("int64"), R("float64"), R("int32")}, // 1 or x
    {"bad_phi", TypingErr, TypingErr, TypingErr},       // (1, 2) or 3
    {"bad_loop_phi", TypingErr, TypingErr, TypingErr},  // 0, then (t, i)
    {"bad_return", TypingErr, TypingErr, TypingErr},    // 1.5 or (1, 2)
    // Locals assigned on some paths: typed from their assignments.
    {"unbound_after_loop", R("int64"), FloatErr, R("int32")},
    {"unbound_branch", R("int64"), R("float64"), R("int32")},
    {"unbound_nested", R("int64"), FloatErr, R("int32")},
    {"unbound_prev", R("int64"), FloatErr, R("int32")},
    {"unbound_for_else", R("int64"), FloatErr, R("int32")},
    // x = x + 1: no assignment can run before the read.
    {"unbound_never", NameErr, NameErr, NameErr},
    // A 33-element tuple display; len(t) is an int64.
    {"long_tuple", R("int64"), R("float64"), R("int64")},
};

// Supported samples without a row, and why.
const std::map<std::string, std::string> kNoRow = {
    {"assert_raise", "rejected by the SSA builder"},
    {"attr_chain", "rejected by the SSA builder"},
    {"constants", "holds bytes and frozenset constants (typing rejects them)"},
    {"is_in_none", "`a in b` needs a tuple or range argument"},
    {"subscripts", "needs array arguments"},
    {"slices", "needs array arguments"},
    {"lambda_capture", "calls a nested function (needs the glue's resolver)"},
    {"nested_def", "calls a nested function (needs the glue's resolver)"},
};

enum class Config { I64, F64, I32 };
const char *configName(Config C) {
  return C == Config::I64 ? "i64" : C == Config::F64 ? "f64" : "i32";
}
TypeRef configType(Config C) {
  return C == Config::I64   ? types::int64Ty()
         : C == Config::F64 ? types::float64Ty()
                            : types::int32Ty();
}

struct SampleParam {
  std::string version;
  size_t row;
  Config config;
};
void PrintTo(const SampleParam &P, std::ostream *OS) {
  *OS << P.version << "/" << kRows[P.row].sample << "/" << configName(P.config);
}

std::vector<SampleParam> allParams() {
  std::vector<SampleParam> Out;
  for (const std::string &V : kVersions)
    for (size_t K = 0; K < kRows.size(); ++K)
      for (Config C : {Config::I64, Config::F64, Config::I32})
        Out.push_back({V, K, C});
  return Out;
}

std::string paramName(const std::string &V) {
  std::string S = "py" + V;
  std::replace(S.begin(), S.end(), '.', '_');
  return S;
}

std::string joinLines(const std::vector<int> &Ls) {
  std::string S;
  for (int L : Ls)
    S += (S.empty() ? "" : ",") + std::to_string(L);
  return S;
}

// Infers `F` for `Args` and checks the outcome against `Want`.  Returns the
// typed function when typing succeeded as expected, else null.
std::unique_ptr<ir::Function> inferAndCheck(const BytecodeFixture &Fx,
                                            const std::vector<TypeRef> &Args,
                                            const Expect &Want) {
  std::unique_ptr<ir::Function> F = buildFunction(Fx.raw);
  std::string Untyped = F->print(false);
  FakeResolver Res(Fx);
  Options O;
  O.isKernel = false;
  try {
    inferTypes(*F, Args, Res, O);
  } catch (const CompileError &Err) {
    if (!Want.ret.empty()) {
      ADD_FAILURE() << "typing failed: " << Err.what() << "\n" << Untyped;
      return nullptr;
    }
    std::vector<int> Lines = Fx.marked(Want.mark);
    EXPECT_FALSE(Lines.empty()) << "no `# <" << Want.mark << "` mark";
    EXPECT_EQ(Err.kind(), Want.kind) << Err.what();
    EXPECT_NE(std::find(Lines.begin(), Lines.end(), Err.loc().line),
              Lines.end())
        << Err.what() << " (marked lines " << joinLines(Lines) << ")\n"
        << Untyped;
    EXPECT_EQ(Err.loc().fileName(), Fx.raw.filename);
    return nullptr;
  }
  if (Want.ret.empty()) {
    ADD_FAILURE() << "expected a " << errorKindPythonName(Want.kind)
                  << ", typed as\n"
                  << F->print(true);
    return nullptr;
  }
  std::string Typed = F->print(true);
  SCOPED_TRACE(Typed);
  EXPECT_NO_THROW(ir::verify(*F, /*Typed=*/true));
  for (const ir::Block *B : F->blocks)
    for (const ir::Instr *I : B->instrs) {
      bool Valueless = I->op == ir::Op::Jump || I->op == ir::Op::Branch ||
                       I->op == ir::Op::Undef;
      EXPECT_TRUE(Valueless || I->type) << "untyped %" << I->id;
    }
  for (size_t K = 0; K < Args.size(); ++K)
    EXPECT_EQ(F->params[K].type, Args[K]);
  if (!F->returnType) {
    ADD_FAILURE() << "no return type";
    return nullptr;
  }
  EXPECT_EQ(F->returnType->str(), Want.ret);
  // Every Return converts to the function's return type.
  for (const ir::Block *B : F->blocks) {
    const ir::Instr *T = B->instrs.back();
    if (T->op != ir::Op::Return)
      continue;
    TypeRef To = T->argTypes.empty() || !T->argTypes[0] ? T->operands[0]->type
                                                        : T->argTypes[0];
    EXPECT_EQ(To, F->returnType) << "return %" << T->id;
  }
  // Deterministic typed dump.
  std::unique_ptr<ir::Function> Again = buildFunction(Fx.raw);
  inferTypes(*Again, Args, Res, O);
  EXPECT_EQ(Again->print(true), Typed);
  return F;
}

// CPython's result as a value of the inferred type `T`, when that keeps its
// value (`return 10` joined with a float64 is 10.0); false if it does not.
bool asInferred(const test::Value &V, TypeRef T, test::Value &Out) {
  using VK = test::Value::Kind;
  Out = V;
  if (!T)
    return true;
  switch (T->kind()) {
  case types::Kind::Float: {
    if (V.kind == VK::Float)
      return true;
    if (V.kind != VK::Int && V.kind != VK::Bool)
      return false;
    int64_t X = V.kind == VK::Bool ? V.b : V.i;
    Out = test::Value::ofFloat(double(X));
    return (long double)Out.f == (long double)X;
  }
  case types::Kind::Int: {
    if (V.kind == VK::Bool)
      Out = test::Value::ofInt(V.b);
    else if (V.kind != VK::Int)
      return false;
    if (T->bits() >= 64)
      return true;
    int64_t Lo = -(int64_t(1) << (T->bits() - 1)), Hi = -Lo - 1;
    return Out.i >= Lo && Out.i <= Hi;
  }
  case types::Kind::Tuple: {
    if (V.kind != VK::Tuple || V.elems.size() != T->elems().size())
      return false;
    for (size_t K = 0; K < V.elems.size(); ++K)
      if (!asInferred(V.elems[K], T->elems()[K], Out.elems[K]))
        return false;
    return true;
  }
  default:
    return true;
  }
}

class TypeInferSample : public ::testing::TestWithParam<SampleParam> {};

TEST_P(TypeInferSample, ReturnTypeAndTypedResults) {
  const SampleParam &P = GetParam();
  const Row &Rw = kRows[P.row];
  const BytecodeFixture &Fx = fixture(P.version, Rw.sample);
  const Expect &Want = P.config == Config::I64   ? Rw.i64
                       : P.config == Config::F64 ? Rw.f64
                                                 : Rw.i32;
  std::vector<TypeRef> Args(Fx.raw.argCount, configType(P.config));
  std::unique_ptr<ir::Function> F = inferAndCheck(Fx, Args, Want);
  if (!F)
    return;
  // Run the typed IR on the recorded inputs of this configuration's kind.
  size_t Compared = 0, Candidates = 0;
  for (const test::FixtureCase &C : Fx.cases) {
    bool Fits = !C.args.empty();
    for (const bc::ConstValue &A : C.args) {
      if (P.config == Config::F64)
        Fits = Fits && A.kind == bc::ConstValue::Kind::Float;
      else
        Fits =
            Fits && A.kind == bc::ConstValue::Kind::Int &&
            (P.config == Config::I64 || (A.i >= INT32_MIN && A.i <= INT32_MAX));
    }
    if (!Fits)
      continue;
    ++Candidates;
    std::vector<test::Value> In;
    for (const bc::ConstValue &A : C.args)
      In.push_back(test::fromConst(A));
    test::InterpOptions O;
    O.typed = true;
    test::InterpStats St;
    test::Value Got;
    std::string Err;
    try {
      Got = test::interpret(*F, In, test::sampleEnv(Fx), O, &St);
    } catch (const test::PyError &X) {
      Err = X.type;
    } catch (const test::InterpError &X) {
      ADD_FAILURE() << X.what() << "\n" << F->print(true);
      continue;
    }
    if (P.config == Config::I32 && St.intWraps > 0)
      continue; // int32 arithmetic left the range: not Python's result
    ++Compared;
    if (!C.raises.empty()) {
      EXPECT_EQ(Err, C.raises);
      continue;
    }
    ASSERT_EQ(Err, "") << F->print(true);
    test::Value Python = test::fromConst(C.result), Expected;
    ASSERT_TRUE(asInferred(Python, F->returnType, Expected))
        << "CPython's " << test::repr(Python) << " is not a "
        << F->returnType->str();
    EXPECT_TRUE(test::sameValue(Got, Expected))
        << "inputs #" << Candidates << ": CPython " << test::repr(Python)
        << ", typed IR " << test::repr(Got) << "\n"
        << F->print(true);
  }
  if (P.config != Config::I32) {
    EXPECT_EQ(Compared, Candidates);
  }
  if (P.config == Config::I64) {
    EXPECT_GT(Compared, 0u) << "no int inputs recorded for " << Rw.sample;
  }
}

INSTANTIATE_TEST_SUITE_P(TypeInfer, TypeInferSample,
                         ::testing::ValuesIn(allParams()),
                         [](const ::testing::TestParamInfo<SampleParam> &I) {
                           return paramName(I.param.version) + "_" +
                                  kRows[I.param.row].sample + "_" +
                                  configName(I.param.config);
                         });

// ---- focused promotion cases ------------------------------------------------

struct FocusRow {
  std::string sample;
  std::vector<std::string> args; // scalar type names
  Expect want;
};

const std::vector<FocusRow> kFocus = {
    // float32 stays float32 with Python literals: * 2.0, / 2, ** 2, // 3.
    {"lit_ops", {"float32"}, R("UniTuple(float32 x 8)")},
    {"lit_ops",
     {"int8"},
     R("Tuple(int8, float64, float64, int8, int8, int8, int8, int8)")},
    {"lit_ops",
     {"uint8"},
     R("Tuple(uint8, float64, float64, uint8, uint8, uint8, uint8, uint8)")},
    // bool is the narrowest integer: True + 1 is an int64.
    {"lit_ops",
     {"bool"},
     R("Tuple(int64, float64, float64, int64, int64, int64, int64, int64)")},
    {"mixed_ops",
     {"int32", "float32"},
     R("Tuple(float64, float64, float64, float64, bool, float64, float64)")},
    {"mixed_ops",
     {"int16", "float32"},
     R("Tuple(float32, float32, float32, float32, bool, float32, float32)")},
    {"mixed_ops",
     {"float32", "float32"},
     R("Tuple(float32, float32, float32, float32, bool, float32, float32)")},
    {"mixed_ops",
     {"int8", "uint8"},
     R("Tuple(int16, int16, int16, float64, bool, int16, int16)")},
    {"mixed_ops",
     {"uint32", "int32"},
     R("Tuple(int64, int64, int64, float64, bool, int64, int64)")},
    {"mixed_ops",
     {"uint64", "int64"},
     R("Tuple(float64, float64, float64, float64, bool, float64, float64)")},
    {"mixed_ops",
     {"int64", "float32"},
     R("Tuple(float64, float64, float64, float64, bool, float64, float64)")},
    {"mixed_ops",
     {"float32", "float64"},
     R("Tuple(float64, float64, float64, float64, bool, float64, float64)")},
    {"builtin_calls",
     {"float32", "float32"},
     R("Tuple(int64, float64, bool, float32, int64, float32, float32)")},
    // Joins: a phi, or two returns (3.13 may duplicate the return).
    {"phi_return", {"int64", "int32", "float32"}, R("float64")},
    {"phi_return", {"bool", "int16", "int8"}, R("int16")},
    {"phi_join", {"bool", "int16", "float32"}, R("float32")},
    {"phi_loop", {"int32", "float32"}, R("float32")}, // s = 0, then s + x
    {"phi_loop", {"int64", "int8"}, R("int8")},
    {"early_return", {"int8"}, R("int8")}, // return -1 / i / 0
    {"lit_join", {"bool", "int8"}, R("int8")},
    {"lit_join", {"bool", "float32"}, R("float32")},
    {"ternary", {"float32"}, R("float32")},
    {"globals_read", {"float32"}, R("float32")}, // x * G_SCALE + counter
    {"closure_read", {"float32", "float32"}, R("float32")},
    {"for_ranges", {"int16"}, R("int16")},
    {"augassign_int", {"int8", "int8"}, R("int8")},
    {"augassign_float", {"float32", "float32"}, R("float32")},
    {"bad_phi", {"bool"}, TypingErr},
};

struct FocusParam {
  std::string version;
  size_t row;
};
void PrintTo(const FocusParam &P, std::ostream *OS) {
  *OS << P.version << "/" << kFocus[P.row].sample;
}

class TypeInferFocused : public ::testing::TestWithParam<FocusParam> {};

TEST_P(TypeInferFocused, Promotion) {
  const FocusRow &Rw = kFocus[GetParam().row];
  const BytecodeFixture &Fx = fixture(GetParam().version, Rw.sample);
  std::vector<TypeRef> Args;
  for (const std::string &N : Rw.args) {
    TypeRef T = types::scalarFromName(N);
    ASSERT_NE(T, nullptr) << N;
    Args.push_back(T);
  }
  ASSERT_EQ(Args.size(), size_t(Fx.raw.argCount));
  inferAndCheck(Fx, Args, Rw.want);
}

std::vector<FocusParam> focusParams() {
  std::vector<FocusParam> Out;
  for (const std::string &V : kVersions)
    for (size_t K = 0; K < kFocus.size(); ++K)
      Out.push_back({V, K});
  return Out;
}

INSTANTIATE_TEST_SUITE_P(TypeInfer, TypeInferFocused,
                         ::testing::ValuesIn(focusParams()),
                         [](const ::testing::TestParamInfo<FocusParam> &I) {
                           std::string S = paramName(I.param.version) + "_" +
                                           kFocus[I.param.row].sample;
                           for (const std::string &A : kFocus[I.param.row].args)
                             S += "_" + A;
                           return S;
                         });

// ---- the tables cover the samples -------------------------------------------

TEST(TypeInferTable, EverySupportedSampleHasExpectations) {
  std::set<std::string> Rows;
  for (const Row &Rw : kRows)
    EXPECT_TRUE(Rows.insert(Rw.sample).second) << "duplicate " << Rw.sample;
  for (const std::string &N : test::bytecodeFixtureNames("3.10")) {
    if (!fixture("3.10", N).expectOk)
      continue;
    EXPECT_TRUE(Rows.count(N) || kNoRow.count(N))
        << N << " has no type expectations";
    EXPECT_FALSE(Rows.count(N) && kNoRow.count(N)) << N;
  }
  for (const FocusRow &F : kFocus)
    EXPECT_TRUE(Rows.count(F.sample)) << F.sample;
}

// The typed interpreter applies the inferred types: int8 arithmetic wraps,
// float32 rounds after every operation (checked against C++'s own float).
TEST(TypeInferTable, TypedInterpreterAppliesTypes) {
  for (const std::string &V : kVersions) {
    const BytecodeFixture &Fx = fixture(V, "lit_ops");
    test::InterpOptions O;
    O.typed = true;
    auto Run = [&](TypeRef T, test::Value X, test::InterpStats &St) {
      std::unique_ptr<ir::Function> F = buildFunction(Fx.raw);
      FakeResolver Res(Fx);
      inferTypes(*F, {T}, Res, {false});
      return test::interpret(*F, {X}, {}, O, &St);
    };
    using test::Value;
    test::InterpStats St8;
    // x + 1, x * 2.0, x / 2, x // 3, x % 3, x ** 2, -x, abs(x) at int8 100:
    // 100 ** 2 = 10000 wraps to 16.
    Value R8 = Run(types::intTy(8), Value::ofInt(100), St8);
    Value W8 =
        Value::tuple({Value::ofInt(101), Value::ofFloat(200.0),
                      Value::ofFloat(50.0), Value::ofInt(33), Value::ofInt(1),
                      Value::ofInt(16), Value::ofInt(-100), Value::ofInt(100)});
    EXPECT_TRUE(test::sameValue(R8, W8)) << V << ": " << test::repr(R8);
    EXPECT_GT(St8.intWraps, 0u);
    test::InterpStats St8b;
    Value Top = Run(types::intTy(8), Value::ofInt(127), St8b);
    EXPECT_TRUE(test::sameValue(Top.elems.at(0), Value::ofInt(-128)))
        << test::repr(Top);

    test::InterpStats St32;
    Value R32 = Run(types::float32Ty(), Value::ofFloat(0.1), St32);
    float X = 0.1f;
    auto F32 = [](float F) { return Value::ofFloat(double(F)); };
    Value W32 = Value::tuple({F32(X + 1.0f), F32(X * 2.0f), F32(X / 2.0f),
                              F32(0.0f), F32(X), F32(X * X), F32(-X), F32(X)});
    EXPECT_TRUE(test::sameValue(R32, W32))
        << V << ": " << test::repr(R32) << " vs " << test::repr(W32);
    EXPECT_EQ(St32.intWraps, 0u);
  }
}

// A phi that joins a tuple and an int names the join's line and both types.
TEST(TypeInferTable, IncompatiblePhiMessage) {
  for (const std::string &V : kVersions) {
    const BytecodeFixture &Fx = fixture(V, "bad_loop_phi");
    std::unique_ptr<ir::Function> F = buildFunction(Fx.raw);
    FakeResolver Res(Fx);
    try {
      inferTypes(*F, {types::int64Ty()}, Res, {false});
      ADD_FAILURE() << V << ": no error";
    } catch (const CompileError &E) {
      EXPECT_EQ(E.kind(), ErrorKind::Typing) << V;
      EXPECT_NE(E.message().find("int64"), std::string::npos) << E.what();
      EXPECT_NE(E.message().find("Tuple"), std::string::npos) << E.what();
      EXPECT_GT(E.loc().line, 0);
    }
  }
}

} // namespace
} // namespace pcj::typeinfer

// Scalar typestrs round-trip; record types print their layout (cache keys
// depend on it: two dtypes with equal fields but other offsets or alignment
// must not share compiled code).
TEST(TypeTable, TypestrsAndRecordLayouts) {
  using namespace pcj::types;
  for (const char *TS : {"|b1", "|i1", "|u1", "<i2", "<u4", "<i8", "<f2", "<f4",
                         "<f8", "<c8", "<c16"}) {
    TypeRef T = scalarFromTypestr(TS);
    ASSERT_NE(T, nullptr) << TS;
    EXPECT_EQ(typestrOf(T), TS);
  }
  EXPECT_EQ(scalarFromTypestr(">f4"), nullptr);
  EXPECT_EQ(scalarFromTypestr("|V8"), nullptr);
  TypeRef Aligned =
      recordTy({"x", "n"}, {float64Ty(), intTy(8)}, {0, 8}, 16, 8);
  TypeRef Packed = recordTy({"x", "n"}, {float64Ty(), intTy(8)}, {0, 8}, 9, 1);
  EXPECT_NE(Aligned, Packed);
  EXPECT_EQ(Aligned,
            recordTy({"x", "n"}, {float64Ty(), intTy(8)}, {0, 8}, 16, 8));
  EXPECT_EQ(Aligned->str(),
            "Record(x: float64 @0, n: int8 @8; 16 bytes, align 8)");
  EXPECT_EQ(Packed->str(),
            "Record(x: float64 @0, n: int8 @8; 9 bytes, align 1)");
  EXPECT_EQ(Aligned->fieldIndex("n"), 1);
  EXPECT_EQ(Aligned->fieldIndex("q"), -1);
  TypeRef P = namedTupleTy("Point", {"x", "y"}, {float64Ty(), int64Ty()});
  EXPECT_TRUE(P->isTuple());
  EXPECT_NE(P, tupleTy({float64Ty(), int64Ty()}));
  EXPECT_EQ(P->str(), "Point(x: float64, y: int64)");
}

TEST(TypeTable, Fp8TypesAreOneByteAndNotNumeric) {
  using namespace pcj::types;
  TypeRef E4 = fp8Ty(Fp8Format::E4M3), E5 = fp8Ty(Fp8Format::E5M2),
          E8 = fp8Ty(Fp8Format::E8M0);
  EXPECT_NE(E4, E5);
  EXPECT_NE(E5, E8);
  EXPECT_EQ(E4, scalarFromName("fp8_e4m3"));
  EXPECT_EQ(E8, scalarFromName("fp8_e8m0"));
  EXPECT_EQ(E5->str(), "fp8_e5m2");
  EXPECT_EQ(fp8Format(E5), Fp8Format::E5M2);
  EXPECT_EQ(E4->byteSize(), 1u);
  EXPECT_TRUE(isFp8(E8) && E8->isRuntime());
  // no arithmetic, no implicit conversions: not a number, not an int
  EXPECT_FALSE(E4->isNumeric() || E4->isInt() || E4->isFloat());
  EXPECT_FALSE(isFp8(intTy(8, false)));
}

TEST(TypeTable, BFloat16IsItsOwnFloatAndPromotes) {
  using namespace pcj::types;
  TypeRef BF = bfloat16Ty(), H = floatTy(16);
  EXPECT_NE(BF, H);
  EXPECT_EQ(BF, scalarFromName("bfloat16"));
  EXPECT_TRUE(BF->isFloat() && isBFloat16(BF) && !isBFloat16(H));
  EXPECT_EQ(BF->str(), "bfloat16");
  EXPECT_EQ(BF->byteSize(), 2u);
  auto P = [](TypeRef A, bool WeakA, TypeRef B, bool WeakB) {
    return promote({A, WeakA}, {B, WeakB});
  };
  EXPECT_EQ(P(BF, false, BF, false), BF);
  EXPECT_EQ(P(BF, false, intTy(8), false), BF); // int8 fits exactly
  EXPECT_EQ(P(BF, false, intTy(8, false), false), BF);
  EXPECT_EQ(P(BF, false, boolTy(), false), BF);
  EXPECT_EQ(P(BF, false, intTy(16), false), float32Ty());
  EXPECT_EQ(P(BF, false, int32Ty(), false), float64Ty());
  EXPECT_EQ(P(BF, false, H, false), float32Ty()); // neither holds the other
  EXPECT_EQ(P(H, false, BF, false), float32Ty());
  EXPECT_EQ(P(BF, false, float32Ty(), false), float32Ty());
  EXPECT_EQ(P(BF, false, float64Ty(), true), BF); // Python literals stay weak
  EXPECT_EQ(P(int64Ty(), true, BF, false), BF);
  EXPECT_EQ(P(BF, false, complexTy(128), true), complexTy(64));
  EXPECT_TRUE(canCastSafely(BF, float32Ty()));
  EXPECT_FALSE(canCastSafely(H, BF));
  EXPECT_FALSE(canCastSafely(BF, H));
}
