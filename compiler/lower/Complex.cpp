// Complex arithmetic in LLVM IR: a complex value is {re, im} of float or
// double, computed as CPython computes it (Objects/complexobject.c's
// algorithms, so special values come out the same):
//
//   a * b    (a0 b0 - a1 b1, a0 b1 + a1 b0), no infinity recovery
//   a / b    Smith's algorithm scaled by the larger part of b; b == 0 gives
//            each part divided by +0 (NumPy; CPython raises ZeroDivisionError)
//   a ** b   integral b with |b| <= 100: repeated squaring from 1 (then 1/r
//            for b < 0); otherwise |a|**b0 / e**(arg(a) b1) at the angle
//            arg(a) b0 + b1 log|a|; 0 ** b is 0 except where CPython raises
//            (b < 0 or not real): inf / nan
//
//   %z = binop ** %a, 2 : complex128  ==>  r = (1, 0) * (a * a), unrolled
//
// Functions of cmath are built on the helpers here (ComplexParts) in
// stdlib/lowering/ComplexRules.cpp.
#include "lower/Arith.h"

#include "support/Diagnostics.h"

#include <llvm/IR/Intrinsics.h>

#include <optional>

namespace pcj::lower {

using namespace types;

llvm::Value *complexMake(LowerContext &Cx, TypeRef T, llvm::Value *Re,
                         llvm::Value *Im) {
  llvm::Value *V = llvm::UndefValue::get(Cx.valueType(T));
  V = Cx.b.CreateInsertValue(V, Re, {0});
  return Cx.b.CreateInsertValue(V, Im, {1});
}

llvm::Value *complexRe(LowerContext &Cx, llvm::Value *Z) {
  return Cx.b.CreateExtractValue(Z, {0});
}
llvm::Value *complexIm(LowerContext &Cx, llvm::Value *Z) {
  return Cx.b.CreateExtractValue(Z, {1});
}

llvm::Value *complexAbs(LowerContext &Cx, TypeRef T, llvm::Value *Z) {
  TypeRef F = floatTy(T->bits() / 2);
  return Cx.b.CreateCall(Cx.target.mathFunction(Cx.module, "hypot", F, 2),
                         {complexRe(Cx, Z), complexIm(Cx, Z)});
}

// ---- ComplexParts
// --------------------------------------------------------------

ComplexParts::ComplexParts(LowerContext &Cx, TypeRef T)
    : cx(Cx), b(Cx.b), type(T), part(floatTy(T->bits() / 2)) {}

llvm::Value *ComplexParts::call(const char *Name, llvm::Value *X) {
  return b.CreateCall(cx.target.mathFunction(cx.module, Name, part, 1), {X});
}
llvm::Value *ComplexParts::call(const char *Name, llvm::Value *X,
                                llvm::Value *Y) {
  return b.CreateCall(cx.target.mathFunction(cx.module, Name, part, 2), {X, Y});
}
llvm::Value *ComplexParts::k(double V) {
  return llvm::ConstantFP::get(cx.valueType(part), V);
}
llvm::Value *ComplexParts::inf() {
  return llvm::ConstantFP::getInfinity(cx.valueType(part));
}
llvm::Value *ComplexParts::nan() {
  return llvm::ConstantFP::getNaN(cx.valueType(part));
}
llvm::Value *ComplexParts::fabs(llvm::Value *V) {
  return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, V);
}
llvm::Value *ComplexParts::copysign(llvm::Value *Mag, llvm::Value *Sign) {
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, Mag, Sign);
}
llvm::Value *ComplexParts::select(llvm::Value *C, llvm::Value *T,
                                  llvm::Value *F) {
  return b.CreateSelect(C, T, F);
}
llvm::Value *ComplexParts::isNan(llvm::Value *V) {
  return b.CreateFCmpUNO(V, V);
}
llvm::Value *ComplexParts::isInf(llvm::Value *V) {
  return b.CreateFCmpOEQ(fabs(V), inf());
}
llvm::Value *ComplexParts::isFinite(llvm::Value *V) {
  return b.CreateFCmpOLT(fabs(V), inf());
}
llvm::Value *ComplexParts::notFinite(llvm::Value *V) {
  return b.CreateFCmpUGE(fabs(V), inf()); // inf or NaN
}
llvm::Value *ComplexParts::isZero(llvm::Value *V) {
  return b.CreateFCmpOEQ(V, k(0.0));
}
llvm::Value *ComplexParts::make(llvm::Value *Re, llvm::Value *Im) {
  return complexMake(cx, type, Re, Im);
}

// ---- arithmetic
// ---------------------------------------------------------------

namespace {

llvm::Value *complexMul(ComplexParts &P, llvm::Value *A, llvm::Value *B) {
  auto &Bd = P.b;
  llvm::Value *A0 = complexRe(P.cx, A), *A1 = complexIm(P.cx, A);
  llvm::Value *B0 = complexRe(P.cx, B), *B1 = complexIm(P.cx, B);
  return P.make(Bd.CreateFSub(Bd.CreateFMul(A0, B0), Bd.CreateFMul(A1, B1)),
                Bd.CreateFAdd(Bd.CreateFMul(A0, B1), Bd.CreateFMul(A1, B0)));
}

llvm::Value *complexDiv(ComplexParts &P, llvm::Value *A, llvm::Value *B) {
  auto &Bd = P.b;
  llvm::Value *A0 = complexRe(P.cx, A), *A1 = complexIm(P.cx, A);
  llvm::Value *B0 = complexRe(P.cx, B), *B1 = complexIm(P.cx, B);
  llvm::Value *AbsB0 = P.fabs(B0), *AbsB1 = P.fabs(B1);
  // |b0| >= |b1|: r = b1/b0, d = b0 + b1 r, re = (a0 + a1 r)/d, im = (a1 - a0
  // r)/d
  llvm::Value *R1 = Bd.CreateFDiv(B1, B0);
  llvm::Value *D1 = Bd.CreateFAdd(B0, Bd.CreateFMul(B1, R1));
  llvm::Value *Re1 =
      Bd.CreateFDiv(Bd.CreateFAdd(A0, Bd.CreateFMul(A1, R1)), D1);
  llvm::Value *Im1 =
      Bd.CreateFDiv(Bd.CreateFSub(A1, Bd.CreateFMul(A0, R1)), D1);
  // else: r = b0/b1, d = b0 r + b1, re = (a0 r + a1)/d, im = (a1 r - a0)/d
  // (a NaN in b lands here and gives NaNs, as in CPython)
  llvm::Value *R2 = Bd.CreateFDiv(B0, B1);
  llvm::Value *D2 = Bd.CreateFAdd(Bd.CreateFMul(B0, R2), B1);
  llvm::Value *Re2 =
      Bd.CreateFDiv(Bd.CreateFAdd(Bd.CreateFMul(A0, R2), A1), D2);
  llvm::Value *Im2 =
      Bd.CreateFDiv(Bd.CreateFSub(Bd.CreateFMul(A1, R2), A0), D2);
  llvm::Value *UseRe = Bd.CreateFCmpOGE(AbsB0, AbsB1);
  // b == 0: each part over +0 (an infinity, or NaN for a zero part).
  llvm::Value *ByZero = Bd.CreateAnd(P.isZero(B0), P.isZero(B1));
  return P.make(
      P.select(ByZero, Bd.CreateFDiv(A0, AbsB0), P.select(UseRe, Re1, Re2)),
      P.select(ByZero, Bd.CreateFDiv(A1, AbsB0), P.select(UseRe, Im1, Im2)));
}

// a ** n for a constant integer |n| <= 100: CPython's squaring loop, r
// starting at 1 (so 1 * p, not p: the same special values), 1 / r for n < 0.
llvm::Value *complexPowConst(ComplexParts &P, llvm::Value *A, int64_t N) {
  llvm::Value *R = P.make(P.k(1.0), P.k(0.0));
  uint64_t M = uint64_t(N < 0 ? -N : N);
  llvm::Value *Pw = A;
  for (uint64_t Mask = 1; Mask <= M; Mask <<= 1) {
    if (M & Mask)
      R = complexMul(P, R, Pw);
    if ((Mask << 1) <= M)
      Pw = complexMul(P, Pw, Pw);
  }
  return N > 0 ? R : complexDiv(P, P.make(P.k(1.0), P.k(0.0)), R);
}

// a ** b for a run-time b: the integral path (unrolled over the 7 bits of
// |b| <= 100) or the general one, chosen by b's value.
llvm::Value *complexPowRuntime(ComplexParts &P, llvm::Value *A,
                               llvm::Value *B) {
  auto &Bd = P.b;
  llvm::Value *A0 = complexRe(P.cx, A), *A1 = complexIm(P.cx, A);
  llvm::Value *B0 = complexRe(P.cx, B), *B1 = complexIm(P.cx, B);
  llvm::Value *AbsB0 = P.fabs(B0);
  llvm::Value *Integral = Bd.CreateAnd(
      Bd.CreateAnd(P.isZero(B1), Bd.CreateFCmpOLE(AbsB0, P.k(100.0))),
      Bd.CreateFCmpOEQ(B0,
                       Bd.CreateUnaryIntrinsic(llvm::Intrinsic::floor, B0)));
  // Integral: r = 1 * a**bit0 * (a^2)**bit1 * ... over m = |b0|.
  llvm::Value *M = P.cx.cast(AbsB0, P.part, intTy(32, true)); // saturating
  llvm::Value *R = P.make(P.k(1.0), P.k(0.0));
  llvm::Value *Pw = A;
  for (unsigned Bit = 0; Bit < 7; ++Bit) {
    llvm::Value *Set = Bd.CreateICmpNE(Bd.CreateAnd(M, Bd.getInt32(1u << Bit)),
                                       Bd.getInt32(0));
    R = P.select(Set, complexMul(P, R, Pw), R);
    if (Bit < 6)
      Pw = complexMul(P, Pw, Pw);
  }
  llvm::Value *Recip = complexDiv(P, P.make(P.k(1.0), P.k(0.0)), R);
  llvm::Value *IntRes = P.select(Bd.CreateFCmpOGT(B0, P.k(0.0)), R, Recip);

  // General: |a|**b0 / e**(t b1) at the angle t b0 + b1 log|a|, t = arg(a).
  llvm::Value *VAbs = P.call("hypot", A0, A1);
  llvm::Value *Len = P.call("pow", VAbs, B0);
  llvm::Value *At = P.call("atan2", A1, A0);
  llvm::Value *Phase = Bd.CreateFMul(At, B0);
  llvm::Value *HasIm = Bd.CreateFCmpUNE(B1, P.k(0.0));
  Len = P.select(HasIm,
                 Bd.CreateFDiv(Len, P.call("exp", Bd.CreateFMul(At, B1))), Len);
  Phase = P.select(HasIm,
                   Bd.CreateFAdd(Phase, Bd.CreateFMul(B1, P.call("log", VAbs))),
                   Phase);
  llvm::Value *GenRe = Bd.CreateFMul(Len, P.call("cos", Phase));
  llvm::Value *GenIm = Bd.CreateFMul(Len, P.call("sin", Phase));
  // 0 ** b: 0, except where CPython raises (b not real, or b < 0): inf for
  // a real b < 0, NaN for the rest.
  llvm::Value *AZero = Bd.CreateAnd(P.isZero(A0), P.isZero(A1));
  llvm::Value *NegB = Bd.CreateFCmpOLT(B0, P.k(0.0));
  llvm::Value *Raises = Bd.CreateOr(HasIm, NegB);
  llvm::Value *ZeroRe = P.select(
      Raises, P.select(Bd.CreateAnd(P.isZero(B1), NegB), P.inf(), P.nan()),
      P.k(0.0));
  llvm::Value *ZeroIm = P.select(Raises, P.nan(), P.k(0.0));
  GenRe = P.select(AZero, ZeroRe, GenRe);
  GenIm = P.select(AZero, ZeroIm, GenIm);
  return P.make(P.select(Integral, complexRe(P.cx, IntRes), GenRe),
                P.select(Integral, complexIm(P.cx, IntRes), GenIm));
}

} // namespace

llvm::Value *complexBinOp(LowerContext &Cx, const ir::Instr *At,
                          bc::BinOpKind K, TypeRef T, llvm::Value *A,
                          llvm::Value *B, const int64_t *ConstExponent) {
  auto &Bd = Cx.b;
  ComplexParts P(Cx, T);
  llvm::Value *A0 = complexRe(Cx, A), *A1 = complexIm(Cx, A);
  llvm::Value *B0 = complexRe(Cx, B), *B1 = complexIm(Cx, B);
  // + - * and constant powers are source arithmetic (docs/language.md: the
  // parts of z * w fuse); division and other powers are not.
  std::optional<SourceArithmetic> Source;
  if (K == bc::BinOpKind::Add || K == bc::BinOpKind::Sub ||
      K == bc::BinOpKind::Mul ||
      (K == bc::BinOpKind::Pow && ConstExponent && *ConstExponent >= 0 &&
       *ConstExponent <= 100))
    Source.emplace(Cx);
  switch (K) {
  case bc::BinOpKind::Add:
    return P.make(Bd.CreateFAdd(A0, B0), Bd.CreateFAdd(A1, B1));
  case bc::BinOpKind::Sub:
    return P.make(Bd.CreateFSub(A0, B0), Bd.CreateFSub(A1, B1));
  case bc::BinOpKind::Mul:
    return complexMul(P, A, B);
  case bc::BinOpKind::TrueDiv:
    return complexDiv(P, A, B);
  case bc::BinOpKind::Pow:
    if (ConstExponent && *ConstExponent >= -100 && *ConstExponent <= 100)
      return complexPowConst(P, A, *ConstExponent);
    return complexPowRuntime(P, A, B);
  default:
    Cx.fail(At, std::string("operator ") + bc::binOpSymbol(K) +
                    " is not defined for complex numbers");
  }
}

} // namespace pcj::lower
