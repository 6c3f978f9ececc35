// Conversions of the fp8 storage types in target-independent LLVM IR.
//
// Every conversion to or from fp8_e4m3, fp8_e5m2 and fp8_e8m0 is integer
// arithmetic on the bits, the same IR on the GPU and on the CPU executor, so
// both give the same bits.  The results are those of cuda_fp8.h's
// conversions (numba-cuda compiles its fp8 bindings against it):
//
//  * to e4m3/e5m2: round to nearest even.  fp8_T(x) saturates overflow to
//    the largest finite value (__NV_SATFINITE); cvt_*_to_fp8 take the mode.
//    Without saturation overflow is NaN 0x7f (e4m3) or infinity 0x7c
//    (e5m2).  Ints convert through float32 (rounded to nearest), float16 and
//    bfloat16 through float32 (exact).  A float NaN gives 0x7f; a double NaN
//    keeps its sign (e5m2: 0x7e plus the double's top fraction bit).
//  * to e8m0: a power of two, rounded up (the constructor; cvt_*_to_e8m0
//    also round toward zero) on |x|; 0 and anything below 2**-127 give
//    0x00 (2**-127), NaN 0xff, overflow 0xff or (saturating) 0xfe.  A double
//    is first rounded to float32 to odd; an int is exact.
//  * from fp8: exact values; NaN is float32 0x7fffffff (e8m0: 0x7fff0000),
//    float16 0x7fff, bfloat16 0x7fff, float64 the float32 NaN widened.
//    Ints: truncated, saturated, NaN -> 0 (TargetHooks::floatToInt); bool:
//    e4m3/e5m2 nonzero magnitude bits (NaN is true), e8m0 always true.
//
//   before:  %b = cast float32 %x to fp8_e4m3
//   after:   |x| as (exponent E, significand M); N = M >> s rounded to nearest
//            even; code = ((max(E, -6) + 6) << 3) + N; code > 0x7e -> 0x7e;
//            NaN -> 0x7f; or the sign bit in
#include "lower/Fp8.h"

#include "lower/LowerContext.h"
#include "support/Diagnostics.h"
#include "types/BFloat16.h"

#include <llvm/IR/Intrinsics.h>

namespace pcj::lower {

using namespace types;

namespace {

// The magnitude bits Abs (an i64) of a binary float with ExpBits exponent
// and FracBits fraction bits, not NaN, rounded to nearest even as an e4m3
// or e5m2 code (i8, sign clear).
llvm::Value *roundToFp8(llvm::IRBuilder<> &B, llvm::Value *Abs,
                        unsigned ExpBits, unsigned FracBits,
                        llvm::Value *SatFinite, llvm::Value *IsE5M2) {
  auto C = [&](int64_t V) { return B.getInt64(uint64_t(V)); };
  auto Pick = [&](int64_t E5M2, int64_t E4M3) {
    return B.CreateSelect(IsE5M2, C(E5M2), C(E4M3));
  };
  int64_t Bias = (int64_t(1) << (ExpBits - 1)) - 1;
  llvm::Value *Field = B.CreateLShr(Abs, FracBits);
  llvm::Value *Frac = B.CreateAnd(Abs, C((int64_t(1) << FracBits) - 1));
  llvm::Value *Subnormal = B.CreateICmpEQ(Field, C(0));
  // |x| = M * 2**(E - FracBits)
  llvm::Value *M = B.CreateSelect(Subnormal, Frac,
                                  B.CreateOr(Frac, C(int64_t(1) << FracBits)));
  llvm::Value *E =
      B.CreateSelect(Subnormal, C(1 - Bias), B.CreateSub(Field, C(Bias)));
  llvm::Value *Bits = Pick(2, 3);    // fraction bits of the fp8 format
  llvm::Value *EMin = Pick(-14, -6); // its smallest normal exponent
  llvm::Value *MaxCode = Pick(0x7B, 0x7E);
  llvm::Value *Overflow = Pick(0x7C, 0x7F); // infinity / NaN
  llvm::Value *Ex = B.CreateSelect(B.CreateICmpSGT(E, EMin), E, EMin);
  // |x| / 2**(Ex - Bits) = M / 2**S, S >= FracBits - Bits > 0; beyond 63 the
  // quotient rounds to 0 as at 63 (M < 2**62).
  llvm::Value *S =
      B.CreateSub(B.CreateAdd(C(FracBits), Ex), B.CreateAdd(Bits, E));
  S = B.CreateSelect(B.CreateICmpUGT(S, C(63)), C(63), S);
  llvm::Value *N = B.CreateLShr(M, S);
  llvm::Value *Half = B.CreateShl(C(1), B.CreateSub(S, C(1)));
  llvm::Value *Rem = B.CreateAnd(M, B.CreateSub(B.CreateShl(Half, C(1)), C(1)));
  llvm::Value *Odd = B.CreateICmpNE(B.CreateAnd(N, C(1)), C(0));
  llvm::Value *Up = B.CreateOr(B.CreateICmpUGT(Rem, Half),
                               B.CreateAnd(B.CreateICmpEQ(Rem, Half), Odd));
  N = B.CreateAdd(N, B.CreateZExt(Up, B.getInt64Ty()));
  // A carry out of the fraction steps the exponent (subnormal -> normal,
  // the largest binade -> overflow).
  llvm::Value *Code = B.CreateAdd(B.CreateShl(B.CreateSub(Ex, EMin), Bits), N);
  llvm::Value *Big = B.CreateSelect(SatFinite, MaxCode, Overflow);
  Code = B.CreateSelect(B.CreateICmpSGT(Code, MaxCode), Big, Code);
  return B.CreateTrunc(Code, B.getInt8Ty());
}

// A double rounded to float to odd (exact values stay; others become the
// float toward zero with its last bit set): a later rounding to a narrower
// format is then correct in every mode.
llvm::Value *roundToOddFloat(llvm::IRBuilder<> &B, llvm::Value *X) {
  llvm::Value *F = B.CreateFPTrunc(X, B.getFloatTy());
  llvm::Value *D = B.CreateFPExt(F, B.getDoubleTy());
  llvm::Value *U = B.CreateBitCast(F, B.getInt32Ty());
  llvm::Value *Zero = llvm::ConstantFP::get(B.getDoubleTy(), 0.0);
  llvm::Value *Away =
      B.CreateOr(B.CreateAnd(B.CreateFCmpOGT(X, Zero), B.CreateFCmpOGT(D, X)),
                 B.CreateAnd(B.CreateFCmpOLT(X, Zero), B.CreateFCmpOLT(D, X)));
  U = B.CreateSub(U, B.CreateZExt(Away, B.getInt32Ty()));
  llvm::Value *Inexact =
      B.CreateAnd(B.CreateFCmpUNE(D, X), B.CreateFCmpORD(F, F));
  U = B.CreateOr(U, B.CreateZExt(Inexact, B.getInt32Ty()));
  return B.CreateBitCast(U, B.getFloatTy());
}

// An integer (Signed or not, bool included) as an e8m0 code: 2**ceil(log2|v|),
// exact; 0 gives 0x00.
llvm::Value *e8m0FromInt(llvm::IRBuilder<> &B, llvm::Value *V, TypeRef From) {
  llvm::Type *I64 = B.getInt64Ty();
  bool Signed = From->isInt() && From->isSigned();
  llvm::Value *W = Signed ? B.CreateSExt(V, I64) : B.CreateZExt(V, I64);
  if (Signed) // |INT64_MIN| is 2**63 as unsigned
    W = B.CreateSelect(B.CreateICmpSLT(W, B.getInt64(0)), B.CreateNeg(W), W);
  llvm::Value *Lz = B.CreateBinaryIntrinsic(
      llvm::Intrinsic::ctlz, B.CreateSub(W, B.getInt64(1)), B.getFalse());
  llvm::Value *Code = B.CreateSub(B.getInt64(127 + 64), Lz);
  Code = B.CreateSelect(B.CreateICmpEQ(W, B.getInt64(0)), B.getInt64(0), Code);
  return B.CreateTrunc(Code, B.getInt8Ty());
}

struct Decoded {
  llvm::Value *bits;  // the value as float32 bits (i32)
  llvm::Value *isNaN; // i1
};

// An fp8 code (i8) of format F as float32 bits, exactly.
Decoded decode(llvm::IRBuilder<> &B, llvm::Value *Code, Fp8Format F) {
  llvm::Type *I32 = B.getInt32Ty();
  auto C = [&](uint32_t V) { return B.getInt32(V); };
  llvm::Value *X = B.CreateZExt(Code, I32);
  if (F == Fp8Format::E8M0) {
    llvm::Value *NaN = B.CreateICmpEQ(X, C(0xFF));
    llvm::Value *Bits = B.CreateSelect(B.CreateICmpEQ(X, C(0)), C(0x00400000),
                                       B.CreateShl(X, C(23)));
    return {B.CreateSelect(NaN, C(0x7FFF0000), Bits), NaN};
  }
  bool E5M2 = F == Fp8Format::E5M2;
  unsigned Frac = E5M2 ? 2 : 3, Bias = E5M2 ? 15 : 7, ExpMask = E5M2 ? 31 : 15;
  llvm::Value *Sign = B.CreateShl(B.CreateAnd(X, C(0x80)), C(24));
  llvm::Value *E = B.CreateAnd(B.CreateLShr(X, C(Frac)), C(ExpMask));
  llvm::Value *Fr = B.CreateAnd(X, C((1u << Frac) - 1));
  llvm::Value *Normal =
      B.CreateOr(B.CreateShl(B.CreateAdd(E, C(127 - Bias)), C(23)),
                 B.CreateShl(Fr, C(23 - Frac)));
  // A subnormal Fr * 2**(1 - Bias - Frac), its leading bit at P.
  llvm::Value *P = B.CreateSub(
      C(31), B.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, Fr, B.getFalse()));
  llvm::Value *SubExp = B.CreateAdd(C(128 - Bias - Frac), P);
  llvm::Value *SubFrac =
      B.CreateAnd(B.CreateShl(Fr, B.CreateSub(C(23), P)), C(0x7FFFFF));
  llvm::Value *Sub =
      B.CreateSelect(B.CreateICmpEQ(Fr, C(0)), C(0),
                     B.CreateOr(B.CreateShl(SubExp, C(23)), SubFrac));
  llvm::Value *Mag = B.CreateSelect(B.CreateICmpEQ(E, C(0)), Sub, Normal);
  llvm::Value *NaN;
  if (E5M2) {
    llvm::Value *Top = B.CreateICmpEQ(E, C(31));
    NaN = B.CreateAnd(Top, B.CreateICmpNE(Fr, C(0)));
    Mag = B.CreateSelect(Top, C(0x7F800000), Mag);
  } else {
    NaN = B.CreateICmpEQ(B.CreateAnd(X, C(0x7F)), C(0x7F));
  }
  return {B.CreateSelect(NaN, C(0x7FFFFFFF), B.CreateOr(Sign, Mag)), NaN};
}

// fp8 -> a bool, int or float type.
llvm::Value *fromFp8(LowerContext &Cx, llvm::Value *V, Fp8Format F,
                     TypeRef To) {
  auto &B = Cx.b;
  if (To->isBool())
    return F == Fp8Format::E8M0
               ? static_cast<llvm::Value *>(B.getTrue())
               : B.CreateICmpNE(B.CreateAnd(V, B.getInt8(0x7F)), B.getInt8(0));
  Decoded D = decode(B, V, F);
  llvm::Value *Fl = B.CreateBitCast(D.bits, B.getFloatTy());
  if (To->isInt()) // saturating, NaN -> 0
    return Cx.target.floatToInt(B, Fl, Cx.valueType(To), To->isSigned());
  PCJ_ASSERT(To->isFloat(), "no conversion from fp8 to " + To->str());
  if (isBFloat16(To)) {
    llvm::Value *H =
        B.CreateSelect(D.isNaN, B.getInt32(0x7FFF), B.CreateLShr(D.bits, 16));
    return B.CreateBitCast(B.CreateTrunc(H, B.getInt16Ty()), B.getBFloatTy());
  }
  if (To->bits() == 32)
    return Fl;
  if (To->bits() == 16) // exact but for e8m0 (rounded to nearest even)
    return B.CreateSelect(
        D.isNaN, B.CreateBitCast(B.getInt16(0x7FFF), B.getHalfTy()),
        B.CreateFPTrunc(
            B.CreateSelect(D.isNaN, llvm::ConstantFP::get(B.getFloatTy(), 0.0),
                           Fl),
            B.getHalfTy()));
  // float64: exact; a NaN keeps the float32 NaN's fraction bits.
  llvm::Value *W = B.CreateZExt(D.bits, B.getInt64Ty());
  llvm::Value *NaNBits =
      B.CreateOr(B.getInt64(0x7FF0000000000000ULL),
                 B.CreateShl(B.CreateAnd(W, B.getInt64(0x7FFFFF)), 29));
  llvm::Value *Wide = B.CreateFPExt(
      B.CreateSelect(D.isNaN, llvm::ConstantFP::get(B.getFloatTy(), 0.0), Fl),
      B.getDoubleTy());
  return B.CreateSelect(D.isNaN, B.CreateBitCast(NaNBits, B.getDoubleTy()),
                        Wide);
}

} // namespace

llvm::Value *fp8FromFloat(llvm::IRBuilder<> &B, llvm::Value *X,
                          llvm::Value *SatFinite, llvm::Value *IsE5M2) {
  if (X->getType()->isDoubleTy()) {
    llvm::Value *Bits = B.CreateBitCast(X, B.getInt64Ty());
    llvm::Value *Abs = B.CreateAnd(Bits, B.getInt64(0x7FFFFFFFFFFFFFFFULL));
    llvm::Value *Sign =
        B.CreateTrunc(B.CreateShl(B.CreateLShr(Bits, 63), 7), B.getInt8Ty());
    llvm::Value *NaN = B.CreateICmpUGT(Abs, B.getInt64(0x7FF0000000000000ULL));
    llvm::Value *Top =
        B.CreateTrunc(B.CreateAnd(B.CreateLShr(Abs, 50), 3), B.getInt8Ty());
    llvm::Value *NaNCode = B.CreateSelect(
        IsE5M2, B.CreateOr(Top, B.getInt8(0x7E)), B.getInt8(0x7F));
    llvm::Value *R = roundToFp8(B, Abs, 11, 52, SatFinite, IsE5M2);
    return B.CreateOr(B.CreateSelect(NaN, NaNCode, R), Sign);
  }
  PCJ_ASSERT(X->getType()->isFloatTy(),
             "fp8FromFloat takes a float or a double");
  llvm::Value *Bits = B.CreateBitCast(X, B.getInt32Ty());
  llvm::Value *Abs = B.CreateAnd(Bits, B.getInt32(0x7FFFFFFF));
  llvm::Value *Sign =
      B.CreateTrunc(B.CreateShl(B.CreateLShr(Bits, 31), 7), B.getInt8Ty());
  llvm::Value *NaN = B.CreateICmpUGT(Abs, B.getInt32(0x7F800000));
  llvm::Value *R = roundToFp8(B, B.CreateZExt(Abs, B.getInt64Ty()), 8, 23,
                              SatFinite, IsE5M2);
  return B.CreateSelect(NaN, B.getInt8(0x7F), B.CreateOr(R, Sign));
}

llvm::Value *e8m0FromFloat(llvm::IRBuilder<> &B, llvm::Value *X,
                           llvm::Value *SatFinite, bool RoundUp) {
  if (X->getType()->isDoubleTy())
    X = roundToOddFloat(B, X);
  auto C = [&](uint32_t V) { return B.getInt32(V); };
  llvm::Value *Abs =
      B.CreateAnd(B.CreateBitCast(X, B.getInt32Ty()), C(0x7FFFFFFF));
  llvm::Value *Code =
      B.CreateLShr(Abs, C(23)); // toward zero: the exponent field
  if (RoundUp) { // up unless a power of two, at most 2**-127, or infinite
    llvm::Value *Up =
        B.CreateAnd(B.CreateICmpNE(B.CreateAnd(Abs, C(0x7FFFFF)), C(0)),
                    B.CreateAnd(B.CreateICmpUGT(Abs, C(0x00400000)),
                                B.CreateICmpULT(Abs, C(0x7F800000))));
    Code = B.CreateAdd(Code, B.CreateZExt(Up, B.getInt32Ty()));
  }
  Code = B.CreateSelect(B.CreateAnd(SatFinite, B.CreateICmpEQ(Code, C(0xFF))),
                        C(0xFE), Code);
  Code = B.CreateSelect(B.CreateICmpUGT(Abs, C(0x7F800000)), C(0xFF), Code);
  return B.CreateTrunc(Code, B.getInt8Ty());
}

llvm::Value *e8m0ToBf16Bits(llvm::IRBuilder<> &B, llvm::Value *Code) {
  llvm::Value *X = B.CreateZExt(Code, B.getInt16Ty());
  llvm::Value *R = B.CreateShl(X, 7);
  R = B.CreateSelect(B.CreateICmpEQ(X, B.getInt16(0)), B.getInt16(0x0040), R);
  return B.CreateSelect(B.CreateICmpEQ(X, B.getInt16(0xFF)), B.getInt16(0x7FFF),
                        R);
}

llvm::Value *castFp8(LowerContext &Cx, llvm::Value *V, TypeRef From,
                     TypeRef To) {
  auto &B = Cx.b;
  PCJ_ASSERT(!(isFp8(From) && isFp8(To)),
             "fp8 -> fp8 conversions are refused in typing");
  if (isFp8(From))
    return fromFp8(Cx, V, fp8Format(From), To);
  Fp8Format F = fp8Format(To);
  PCJ_ASSERT(From->isIntegral() || From->isFloat(),
             "no conversion from " + From->str() + " to " + To->str());
  if (F == Fp8Format::E8M0) {
    if (From->isIntegral())
      return e8m0FromInt(B, V, From);
    if (From->bits() != 64 && From->bits() != 32) // float16, bfloat16: exact
      V = B.CreateFPExt(V, B.getFloatTy());
    return e8m0FromFloat(B, V, B.getTrue(), /*RoundUp=*/true);
  }
  if (From->isIntegral()) { // through float32, rounded to nearest even
    bool Signed = From->isInt() && From->isSigned();
    V = Signed ? B.CreateSIToFP(V, B.getFloatTy())
               : B.CreateUIToFP(V, B.getFloatTy());
  } else if (From->bits() != 64 && From->bits() != 32) {
    V = B.CreateFPExt(V, B.getFloatTy());
  }
  return fp8FromFloat(B, V, B.getTrue(), B.getInt1(F == Fp8Format::E5M2));
}

} // namespace pcj::lower
