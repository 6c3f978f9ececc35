// Tests for codegen's FuseMultiplyAdd (the contraction rule, decided once
// for both targets) and for the backends fusing nothing else: NVPTX emits
// .rn on every unfused multiply/add, the host widens float16 fma so that it
// rounds once.  Inputs are hand-written textual LLVM IR.
#include "codegen/Codegen.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/ValueSymbolTable.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstring>
#include <regex>

using namespace pcj::codegen;

namespace {

std::unique_ptr<llvm::Module> parse(llvm::LLVMContext &Ctx,
                                    const std::string &Text) {
  llvm::SMDiagnostic Err;
  auto M = llvm::parseAssemblyString(Text, Err, Ctx);
  if (!M) {
    std::string S;
    llvm::raw_string_ostream OS(S);
    Err.print("test", OS);
    ADD_FAILURE() << "IR does not parse: " << OS.str();
  }
  return M;
}

std::string text(const llvm::Module &M) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  M.print(OS, nullptr);
  return S;
}

llvm::Value *named(llvm::Function &F, const char *Name) {
  return F.getValueSymbolTable()->lookup(Name);
}

// Whether V is llvm.fma(A, B, C) where a null expectation matches anything
// and "-x" means fneg of the argument named x.
::testing::AssertionResult isFma(llvm::Function &F, const char *Name,
                                 const char *A, const char *B, const char *C) {
  auto *Call = llvm::dyn_cast_or_null<llvm::IntrinsicInst>(named(F, Name));
  if (!Call || Call->getIntrinsicID() != llvm::Intrinsic::fma)
    return ::testing::AssertionFailure() << "%" << Name << " is not an fma";
  const char *Want[] = {A, B, C};
  for (unsigned K = 0; K < 3; ++K) {
    if (!Want[K])
      continue;
    llvm::Value *V = Call->getArgOperand(K);
    std::string Got;
    if (auto *N = llvm::dyn_cast<llvm::UnaryOperator>(V);
        N && N->getOpcode() == llvm::Instruction::FNeg)
      Got = "-" + N->getOperand(0)->getName().str();
    else
      Got = V->getName().str();
    if (Got != Want[K])
      return ::testing::AssertionFailure()
             << "%" << Name << " operand " << K << " is " << Got << ", not "
             << Want[K];
  }
  return ::testing::AssertionSuccess();
}

unsigned countContract(const llvm::Module &M) {
  unsigned N = 0;
  for (const llvm::Function &F : M)
    for (const llvm::BasicBlock &BB : F)
      for (const llvm::Instruction &I : BB)
        N += llvm::isa<llvm::FPMathOperator>(&I) && I.hasAllowContract();
  return N;
}

const char *kPatterns = R"(
declare float @g(float)
define void @f(float %a, float %b, float %c, float %d, ptr %out, i1 %k) {
entry:
  %p = fmul contract float %a, %b
  %q = fmul contract float %c, %d
  %r0 = fadd contract float %p, %c
  %r1 = fadd contract float %c, %p
  %r2 = fsub contract float %p, %c
  %r3 = fsub contract float %c, %p
  %np = fneg float %p
  %r4 = fadd contract float %np, %c
  %r5 = fadd contract float %p, %q
  %r6 = fadd contract float %r5, %q
  %pd = fpext float %p to double
  %cd = fpext float %c to double
  %r7 = fadd contract double %pd, %cd
  %gp = call float @g(float %a)
  %r8 = fadd contract float %gp, %c
  %plain = fmul float %a, %d
  %r9 = fadd contract float %plain, %c
  %r10 = fadd float %q, %c
  %t0 = insertvalue { float, float } undef, float %q, 0
  %t1 = insertvalue { float, float } %t0, float %c, 1
  %e0 = extractvalue { float, float } %t1, 0
  %e1 = extractvalue { float, float } %t1, 1
  %r11 = fadd contract float %e1, %e0
  store float %p, ptr %out
  br i1 %k, label %then, label %join
then:
  %r12 = fsub contract float %d, %q
  br label %join
join:
  %m = phi float [ %p, %entry ], [ %q, %then ]
  %r13 = fadd contract float %m, %d
  ret void
}
)";

TEST(FuseMultiplyAdd, TheRule) {
  llvm::LLVMContext Ctx;
  auto M = parse(Ctx, kPatterns);
  ASSERT_TRUE(M);
  FuseStats S = fuseMultiplyAdds(*M, Contraction::Rule);
  llvm::Function &F = *M->getFunction("f");
  SCOPED_TRACE(text(*M));
  EXPECT_TRUE(isFma(F, "r0", "a", "b", "c"));   // (a*b) + c
  EXPECT_TRUE(isFma(F, "r1", "a", "b", "c"));   // c + (a*b)
  EXPECT_TRUE(isFma(F, "r2", "a", "b", "-c"));  // (a*b) - c
  EXPECT_TRUE(isFma(F, "r3", "-a", "b", "c"));  // c - (a*b)
  EXPECT_TRUE(isFma(F, "r4", "-a", "b", "c"));  // -(a*b) + c
  EXPECT_TRUE(isFma(F, "r5", "a", "b", "q"));   // the left product
  EXPECT_TRUE(isFma(F, "r6", "c", "d", "r5"));  // an fma is no product
  EXPECT_TRUE(isFma(F, "r11", "c", "d", "e1")); // through a tuple
  EXPECT_TRUE(isFma(F, "r12", "-c", "d", "d")); // in another block
  // Not fused: a conversion, a call, a multiply or add without `contract`,
  // a phi.
  for (const char *Name : {"r7", "r8", "r9", "r10", "r13"})
    EXPECT_TRUE(llvm::isa<llvm::BinaryOperator>(named(F, Name))) << Name;
  EXPECT_EQ(S.fused, 9u);
  // %p is still stored; no `contract` is left for a backend to act on.
  EXPECT_TRUE(llvm::isa<llvm::BinaryOperator>(named(F, "p")));
  EXPECT_EQ(countContract(*M), 0u);
}

TEST(FuseMultiplyAdd, DeadProductsGoAndEveryFloatTypeFuses) {
  const char *IR = R"(
define <2 x double> @f(half %a, half %b, half %c, double %x, double %y,
                       <2 x double> %u, <2 x double> %v, ptr %out) {
  %p = fmul contract half %a, %b
  %s = fadd contract half %p, %c
  store half %s, ptr %out
  %q = fmul contract double %x, %y
  %t = fsub contract double %q, %x
  store double %t, ptr %out
  %w = fmul contract <2 x double> %u, %v
  %z = fadd contract <2 x double> %w, %u
  ret <2 x double> %z
}
)";
  llvm::LLVMContext Ctx;
  auto M = parse(Ctx, IR);
  ASSERT_TRUE(M);
  EXPECT_EQ(fuseMultiplyAdds(*M, Contraction::Rule).fused, 3u);
  llvm::Function &F = *M->getFunction("f");
  EXPECT_TRUE(isFma(F, "s", "a", "b", "c"));
  EXPECT_TRUE(isFma(F, "t", "x", "y", "-x"));
  EXPECT_TRUE(isFma(F, "z", "u", "v", "u"));
  std::string T = text(*M);
  EXPECT_EQ(T.find("fmul"), std::string::npos) << T; // no other use: erased
}

TEST(FuseMultiplyAdd, OffAndKeepFlags) {
  llvm::LLVMContext Ctx;
  auto Off = parse(Ctx, kPatterns);
  ASSERT_TRUE(Off);
  unsigned Before = countContract(*Off);
  EXPECT_GT(Before, 10u);
  EXPECT_EQ(fuseMultiplyAdds(*Off, Contraction::Off).fused, 0u);
  EXPECT_EQ(countContract(*Off), 0u);
  EXPECT_EQ(text(*Off).find("llvm.fma"), std::string::npos);

  auto Keep = parse(Ctx, kPatterns);
  ASSERT_TRUE(Keep);
  EXPECT_EQ(fuseMultiplyAdds(*Keep, Contraction::RuleKeepFlags).fused, 9u);
  EXPECT_GT(countContract(*Keep), 0u);
}

TEST(FuseMultiplyAdd, AlwaysInlineCalleesJoinTheirCallers) {
  const char *IR = R"(
define internal float @mul_inline(float %x, float %y) alwaysinline {
  %m = fmul contract float %x, %y
  ret float %m
}
define internal float @mul(float %x, float %y) {
  %m = fmul contract float %x, %y
  ret float %m
}
define float @f(float %a, float %b, float %c) {
  %i = call float @mul_inline(float %a, float %b)
  %r0 = fadd contract float %i, %c
  %n = call float @mul(float %a, float %b)
  %r1 = fadd contract float %n, %c
  %r = fadd float %r0, %r1
  ret float %r
}
)";
  llvm::LLVMContext Ctx;
  auto M = parse(Ctx, IR);
  ASSERT_TRUE(M);
  fuseMultiplyAdds(*M, Contraction::Rule);
  llvm::Function &F = *M->getFunction("f");
  SCOPED_TRACE(text(*M));
  EXPECT_TRUE(isFma(F, "r0", "a", "b", "c"));
  EXPECT_TRUE(llvm::isa<llvm::BinaryOperator>(named(F, "r1")));
  EXPECT_EQ(countContract(*M), 0u);
}

// ---- the backends fuse nothing on their own ---------------------------------

const char *kNvptxMulAdd = R"(
define ptx_kernel void @k(ptr %p, float %a, float %b, float %c) {
  %m = fmul CONTRACT float %a, %b
  %s = fadd CONTRACT float %m, %c
  %t = fsub CONTRACT float %s, %b
  store float %t, ptr %p
  ret void
}
)";

std::string ptxFor(const std::string &IR, bool FastMath = false,
                   bool Fmad = true) {
  llvm::LLVMContext Ctx;
  auto M = parse(Ctx, IR);
  if (!M)
    return "";
  configureForNvptx(*M, 9, 0);
  NvptxOptions O;
  O.kernelNames = {"k"};
  O.fastMath = FastMath;
  O.fmad = Fmad;
  return emitPtx(*M, O).ptx;
}

std::string withFlag(const char *IR, const char *Flag) {
  return std::regex_replace(std::string(IR), std::regex("CONTRACT"), Flag);
}

size_t count(const std::string &S, const std::string &What) {
  size_t N = 0;
  for (size_t At = S.find(What); At != std::string::npos;
       At = S.find(What, At + 1))
    ++N;
  return N;
}

TEST(FuseMultiplyAdd, NvptxEmitsRnWhereNothingIsMarked) {
  std::string Plain = ptxFor(withFlag(kNvptxMulAdd, ""));
  EXPECT_EQ(count(Plain, "fma."), 0u) << Plain;
  EXPECT_EQ(count(Plain, "mul.rn.f32"), 1u) << Plain;
  EXPECT_EQ(count(Plain, "add.rn.f32"), 1u) << Plain;
  EXPECT_EQ(count(Plain, "sub.rn.f32"), 1u) << Plain;
  // `contract` (what fastmath leaves) still fuses in the backend.
  std::string Marked = ptxFor(withFlag(kNvptxMulAdd, "contract"));
  EXPECT_EQ(count(Marked, "fma.rn.f32"), 1u) << Marked;
  // fastmath: the backend and ptxas fuse freely (no .rn).
  std::string Fast = ptxFor(withFlag(kNvptxMulAdd, ""), /*FastMath=*/true);
  EXPECT_EQ(count(Fast, "fma.rn"), 1u) << Fast;
  EXPECT_EQ(count(Fast, "sub.rn"), 0u) << Fast;
}

TEST(FuseMultiplyAdd, LibdeviceContractsOnlyWithFmad) {
  // libdevice's own plain multiply-adds fuse as NVVM compiles them (-fma=1);
  // with fmad=False every one of them carries .rn.
  const char *IR = R"(
declare float @__nv_powf(float, float)
define ptx_kernel void @k(ptr %p, float %a) {
  %s = call float @__nv_powf(float %a, float %a)
  store float %s, ptr %p
  ret void
}
)";
  std::string On = ptxFor(IR), Off = ptxFor(IR, false, /*Fmad=*/false);
  EXPECT_GT(count(On, "fma.rn.f32"), count(Off, "fma.rn.f32"));
  std::regex Unrounded(R"((add|sub|mul)\.f32)");
  EXPECT_FALSE(std::regex_search(Off, Unrounded)) << Off;
}

TEST(FuseMultiplyAdd, HostHalfFmaRoundsOnce) {
  // fma(683/512, 3/4, 2^-24) = 1 + 2^-11 + 2^-24: one rounding gives
  // 1 + 2^-10 (0x3c01); a float32 fma rounded again to half gives 1.0.
  const char *IR = R"(
declare half @llvm.fma.f16(half, half, half)
define void @f(ptr %out, ptr %in) {
  %pb = getelementptr half, ptr %in, i64 1
  %pc = getelementptr half, ptr %in, i64 2
  %a = load half, ptr %in
  %b = load half, ptr %pb
  %c = load half, ptr %pc
  %r = call half @llvm.fma.f16(half %a, half %b, half %c)
  store half %r, ptr %out
  ret void
}
)";
  auto Ctx = std::make_unique<llvm::LLVMContext>();
  auto M = parse(*Ctx, IR);
  ASSERT_TRUE(M);
  configureForHost(*M);
  HostOptions HO;
  HO.keepOptimizedIR = true;
  auto R = jitForHost(std::move(M), std::move(Ctx), HO, {"f"});
  EXPECT_EQ(R->optimizedIR.find("llvm.fma.f16"), std::string::npos)
      << R->optimizedIR;
  EXPECT_NE(R->optimizedIR.find("llvm.fma.f64"), std::string::npos)
      << R->optimizedIR;
  uint16_t In[3] = {0x3d56, 0x3a00, 0x0001}, Out = 0;
  reinterpret_cast<void (*)(uint16_t *, const uint16_t *)>(R->entry("f"))(&Out,
                                                                          In);
  EXPECT_EQ(Out, 0x3c01);
}

} // namespace
