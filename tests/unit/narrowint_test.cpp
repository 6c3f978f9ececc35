// Tests for the NVPTX late passes on 16-bit values: WidenNarrowInts (i8/i16
// abs, and with widenNarrowArithmetic add/sub/mul/shl, done in 32 bits in
// inline PTX) and LoneHalfOps (float16 operations that cannot pair up into
// a multiply-add lose their .rn).  Inputs are hand-written LLVM IR; the PTX
// comes from emitPtx, as the driver calls it.
#include "codegen/Codegen.h"
#include "codegen/LoneHalfOps.h"
#include "codegen/WidenNarrowInts.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <regex>

using namespace pcj::codegen;

namespace {

// r[0] = x op y, r[1] = abs(x) (i16), r[2] = abs(int8) widened.
const char *kNarrowIR = R"(
define void @k(ptr addrspace(1) %p, ptr addrspace(1) %w) {
  %x = load i16, ptr addrspace(1) %p
  %q = getelementptr i16, ptr addrspace(1) %p, i64 1
  %y = load i16, ptr addrspace(1) %q
  %b = trunc i16 %y to i8
  %s = add i16 %x, %y
  %m = mul i16 %x, %y
  %l = shl i16 %x, 3
  %a = call i16 @llvm.abs.i16(i16 %x, i1 false)
  %c = call i8 @llvm.abs.i8(i8 %b, i1 false)
  %sw = sext i16 %s to i64
  %mw = sext i16 %m to i64
  %lw = sext i16 %l to i64
  %aw = sext i16 %a to i64
  %cw = sext i8 %c to i64
  %t1 = add i64 %sw, %mw
  %t2 = add i64 %t1, %lw
  %t3 = add i64 %t2, %aw
  %t4 = add i64 %t3, %cw
  store i64 %t4, ptr addrspace(1) %w
  ret void
}
declare i16 @llvm.abs.i16(i16, i1)
declare i8 @llvm.abs.i8(i8, i1)
)";

std::unique_ptr<llvm::Module> parse(llvm::LLVMContext &Ctx, const char *IR) {
  llvm::SMDiagnostic Err;
  auto M = llvm::parseAssemblyString(IR, Err, Ctx);
  EXPECT_TRUE(M) << Err.getMessage().str();
  return M;
}

std::string ptxOf(const char *IR, bool WidenAll) {
  llvm::LLVMContext Ctx;
  auto M = parse(Ctx, IR);
  configureForNvptx(*M, 9, 0);
  NvptxOptions O;
  O.kernelNames = {"k"};
  O.widenNarrowArithmetic = WidenAll;
  return emitPtx(*M, O).ptx;
}

unsigned count(const std::string &Text, const std::string &Pattern) {
  std::regex Re(Pattern);
  return std::distance(std::sregex_iterator(Text.begin(), Text.end(), Re),
                       std::sregex_iterator());
}

TEST(WidenNarrowInts, AbsIsNever16Bit) {
  std::string Ptx = ptxOf(kNarrowIR, false);
  EXPECT_EQ(count(Ptx, R"(abs\.s(8|16))"), 0u) << Ptx;
  EXPECT_EQ(count(Ptx, R"(abs\.s32)"), 2u) << Ptx;
  // The other operations stay 16-bit unless asked.
  EXPECT_GE(count(Ptx, R"(\b(add|mul\.lo)\.s16)"), 2u) << Ptx;
}

TEST(WidenNarrowInts, AllArithmeticIn32BitsReSignExtended) {
  llvm::LLVMContext Ctx;
  auto M = parse(Ctx, kNarrowIR);
  // add, mul, shl, two abs
  EXPECT_EQ(widenNarrowInts(*M, true), 5u);
  std::string Ptx = ptxOf(kNarrowIR, true);
  EXPECT_EQ(count(Ptx, R"(\b(abs|add|sub|mul\.lo|shl)\.[sb](8|16)\b)"), 0u)
      << Ptx;
  EXPECT_EQ(count(Ptx, R"(cvt\.s32\.s16 %r)"), 3u) << Ptx;
}

TEST(WidenNarrowInts, VectorAbsOneElementAtATime) {
  const char *IR = R"(
define void @k(ptr addrspace(1) %p) {
  %v = load <2 x i16>, ptr addrspace(1) %p
  %a = call <2 x i16> @llvm.abs.v2i16(<2 x i16> %v, i1 false)
  store <2 x i16> %a, ptr addrspace(1) %p
  ret void
}
declare <2 x i16> @llvm.abs.v2i16(<2 x i16>, i1)
)";
  std::string Ptx = ptxOf(IR, false);
  EXPECT_EQ(count(Ptx, R"(abs\.s(8|16))"), 0u) << Ptx;
  EXPECT_EQ(count(Ptx, R"(abs\.s32)"), 2u) << Ptx;
}

TEST(WidenNarrowInts, NegationIsNever16Bit) {
  // -x of an int16 (neg.s16 widened by cvt.s64.s16 gave +32768 for -32768
  // on the H200, as abs.s16 did): always done in 32 bits; a subtraction of
  // two values stays 16-bit unless asked.
  const char *IR = R"(
define void @k(ptr addrspace(1) %p, ptr addrspace(1) %w) {
  %x = load i16, ptr addrspace(1) %p
  %q = getelementptr i16, ptr addrspace(1) %p, i64 1
  %y = load i16, ptr addrspace(1) %q
  %n = sub i16 0, %x
  %d = sub i16 %x, %y
  %nw = sext i16 %n to i64
  %dw = sext i16 %d to i64
  %t = add i64 %nw, %dw
  store i64 %t, ptr addrspace(1) %w
  ret void
}
)";
  std::string Ptx = ptxOf(IR, false);
  EXPECT_EQ(count(Ptx, R"(neg\.s(8|16))"), 0u) << Ptx;
  EXPECT_EQ(count(Ptx, R"(cvt\.s32\.s16 %r)"), 1u) << Ptx;
  EXPECT_EQ(count(Ptx, R"(\bsub\.s16)"), 1u) << Ptx;
}

TEST(WidenNarrowInts, VectorNegationOneElementAtATime) {
  const char *IR = R"(
define void @k(ptr addrspace(1) %p) {
  %v = load <2 x i16>, ptr addrspace(1) %p
  %n = sub <2 x i16> zeroinitializer, %v
  store <2 x i16> %n, ptr addrspace(1) %p
  ret void
}
)";
  llvm::LLVMContext Ctx;
  auto M = parse(Ctx, IR);
  EXPECT_EQ(widenNarrowInts(*M, false), 1u);
  std::string Ptx = ptxOf(IR, false);
  EXPECT_EQ(count(Ptx, R"(neg\.s(8|16))"), 0u) << Ptx;
  EXPECT_EQ(count(Ptx, R"(cvt\.s32\.s16 %r)"), 2u) << Ptx;
}

// A lone sum and a lone product lose .rn; a product feeding a sum keeps it
// on both (ptxas fuses a mul and an add only when neither has it).
TEST(LoneHalfOps, OnlyOperationsThatCannotPairLoseRn) {
  const char *IR = R"(
define void @k(ptr addrspace(1) %p) {
  %a = load half, ptr addrspace(1) %p
  %q = getelementptr half, ptr addrspace(1) %p, i64 1
  %b = load half, ptr addrspace(1) %q
  %s = fadd half %a, %b
  %m = fmul half %a, %b
  %n = fmul half %b, %b
  %t = fsub half %n, %a
  store half %s, ptr addrspace(1) %p
  store half %m, ptr addrspace(1) %q
  %r = getelementptr half, ptr addrspace(1) %p, i64 2
  store half %t, ptr addrspace(1) %r
  ret void
}
)";
  llvm::LLVMContext Ctx;
  auto M = parse(Ctx, IR);
  EXPECT_EQ(markLoneHalfOps(*M), 2u); // %s and %m
  std::string Ptx = ptxOf(IR, false);
  EXPECT_EQ(count(Ptx, R"(add\.f16)"), 1u) << Ptx;
  EXPECT_EQ(count(Ptx, R"(mul\.f16)"), 1u) << Ptx;
  EXPECT_EQ(count(Ptx, R"(mul\.rn\.f16)"), 1u) << Ptx;
  EXPECT_EQ(count(Ptx, R"(sub\.rn\.f16)"), 1u) << Ptx;
}

} // namespace
