// WidenNarrowInts (NVPTX only, after optimisation): 8- and 16-bit integer
// operations that ptxas mistranslates are done on 32-bit registers inside
// inline PTX, which LLVM cannot narrow back.
//
// PTX keeps an i8/i16 value in a 16-bit register that ptxas holds in a
// 32-bit one.  After `abs.s16`, ptxas takes the 32-bit absolute value for
// the sign-extended 16-bit result and drops a later `cvt.s64.s16`:
// abs(int16(-32768)) stored into an int64 array gave +32768 on the H200
// (NumPy: -32768).  LLVM turns any widened form (sext, abs.i32, trunc) back
// into abs.s16, so the 32-bit operation is hidden in an asm statement:
//
//   %r = call i16 @llvm.abs.i16(i16 %x, i1 false)
// becomes
//   %w = sext i16 %x to i32
//   %a = call i32 asm "abs.s32 $0, $1;", "=r,r"(i32 %w)
//   %r = trunc i32 %a to i16          ; cvt.u16.u32: the low half, -32768
//
// A negation (`sub 0, x`, neg.s16) has the same fault on the H200 and is
// always widened like the arithmetic below.  With `AllArithmetic`
// (NvptxOptions::widenNarrowArithmetic, PYCUDA_JIT_NVPTX_WIDEN_NARROW=1;
// off: the H200 has shown only abs and neg wrong, add/sub/mul/shl right) add,
// sub, mul and shl of i8/i16 are also done in i32 and their result
// re-sign-extended from the narrow width by an asm `cvt.s32.s16` /
// `cvt.s32.s8`, so each 16-bit register ptxas sees holds its value
// sign-extended to 32 bits.
#include "codegen/WidenNarrowInts.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

#include <vector>

namespace pcj::codegen {

namespace {

bool isNarrow(llvm::Type *T) { return T->isIntegerTy(8) || T->isIntegerTy(16); }

// asm "<Text>" on one i32 operand giving an i32.
llvm::Value *asm32(llvm::IRBuilder<> &B, const char *Text, llvm::Value *V) {
  auto *FT = llvm::FunctionType::get(B.getInt32Ty(), {B.getInt32Ty()}, false);
  auto *Asm = llvm::InlineAsm::get(FT, Text, "=r,r", /*hasSideEffects=*/false);
  return B.CreateCall(FT, Asm, {V});
}

llvm::Value *abs16(llvm::IRBuilder<> &B, llvm::Value *X) {
  llvm::Value *Wide = B.CreateSExt(X, B.getInt32Ty());
  return B.CreateTrunc(asm32(B, "abs.s32 $0, $1;", Wide), X->getType());
}

// A vector abs (from the SLP vectorizer) one element at a time: NVPTX
// would split it into abs.s16 anyway.
llvm::Value *widenAbs(llvm::IRBuilder<> &B, llvm::IntrinsicInst *Abs) {
  llvm::Value *X = Abs->getArgOperand(0);
  auto *VT = llvm::dyn_cast<llvm::FixedVectorType>(X->getType());
  if (!VT)
    return abs16(B, X);
  llvm::Value *R = llvm::PoisonValue::get(VT);
  for (unsigned K = 0; K < VT->getNumElements(); ++K)
    R = B.CreateInsertElement(R, abs16(B, B.CreateExtractElement(X, K)), K);
  return R;
}

// add/sub/mul/shl of narrow scalars X and Y in i32, re-sign-extended.
llvm::Value *widenScalar(llvm::IRBuilder<> &B, unsigned Opcode, llvm::Value *X,
                         llvm::Value *Y) {
  llvm::Type *T = X->getType();
  llvm::Value *A = B.CreateSExt(X, B.getInt32Ty());
  // A shift amount is unsigned (the lowering keeps it below the width).
  llvm::Value *C = Opcode == llvm::Instruction::Shl
                       ? B.CreateZExt(Y, B.getInt32Ty())
                       : B.CreateSExt(Y, B.getInt32Ty());
  llvm::Value *R = B.CreateBinOp(llvm::Instruction::BinaryOps(Opcode), A, C);
  const char *Cvt =
      T->isIntegerTy(8) ? "cvt.s32.s8 $0, $1;" : "cvt.s32.s16 $0, $1;";
  return B.CreateTrunc(asm32(B, Cvt, R), T);
}

// Op in i32 (a vector one element at a time).
llvm::Value *widenArithmetic(llvm::IRBuilder<> &B, llvm::BinaryOperator *Op) {
  unsigned Opc = Op->getOpcode();
  llvm::Value *X = Op->getOperand(0), *Y = Op->getOperand(1);
  auto *VT = llvm::dyn_cast<llvm::FixedVectorType>(Op->getType());
  if (!VT)
    return widenScalar(B, Opc, X, Y);
  llvm::Value *R = llvm::PoisonValue::get(VT);
  for (unsigned K = 0; K < VT->getNumElements(); ++K)
    R = B.CreateInsertElement(R,
                              widenScalar(B, Opc, B.CreateExtractElement(X, K),
                                          B.CreateExtractElement(Y, K)),
                              K);
  return R;
}

bool widened(llvm::Instruction &I, bool AllArithmetic) {
  if (auto *II = llvm::dyn_cast<llvm::IntrinsicInst>(&I))
    return II->getIntrinsicID() == llvm::Intrinsic::abs &&
           isNarrow(I.getType()->getScalarType());
  // A negation (neg.s16) has abs's fault: -int16(-32768) widened to int64
  // gave +32768 on the H200 (session 5's probe); always widened, also as a
  // vector (from the SLP vectorizer: one element at a time).
  if (I.getOpcode() == llvm::Instruction::Sub &&
      isNarrow(I.getType()->getScalarType()))
    if (auto *C = llvm::dyn_cast<llvm::Constant>(I.getOperand(0)))
      if (C->isNullValue())
        return true;
  if (!isNarrow(I.getType()))
    return false;
  if (!AllArithmetic)
    return false;
  switch (I.getOpcode()) {
  case llvm::Instruction::Add:
  case llvm::Instruction::Sub:
  case llvm::Instruction::Mul:
  case llvm::Instruction::Shl:
    return true;
  default:
    return false;
  }
}

} // namespace

unsigned widenNarrowInts(llvm::Module &M, bool AllArithmetic) {
  std::vector<llvm::Instruction *> Work;
  for (llvm::Function &F : M)
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB)
        if (widened(I, AllArithmetic))
          Work.push_back(&I);
  for (llvm::Instruction *I : Work) {
    llvm::IRBuilder<> B(I);
    llvm::Value *R =
        llvm::isa<llvm::IntrinsicInst>(I)
            ? widenAbs(B, llvm::cast<llvm::IntrinsicInst>(I))
            : widenArithmetic(B, llvm::cast<llvm::BinaryOperator>(I));
    R->takeName(I);
    I->replaceAllUsesWith(R);
    I->eraseFromParent();
  }
  return Work.size();
}

} // namespace pcj::codegen
