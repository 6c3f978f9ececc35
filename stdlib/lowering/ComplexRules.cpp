// Lowering rules for complex numbers and cmath (registry/complex.def), built
// from real libm / libdevice functions (TargetHooks::mathFunction), with
// CPython's values at infinities, NaNs and signed zeros (C99 Annex G).
//
//   cmath.cos(z)  ==>  cosh(-y + i x): cos(x) cosh(y) - i sin(x) sinh(y), then
//                      selects: y = +-inf with x = +-0 gives inf + 0j, ...
#include "stdlib/lowering/Rules.h"

#include "lower/Arith.h"
#include "support/Diagnostics.h"

#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <limits>

namespace pcj::stdlib::lowering {

using namespace types;
using namespace lower;

namespace {

// Constants of CPython's cmath for the part type (float32: the same
// definitions for FLT_*): |x| beyond Large makes cosh/sinh/exp of x
// overflow, so they are computed as f(x -+ 1) * e; parts below MinNormal or
// above MaxQuarter are rescaled before hypot.
struct CmathLimits {
  double large, maxQuarter, minNormal;
  double logScale;      // log: 2**mantissa digits ...
  double logOffset;     // ... and mantissa digits * ln 2
  double sqrtScaleUp;   // sqrt: 2**(2 * (digits / 2) + 1)
  double sqrtScaleDown; // 2**-((that exponent + 1) / 2)
};

CmathLimits limitsOf(bool Single) {
  if (Single) {
    float Large = std::log(std::numeric_limits<float>::max() / 4);
    return {Large,
            std::numeric_limits<float>::max() / 4.0f,
            std::numeric_limits<float>::min(),
            std::ldexp(1.0, 24),
            float(24 * M_LN2),
            std::ldexp(1.0, 25),
            std::ldexp(1.0, -13)};
  }
  return {std::log(std::numeric_limits<double>::max() / 4),
          std::numeric_limits<double>::max() / 4,
          std::numeric_limits<double>::min(),
          std::ldexp(1.0, 53),
          53 * M_LN2,
          std::ldexp(1.0, 53),
          std::ldexp(1.0, -27)};
}

using Parts = std::pair<llvm::Value *, llvm::Value *>;

// The cmath functions, C99 Annex G special values included, each as CPython
// computes it (Modules/cmathmodule.c): the finite formula, then selects for
// the cases where an infinity, NaN or zero in a part must win.  cos, sin and
// tan are cosh, sinh and tanh of i z.
struct Cmath : lower::ComplexParts {
  CmathLimits lim;
  Cmath(LowerContext &Cx, TypeRef T)
      : ComplexParts(Cx, T), lim(limitsOf(single())) {}

  llvm::Value *mul(llvm::Value *A, llvm::Value *B) {
    return b.CreateFMul(A, B);
  }
  llvm::Value *andv(llvm::Value *A, llvm::Value *B) {
    return b.CreateAnd(A, B);
  }

  // cosh(x) cos(y) + i sinh(x) sin(y) (Sinh false), or
  // sinh(x) cos(y) + i cosh(x) sin(y) (Sinh true), scaled for large |x|.
  Parts hyperbolic(llvm::Value *X, llvm::Value *Y, bool Sinh) {
    llvm::Value *Big = b.CreateFCmpOGT(fabs(X), k(lim.large));
    llvm::Value *X1 = select(Big, b.CreateFSub(X, copysign(k(1.0), X)), X);
    llvm::Value *Scale = select(Big, k(M_E), k(1.0));
    llvm::Value *Ch = call("cosh", X1), *Sh = call("sinh", X1);
    llvm::Value *Re = mul(mul(call("cos", Y), Sinh ? Sh : Ch), Scale);
    llvm::Value *Im = mul(mul(call("sin", Y), Sinh ? Ch : Sh), Scale);
    llvm::Value *YBad = notFinite(Y);
    // x = +-inf, y inf or NaN: +inf (and NaN).
    Re = select(andv(isInf(X), YBad), inf(), Re);
    if (Sinh) {
      Re = select(andv(isZero(X), YBad), k(0.0), Re); // +0 and NaN
      return {Re, select(isZero(Y), Y, Im)};          // y = +-0: y
    }
    // cosh: y = +-0 gives a zero with the sign of x*y (+0 for a NaN x);
    // x = 0 with y inf or NaN gives +0.
    llvm::Value *ZeroIm = select(isNan(X), k(0.0), mul(Y, copysign(k(1.0), X)));
    Im = select(isZero(Y), ZeroIm, Im);
    return {Re, select(andv(isZero(X), YBad), k(0.0), Im)};
  }

  Parts tanh(llvm::Value *X, llvm::Value *Y) {
    // |x| large: +-1 + i 4 sin y cos y e**(-2|x|).
    llvm::Value *Big = b.CreateFCmpOGT(fabs(X), k(lim.large));
    llvm::Value *BigRe =
        select(andv(notFinite(Y), isFinite(X)), nan(), copysign(k(1.0), X));
    llvm::Value *BigIm = mul(mul(mul(k(4.0), call("sin", Y)), call("cos", Y)),
                             call("exp", mul(k(-2.0), fabs(X))));
    // tx (1 + ty^2) / d + i (ty / d) cx^2, d = 1 + (tx ty)^2, cx = 1 / cosh x.
    llvm::Value *Tx = call("tanh", X), *Ty = call("tan", Y);
    llvm::Value *Cx = b.CreateFDiv(k(1.0), call("cosh", X));
    llvm::Value *TxTy = mul(Tx, Ty);
    llvm::Value *D = b.CreateFAdd(k(1.0), mul(TxTy, TxTy));
    llvm::Value *Re =
        b.CreateFDiv(mul(Tx, b.CreateFAdd(k(1.0), mul(Ty, Ty))), D);
    llvm::Value *Im = mul(mul(b.CreateFDiv(Ty, D), Cx), Cx);
    Re = select(Big, BigRe, Re);
    Im = select(Big, BigIm, Im);
    // x = +-inf with y inf or NaN: +0; y = +-0: y.
    Im = select(andv(isInf(X), notFinite(Y)), k(0.0), Im);
    return {Re, select(isZero(Y), Y, Im)};
  }

  Parts exp(llvm::Value *X, llvm::Value *Y) {
    llvm::Value *Big = b.CreateFCmpOGT(X, k(lim.large));
    llvm::Value *L = call("exp", select(Big, b.CreateFSub(X, k(1.0)), X));
    llvm::Value *Scale = select(Big, k(M_E), k(1.0));
    llvm::Value *Re = mul(mul(L, call("cos", Y)), Scale);
    llvm::Value *Im = mul(mul(L, call("sin", Y)), Scale);
    llvm::Value *YBad = notFinite(Y);
    llvm::Value *PosInf = andv(b.CreateFCmpOEQ(X, inf()), YBad);
    llvm::Value *NegInf = andv(b.CreateFCmpOEQ(X, b.CreateFNeg(inf())), YBad);
    Re = select(PosInf, inf(), select(NegInf, k(0.0), Re));
    Im = select(NegInf, k(0.0), Im);
    return {Re, select(isZero(Y), Y, Im)};
  }

  Parts log(llvm::Value *X, llvm::Value *Y) {
    llvm::Value *Ax = fabs(X), *Ay = fabs(Y);
    llvm::Value *Large = b.CreateOr(b.CreateFCmpOGT(Ax, k(lim.maxQuarter)),
                                    b.CreateFCmpOGT(Ay, k(lim.maxQuarter)));
    llvm::Value *Tiny = andv(b.CreateFCmpOLT(Ax, k(lim.minNormal)),
                             b.CreateFCmpOLT(Ay, k(lim.minNormal)));
    // |z| of rescaled parts, so that hypot neither overflows nor loses
    // subnormal digits; log|z| = log(h) + Offset.
    llvm::Value *S =
        select(Large, k(0.5), select(Tiny, k(lim.logScale), k(1.0)));
    llvm::Value *Offset =
        select(Large, k(M_LN2), select(Tiny, k(-lim.logOffset), k(0.0)));
    llvm::Value *H = call("hypot", mul(Ax, S), mul(Ay, S));
    llvm::Value *Far = b.CreateFAdd(call("log", H), Offset);
    // |z| near 1: log1p((am - 1)(am + 1) + an^2) / 2 keeps the digits.
    llvm::Value *Am = b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, Ax, Ay);
    llvm::Value *An = b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, Ax, Ay);
    llvm::Value *Near =
        b.CreateFDiv(call("log1p", b.CreateFAdd(mul(b.CreateFSub(Am, k(1.0)),
                                                    b.CreateFAdd(Am, k(1.0))),
                                                mul(An, An))),
                     k(2.0));
    llvm::Value *IsNear =
        andv(b.CreateNot(b.CreateOr(Large, Tiny)),
             andv(b.CreateFCmpOGE(H, k(0.71)), b.CreateFCmpOLE(H, k(1.73))));
    return {select(IsNear, Near, Far), call("atan2", Y, X)};
  }

  Parts sqrt(llvm::Value *X, llvm::Value *Y) {
    llvm::Value *Ax = fabs(X), *Ay = fabs(Y);
    llvm::Value *Tiny = andv(b.CreateFCmpOLT(Ax, k(lim.minNormal)),
                             b.CreateFCmpOLT(Ay, k(lim.minNormal)));
    // s = sqrt((|x| + |z|) / 2), from parts scaled by 1/8 (or up, if tiny).
    llvm::Value *Up = select(Tiny, k(lim.sqrtScaleUp), k(0.125));
    llvm::Value *Down = select(Tiny, k(lim.sqrtScaleDown), k(2.0));
    llvm::Value *Axs = mul(Ax, Up);
    llvm::Value *S =
        mul(b.CreateUnaryIntrinsic(
                llvm::Intrinsic::sqrt,
                b.CreateFAdd(Axs, call("hypot", Axs, mul(Ay, Up)))),
            Down);
    llvm::Value *D = b.CreateFDiv(Ay, mul(k(2.0), S));
    llvm::Value *Pos = b.CreateFCmpOGE(X, k(0.0));
    llvm::Value *Re = select(Pos, S, D);
    llvm::Value *Im = copysign(select(Pos, D, S), Y);
    llvm::Value *Zero = andv(isZero(X), isZero(Y));
    llvm::Value *YInf = isInf(Y);
    Re = select(YInf, inf(), select(Zero, k(0.0), Re));
    llvm::Value *NegInfNan =
        andv(b.CreateFCmpOEQ(X, b.CreateFNeg(inf())), isNan(Y));
    Im = select(b.CreateOr(YInf, Zero), Y, select(NegInfNan, inf(), Im));
    return {Re, Im};
  }

  // rect(r, phi) = r cos(phi) + i r sin(phi).
  Parts rect(llvm::Value *R, llvm::Value *Phi) {
    llvm::Value *Re = mul(R, call("cos", Phi)), *Im = mul(R, call("sin", Phi));
    // phi = +-0: (r, zero with the sign of r*phi; +0 for a NaN r).
    llvm::Value *PhiZero = isZero(Phi);
    Re = select(PhiZero, R, Re);
    Im = select(PhiZero,
                select(isNan(R), k(0.0), mul(Phi, copysign(k(1.0), R))), Im);
    // phi inf or NaN: 0 for r = 0, +inf (and NaN) for r = +-inf.
    llvm::Value *PhiBad = notFinite(Phi);
    llvm::Value *RZero = andv(isZero(R), PhiBad);
    Re = select(RZero, k(0.0), select(andv(isInf(R), PhiBad), inf(), Re));
    return {Re, select(RZero, k(0.0), Im)};
  }
};

} // namespace

llvm::Value *lowerComplexCtor(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef T = R.instr.type;
  llvm::Value *Re = llvm::ConstantFP::get(Cx.b.getDoubleTy(), 0.0);
  llvm::Value *Im = Re;
  if (R.args.size() >= 1)
    Re = Cx.cast(R.args[0], R.argTypes[0], float64Ty());
  if (R.args.size() == 2)
    Im = Cx.cast(R.args[1], R.argTypes[1], float64Ty());
  return complexMake(Cx, T, Re, Im);
}

llvm::Value *lowerRealImag(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef T = R.argTypes[0];
  bool Imag = R.info.idata == 1;
  if (T->isComplex())
    return Imag ? complexIm(Cx, R.args[0]) : complexRe(Cx, R.args[0]);
  if (!Imag)
    return Cx.cast(R.args[0], T, R.instr.type);
  return T->isFloat()
             ? (llvm::Value *)llvm::ConstantFP::get(R.args[0]->getType(), 0.0)
             : Cx.intConst(R.instr.type, 0);
}

llvm::Value *lowerConjugate(const LoweringRequest &R) {
  auto &Cx = R.cx;
  TypeRef T = R.argTypes[0];
  if (!T->isComplex())
    return Cx.cast(R.args[0], T, R.instr.type);
  return complexMake(Cx, T, complexRe(Cx, R.args[0]),
                     Cx.b.CreateFNeg(complexIm(Cx, R.args[0])));
}

llvm::Value *lowerCmath(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  Cmath C(Cx, R.instr.type);
  llvm::Value *X = complexRe(Cx, R.args[0]), *Y = complexIm(Cx, R.args[0]);
  auto Make = [&](Parts P) { return C.make(P.first, P.second); };
  // f(i z) for the trigonometric functions: i z = -y + i x.
  llvm::Value *NegY = B.CreateFNeg(Y);
  switch (R.info.idata) {
  case 0:
    return Make(C.exp(X, Y));
  case 1:
    return Make(C.log(X, Y));
  case 9: { // log10 = log / ln 10
    Parts L = C.log(X, Y);
    return C.make(B.CreateFDiv(L.first, C.k(M_LN10)),
                  B.CreateFDiv(L.second, C.k(M_LN10)));
  }
  case 2:
    return Make(C.sqrt(X, Y));
  case 3: { // sin z = -i sinh(i z)
    Parts S = C.hyperbolic(NegY, X, true);
    return C.make(S.second, B.CreateFNeg(S.first));
  }
  case 4: // cos z = cosh(i z)
    return Make(C.hyperbolic(NegY, X, false));
  case 5: { // tan z = -i tanh(i z)
    Parts T = C.tanh(NegY, X);
    return C.make(T.second, B.CreateFNeg(T.first));
  }
  case 6:
    return Make(C.hyperbolic(X, Y, true));
  case 7:
    return Make(C.hyperbolic(X, Y, false));
  case 8:
    return Make(C.tanh(X, Y));
  }
  Cx.fail(&R.instr, "unknown cmath function");
}

llvm::Value *lowerCmathReal(const LoweringRequest &R) {
  auto &Cx = R.cx;
  auto &B = Cx.b;
  TypeRef CT = R.argTypes[0];
  lower::ComplexParts C(Cx, CT);
  llvm::Value *Z = R.args[0];
  llvm::Value *X = complexRe(Cx, Z), *Y = complexIm(Cx, Z);
  switch (R.info.idata) {
  case 0: // phase
    return C.call("atan2", Y, X);
  case 1: { // polar
    llvm::Value *T = llvm::UndefValue::get(Cx.valueType(R.instr.type));
    T = B.CreateInsertValue(T, complexAbs(Cx, CT, Z), {0});
    return B.CreateInsertValue(T, C.call("atan2", Y, X), {1});
  }
  case 2:
    return B.CreateOr(C.isNan(X), C.isNan(Y));
  case 3:
    return B.CreateOr(C.isInf(X), C.isInf(Y));
  default:
    return B.CreateAnd(C.isFinite(X), C.isFinite(Y));
  }
}

llvm::Value *lowerCmathRect(const LoweringRequest &R) {
  Cmath C(R.cx, R.instr.type);
  Parts P = C.rect(R.args[0], R.args[1]);
  return C.make(P.first, P.second);
}

} // namespace pcj::stdlib::lowering
