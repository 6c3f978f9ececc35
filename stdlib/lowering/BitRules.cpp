// Lowering rules for bit operations and cuda.selp (registry/cuda.def): LLVM
// intrinsics, the same on both targets (NVPTX: popc, brev, clz, bfind/brev
// for ffs; the host: popcnt, lzcnt, tzcnt where the CPU has them).
#include "stdlib/lowering/CudaHelpers.h"

#include "lower/Arith.h"

#include <llvm/IR/Intrinsics.h>

namespace pcj::stdlib::lowering {

using namespace types;

llvm::Value *lowerBitOp(const LoweringRequest &R) {
  auto &B = R.cx.b;
  llvm::Value *X = R.args[0];
  switch (R.info.idata) {
  case 0:
    return B.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, X);
  case 1:
    return B.CreateUnaryIntrinsic(llvm::Intrinsic::bitreverse, X);
  case 2:
    return B.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, X, B.getFalse());
  default: { // ffs: cttz(x) + 1, 0 for x == 0
    llvm::Value *Tz =
        B.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, X, B.getFalse());
    llvm::Value *Pos =
        B.CreateAdd(B.CreateZExtOrTrunc(Tz, B.getInt32Ty()), B.getInt32(1));
    llvm::Value *Zero =
        B.CreateICmpEQ(X, llvm::ConstantInt::get(X->getType(), 0));
    return B.CreateSelect(Zero, B.getInt32(0), Pos);
  }
  }
}

// popcount of the magnitude: -x of a negative signed x, taken as unsigned,
// is |x| also for the most negative value.
llvm::Value *lowerBitCount(const LoweringRequest &R) {
  auto &B = R.cx.b;
  TypeRef T = R.argTypes[0];
  llvm::Value *X = R.args[0];
  if (T->isBool())
    return B.CreateZExt(X, B.getInt64Ty());
  if (T->isSigned()) {
    llvm::Value *Neg =
        B.CreateICmpSLT(X, llvm::ConstantInt::get(X->getType(), 0));
    X = B.CreateSelect(Neg, B.CreateNeg(X), X);
  }
  llvm::Value *N = B.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, X);
  return B.CreateZExtOrTrunc(N, B.getInt64Ty());
}

llvm::Value *lowerNpInvert(const LoweringRequest &R) {
  return R.cx.b.CreateNot(R.args[0]); // all bits: ~x, or not of an i1 bool
}

llvm::Value *lowerNpCompare(const LoweringRequest &R) {
  static const bc::CmpKind Kinds[] = {bc::CmpKind::Lt, bc::CmpKind::Le,
                                      bc::CmpKind::Eq, bc::CmpKind::Ne,
                                      bc::CmpKind::Gt, bc::CmpKind::Ge};
  bc::CmpKind K = Kinds[R.info.idata];
  TypeRef T = R.argTypes[0];
  if (!T->isComplex() || K == bc::CmpKind::Eq || K == bc::CmpKind::Ne)
    return lower::lowerCompare(R.cx, K, T, R.args[0], R.args[1]);
  // NumPy orders complex numbers lexicographically: real parts decide
  // unless equal, then the imaginary parts (any NaN: false).
  auto &B = R.cx.b;
  llvm::Value *Ra = lower::complexRe(R.cx, R.args[0]),
              *Rb = lower::complexRe(R.cx, R.args[1]);
  llvm::Value *Ia = lower::complexIm(R.cx, R.args[0]),
              *Ib = lower::complexIm(R.cx, R.args[1]);
  bool Less = K == bc::CmpKind::Lt || K == bc::CmpKind::Le;
  bool OrEqual = K == bc::CmpKind::Le || K == bc::CmpKind::Ge;
  llvm::Value *Strict =
      Less ? B.CreateFCmpOLT(Ra, Rb) : B.CreateFCmpOGT(Ra, Rb);
  llvm::Value *Tie = B.CreateFCmpOEQ(Ra, Rb);
  llvm::Value *Im =
      Less ? (OrEqual ? B.CreateFCmpOLE(Ia, Ib) : B.CreateFCmpOLT(Ia, Ib))
           : (OrEqual ? B.CreateFCmpOGE(Ia, Ib) : B.CreateFCmpOGT(Ia, Ib));
  llvm::Value *NoNan =
      B.CreateAnd(B.CreateFCmpORD(Ia, Ib), B.CreateFCmpORD(Ra, Rb));
  return B.CreateAnd(NoNan, B.CreateOr(Strict, B.CreateAnd(Tie, Im)));
}

llvm::Value *lowerNpLogical(const LoweringRequest &R) {
  auto &B = R.cx.b;
  llvm::Value *A = R.cx.truth(R.args[0], R.argTypes[0]);
  if (R.info.idata == 3)
    return B.CreateNot(A);
  llvm::Value *C = R.cx.truth(R.args[1], R.argTypes[1]);
  return R.info.idata == 0   ? B.CreateAnd(A, C)
         : R.info.idata == 1 ? B.CreateOr(A, C)
                             : B.CreateXor(A, C);
}

llvm::Value *lowerNpBitwise(const LoweringRequest &R) {
  auto &B = R.cx.b;
  return R.info.idata == 0   ? B.CreateAnd(R.args[0], R.args[1])
         : R.info.idata == 1 ? B.CreateOr(R.args[0], R.args[1])
                             : B.CreateXor(R.args[0], R.args[1]);
}

llvm::Value *lowerSelp(const LoweringRequest &R) {
  llvm::Value *P = R.cx.truth(R.args[0], R.argTypes[0]);
  return R.cx.b.CreateSelect(P, R.args[1], R.args[2]);
}

} // namespace pcj::stdlib::lowering
