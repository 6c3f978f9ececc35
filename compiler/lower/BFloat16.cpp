// Conversions to bfloat16 in target-independent LLVM IR.
//
// A bfloat16 is the upper half of a float32, so float32 -> bfloat16 in any
// rounding mode is integer arithmetic on the float's bits (the carry out of
// the significand steps the exponent, up to infinity).  Round to nearest
// from float32 is LLVM's fptrunc (one cvt.rn.bf16.f32 on sm_80+; the host
// calls __truncsfbf2, HostBackend.cpp), as is float64 to nearest (NVPTX
// rounds to odd through float32 or uses cvt.rn.bf16.f64; the host's
// __truncdfbf2 does the same).  Everything else goes through a float32
// rounded to odd -- exact when the value fits, otherwise the truncated
// value with its last bit set -- which keeps enough information for the
// final rounding to be correct in every mode (24 >= 8 + 2 bits).  LLVM's
// own int -> bfloat16 rounds twice on sm_80 and on the host (through a
// float32 rounded to nearest), so integers never take it.
//
//   before:  (int64 %x to bfloat16, rounding up)
//   after:   |x| >> s with the lost bits or-ed into bit 0, uitofp, * 2**s
//            (a float32 rounded to odd), then (bits >> 16) + (low bits != 0
//            and x > 0)
#include "lower/BFloat16.h"

#include <llvm/IR/Intrinsics.h>

namespace pcj::lower {

using types::TypeRef;

namespace {

// A float32 rounded to bfloat16 by Mode, through its bits.
llvm::Value *roundFloatBits(llvm::IRBuilder<> &B, llvm::Value *F,
                            BF16Round Mode) {
  llvm::Type *I32 = B.getInt32Ty();
  llvm::Value *Bits = B.CreateBitCast(F, I32);
  llvm::Value *Hi = B.CreateLShr(Bits, 16);
  llvm::Value *Lo = B.CreateAnd(Bits, 0xFFFF);
  llvm::Value *Inexact = B.CreateICmpNE(Lo, B.getInt32(0));
  llvm::Value *Negative = B.CreateICmpSLT(Bits, B.getInt32(0));
  llvm::Value *Inc = B.getFalse(); // toward zero: never
  switch (Mode) {
  case BF16Round::Nearest: {
    llvm::Value *Odd = B.CreateICmpNE(B.CreateAnd(Hi, 1), B.getInt32(0));
    llvm::Value *Half = B.getInt32(0x8000);
    Inc = B.CreateOr(B.CreateICmpUGT(Lo, Half),
                     B.CreateAnd(B.CreateICmpEQ(Lo, Half), Odd));
    break;
  }
  case BF16Round::Zero:
    break;
  case BF16Round::Up:
    Inc = B.CreateAnd(Inexact, B.CreateNot(Negative));
    break;
  case BF16Round::Down:
    Inc = B.CreateAnd(Inexact, Negative);
    break;
  }
  llvm::Value *R = B.CreateAdd(Hi, B.CreateZExt(Inc, I32));
  R = B.CreateSelect(B.CreateFCmpUNO(F, F), B.getInt32(0x7FFF), R);
  return B.CreateBitCast(B.CreateTrunc(R, B.getInt16Ty()), B.getBFloatTy());
}

// A float64 as a float32 rounded to odd.
llvm::Value *doubleToFloatOdd(llvm::IRBuilder<> &B, llvm::Value *D) {
  llvm::Value *F = B.CreateFPTrunc(D, B.getFloatTy());
  llvm::Value *Back = B.CreateFPExt(F, B.getDoubleTy());
  llvm::Value *Bits = B.CreateBitCast(F, B.getInt32Ty());
  // Nearest went away from zero: one step back is the truncation.
  llvm::Value *Away =
      B.CreateFCmpOGT(B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, Back),
                      B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, D));
  llvm::Value *Trunc =
      B.CreateSelect(Away, B.CreateSub(Bits, B.getInt32(1)), Bits);
  llvm::Value *Odd = B.CreateOr(Trunc, 1);
  llvm::Value *Exact = B.CreateFCmpUEQ(Back, D); // NaN: kept as is
  return B.CreateBitCast(B.CreateSelect(Exact, Bits, Odd), B.getFloatTy());
}

// An integer of up to 64 bits as a float32 rounded to odd.
llvm::Value *intToFloatOdd(llvm::IRBuilder<> &B, llvm::Value *V, bool Signed) {
  llvm::Type *I64 = B.getInt64Ty();
  llvm::Value *X = Signed ? B.CreateSExt(V, I64) : B.CreateZExt(V, I64);
  llvm::Value *Neg = Signed ? B.CreateICmpSLT(X, B.getInt64(0)) : B.getFalse();
  llvm::Value *Mag = B.CreateSelect(Neg, B.CreateSub(B.getInt64(0), X), X);
  llvm::Value *Lz =
      B.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, Mag, B.getFalse());
  llvm::Value *Width = B.CreateSub(B.getInt64(64), Lz);
  llvm::Value *Shift =
      B.CreateSelect(B.CreateICmpUGT(Width, B.getInt64(24)),
                     B.CreateSub(Width, B.getInt64(24)), B.getInt64(0));
  llvm::Value *Kept = B.CreateLShr(Mag, Shift);
  llvm::Value *LostMask =
      B.CreateSub(B.CreateShl(B.getInt64(1), Shift), B.getInt64(1));
  llvm::Value *Sticky =
      B.CreateICmpNE(B.CreateAnd(Mag, LostMask), B.getInt64(0));
  Kept = B.CreateOr(Kept, B.CreateZExt(Sticky, I64));
  llvm::Value *F = B.CreateUIToFP(Kept, B.getFloatTy()); // < 2**24: exact
  // 2**Shift (Shift <= 40) as a float32, built from its exponent.
  llvm::Value *ScaleBits = B.CreateShl(
      B.CreateTrunc(B.CreateAdd(Shift, B.getInt64(127)), B.getInt32Ty()), 23);
  F = B.CreateFMul(F, B.CreateBitCast(ScaleBits, B.getFloatTy())); // exact
  return B.CreateSelect(Neg, B.CreateFNeg(F), F);
}

} // namespace

llvm::Value *toBFloat16(llvm::IRBuilder<> &B, llvm::Value *V, TypeRef From,
                        BF16Round Mode) {
  if (isBFloat16(From))
    return V;
  if (From->isIntegral()) {
    bool Signed = From->isInt() && From->isSigned();
    if (From->bits() <= 16) { // exact in float32
      llvm::Value *F = Signed ? B.CreateSIToFP(V, B.getFloatTy())
                              : B.CreateUIToFP(V, B.getFloatTy());
      return roundFloatBits(B, F, Mode);
    }
    return roundFloatBits(B, intToFloatOdd(B, V, Signed), Mode);
  }
  if (From->isFloat() && From->bits() == 16) // float16: exact in float32
    V = B.CreateFPExt(V, B.getFloatTy());
  if (V->getType()->isDoubleTy()) {
    if (Mode == BF16Round::Nearest)
      return B.CreateFPTrunc(V, B.getBFloatTy());
    return roundFloatBits(B, doubleToFloatOdd(B, V), Mode);
  }
  if (Mode == BF16Round::Nearest)
    return B.CreateFPTrunc(V, B.getBFloatTy());
  return roundFloatBits(B, V, Mode);
}

} // namespace pcj::lower
