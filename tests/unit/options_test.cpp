// The compile options are declared once (driver/CompileOptions.def): every
// row must reach the cache key.  Each test changes one row's value and
// checks that the key changes, first the options' key text, then the whole
// key of an analysis (a device function, compiled for the GPU on its own).
#include "driver/Compile.h"
#include "driver/StageOptions.h"
#include "support/Diagnostics.h"
#include "support/RawCodeFixture.h"
#include "types/Type.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace pcj::driver {
namespace {

// Another value of each option type.
void change(bool &V) { V = !V; }
void change(int &V) { V += 1; }
void change(unsigned &V) { V ^= 1u; }
void change(uint8_t &V) { V ^= 1u; }
void change(char &V) { V = V == 'a' ? 'f' : 'a'; }
void change(std::string &V) { V += "x"; }
void change(Backend &V) {
  V = V == Backend::CUDA ? Backend::CPU : Backend::CUDA;
}

// A name per row and the options with that row changed.
struct Changed {
  std::string field;
  CompileOptions options;
};

std::vector<Changed> eachRowChanged(const CompileOptions &Base) {
  std::vector<Changed> Out;
#define PCJ_COMPILE_OPTION(Type, Field, Default, Doc)                          \
  {                                                                            \
    CompileOptions O = Base;                                                   \
    change(O.Field);                                                           \
    Out.push_back({#Field, O});                                                \
  }
#include "driver/CompileOptions.def"
  return Out;
}

class NoGlobals : public ir::Resolver {
public:
  ir::CTValue global(const std::string &) override {
    return ir::CTValue::invalid();
  }
  ir::CTValue deref(const std::string &) override {
    return ir::CTValue::invalid();
  }
  ir::CTValue attribute(const ir::CTValue &, const std::string &) override {
    return ir::CTValue::invalid();
  }
  ir::CalleeInfo callee(const ir::CTValue &) override { return {}; }
};

TEST(CompileOptions, EveryRowIsInTheKeyText) {
  CompileOptions Base;
  std::string BaseText = optionsKeyText(Base);
  std::vector<Changed> Rows = eachRowChanged(Base);
  EXPECT_GE(Rows.size(), 20u);
  std::set<std::string> Texts{BaseText};
  for (const Changed &C : Rows) {
    std::string Text = optionsKeyText(C.options);
    EXPECT_NE(Text, BaseText) << C.field << " is missing from the cache key";
    EXPECT_NE(Text.find(C.field + "="), std::string::npos) << C.field;
    Texts.insert(Text);
  }
  EXPECT_EQ(Texts.size(), Rows.size() + 1) << "two rows give the same key text";
}

// A text option's value cannot run into the next option's.
TEST(CompileOptions, KeyTextIsUnambiguous) {
  CompileOptions A, B;
  A.gpuTarget = "x;hostTarget=0:";
  B.hostTarget = "";
  B.gpuTarget = "x";
  EXPECT_NE(optionsKeyText(A), optionsKeyText(B));
}

TEST(CompileOptions, EveryRowChangesTheCacheKey) {
  test::BytecodeFixture Fx = test::loadBytecodeFixture("3.11", "arith");
  std::vector<types::TypeRef> Args{types::int64Ty(), types::int64Ty()};
  CompileOptions Base;
  Base.deviceFunction = true; // arith returns a value
  auto Key = [&](const CompileOptions &O) {
    NoGlobals R;
    return cacheKey(*analyzeKernel(Fx.raw, Args, R, O));
  };
  std::string BaseKey = Key(Base);
  // A device function is compiled for the GPU only, and as a kernel arith
  // returns a value: these rows cannot change alone (their key text does).
  const std::set<std::string> Invalid = {"backend", "deviceFunction"};
  for (const Changed &C : eachRowChanged(Base)) {
    if (Invalid.count(C.field)) {
      EXPECT_THROW(Key(C.options), CompileError) << C.field;
      continue;
    }
    EXPECT_NE(Key(C.options), BaseKey)
        << C.field << " is missing from the cache key";
  }
}

// The stages' structs take their rows from the table: each row a stage
// reads, changed in the compile options, arrives changed in that stage's
// options (driver/StageOptions.h), with the table's name and type.
TEST(CompileOptions, StageStructsTakeTheirRowsFromTheTable) {
  const CompileOptions Base;
  int Lower = 0, Nvptx = 0, Host = 0;
#define PCJ_COMPILE_OPTION(Type, Field, Default, Doc)
#define PCJ_LOWER_OPTION(Type, Field, Default, Doc)                            \
  {                                                                            \
    CompileOptions O = Base;                                                   \
    change(O.Field);                                                           \
    lower::LowerOptions S = lowerOptions(O);                                   \
    static_assert(std::is_same_v<decltype(S.Field), Type>);                    \
    EXPECT_EQ(S.Field, O.Field) << #Field " (lowering)";                       \
    EXPECT_EQ(lower::LowerOptions().Field, Base.Field) << #Field;              \
    ++Lower;                                                                   \
  }
#define PCJ_NVPTX_OPTION(Type, Field, Default, Doc)                            \
  {                                                                            \
    CompileOptions O = Base;                                                   \
    change(O.Field);                                                           \
    codegen::NvptxOptions S = nvptxOptions(O);                                 \
    static_assert(std::is_same_v<decltype(S.Field), Type>);                    \
    EXPECT_EQ(S.Field, O.Field) << #Field " (NVPTX)";                          \
    EXPECT_EQ(codegen::NvptxOptions().Field, Base.Field) << #Field;            \
    ++Nvptx;                                                                   \
  }
#define PCJ_HOST_ROW(Type, Field, Default, Doc)                                \
  {                                                                            \
    CompileOptions O = Base;                                                   \
    change(O.Field);                                                           \
    codegen::HostOptions S = hostOptions(O);                                   \
    static_assert(std::is_same_v<decltype(S.Field), Type>);                    \
    EXPECT_EQ(S.Field, O.Field) << #Field " (host)";                           \
    EXPECT_EQ(codegen::HostOptions().Field, Base.Field) << #Field;             \
    ++Host;                                                                    \
  }
#define PCJ_LOWER_NVPTX_OPTION(Type, Field, Default, Doc)                      \
  PCJ_LOWER_OPTION(Type, Field, Default, Doc)                                  \
  PCJ_NVPTX_OPTION(Type, Field, Default, Doc)
#define PCJ_CODEGEN_OPTION(Type, Field, Default, Doc)                          \
  PCJ_NVPTX_OPTION(Type, Field, Default, Doc)                                  \
  PCJ_HOST_ROW(Type, Field, Default, Doc)
#define PCJ_ALL_STAGES_OPTION(Type, Field, Default, Doc)                       \
  PCJ_LOWER_OPTION(Type, Field, Default, Doc)                                  \
  PCJ_NVPTX_OPTION(Type, Field, Default, Doc)                                  \
  PCJ_HOST_ROW(Type, Field, Default, Doc)
#include "driver/CompileOptions.def"
#undef PCJ_HOST_ROW
  EXPECT_GE(Lower, 9);
  EXPECT_GE(Nvptx, 10);
  EXPECT_GE(Host, 2);
}

// What the stages derive from several rows.
TEST(CompileOptions, StageStructsDeriveTheRest) {
  CompileOptions O;
  O.backend = Backend::CPU;
  O.lineInfo = true;
  O.sanitize = 1;
  O.noAliasReadOnly = true;
  O.deviceFunction = true;
  lower::LowerOptions L = lowerOptions(O, {true, false}, "k");
  EXPECT_EQ(L.target, Backend::CPU);
  EXPECT_FALSE(L.lineInfo); // line tables are for the GPU tools
  EXPECT_TRUE(L.sanitize);
  EXPECT_TRUE(L.sanitizeSync);
  EXPECT_EQ(L.noAliasReadOnly, (std::vector<bool>{true, false}));
  EXPECT_EQ(L.kernelName, "k");
  EXPECT_TRUE(L.deviceEntry);
  O.backend = Backend::CUDA;
  O.noAliasReadOnly = false;
  EXPECT_TRUE(lowerOptions(O).lineInfo);
  EXPECT_TRUE(lowerOptions(O, {true}).noAliasReadOnly.empty());
  O.lineInfo = false;
  O.debugInfo = true;
  EXPECT_TRUE(nvptxOptions(O).lineInfo); // kept for the debug info
  EXPECT_TRUE(nvptxOptions(O, true).keepOptimizedIR);
  EXPECT_TRUE(hostOptions(O).cancelPoints);
}

} // namespace
} // namespace pcj::driver
