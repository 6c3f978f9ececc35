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
  double sqrtLarge;     // atanh: sqrt(max / 4) ...
  double sqrtMinNormal; // ... and sqrt(min normal)
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
            std::ldexp(1.0, -13),
            std::sqrt(std::numeric_limits<float>::max() / 4.0f),
            std::sqrt(std::numeric_limits<float>::min())};
  }
  return {std::log(std::numeric_limits<double>::max() / 4),
          std::numeric_limits<double>::max() / 4,
          std::numeric_limits<double>::min(),
          std::ldexp(1.0, 53),
          53 * M_LN2,
          std::ldexp(1.0, 53),
          std::ldexp(1.0, -27),
          std::sqrt(std::numeric_limits<double>::max() / 4),
          std::sqrt(std::numeric_limits<double>::min())};
}

using Parts = std::pair<llvm::Value *, llvm::Value *>;

// The inverse functions' values where a part is infinite or NaN (C99 Annex
// G, as CPython's cmath gives them), by the class of x (row) and of y
// (column): -inf, negative, -0, +0, positive, +inf, NaN.  The cells with
// both parts finite are never read ({N, N}).  asin and atan are asinh and
// atanh of i z, so they need no table of their own.
using SpecialTable = double[7][7][2];
namespace sv {
constexpr double INF = std::numeric_limits<double>::infinity();
constexpr double N = std::numeric_limits<double>::quiet_NaN();
constexpr double P = M_PI, P12 = M_PI / 2, P14 = M_PI / 4, P34 = 3 * M_PI / 4;
// clang-format off
const SpecialTable AcosSpecial = {
    {{P34, INF}, {P, INF}, {P, INF}, {P, -INF}, {P, -INF}, {P34, -INF}, {N, INF}},
    {{P12, INF}, {N, N}, {N, N}, {N, N}, {N, N}, {P12, -INF}, {N, N}},
    {{P12, INF}, {N, N}, {N, N}, {N, N}, {N, N}, {P12, -INF}, {P12, N}},
    {{P12, INF}, {N, N}, {N, N}, {N, N}, {N, N}, {P12, -INF}, {P12, N}},
    {{P12, INF}, {N, N}, {N, N}, {N, N}, {N, N}, {P12, -INF}, {N, N}},
    {{P14, INF}, {0.0, INF}, {0.0, INF}, {0.0, -INF}, {0.0, -INF}, {P14, -INF}, {N, INF}},
    {{N, INF}, {N, N}, {N, N}, {N, N}, {N, N}, {N, -INF}, {N, N}},
};
const SpecialTable AcoshSpecial = {
    {{INF, -P34}, {INF, -P}, {INF, -P}, {INF, P}, {INF, P}, {INF, P34}, {INF, N}},
    {{INF, -P12}, {N, N}, {N, N}, {N, N}, {N, N}, {INF, P12}, {N, N}},
    {{INF, -P12}, {N, N}, {N, N}, {N, N}, {N, N}, {INF, P12}, {N, N}},
    {{INF, -P12}, {N, N}, {N, N}, {N, N}, {N, N}, {INF, P12}, {N, N}},
    {{INF, -P12}, {N, N}, {N, N}, {N, N}, {N, N}, {INF, P12}, {N, N}},
    {{INF, -P14}, {INF, -0.0}, {INF, -0.0}, {INF, 0.0}, {INF, 0.0}, {INF, P14}, {INF, N}},
    {{INF, N}, {N, N}, {N, N}, {N, N}, {N, N}, {INF, N}, {N, N}},
};
const SpecialTable AsinhSpecial = {
    {{-INF, -P14}, {-INF, -0.0}, {-INF, -0.0}, {-INF, 0.0}, {-INF, 0.0}, {-INF, P14}, {-INF, N}},
    {{-INF, -P12}, {N, N}, {N, N}, {N, N}, {N, N}, {-INF, P12}, {N, N}},
    {{-INF, -P12}, {N, N}, {N, N}, {N, N}, {N, N}, {-INF, P12}, {N, N}},
    {{INF, -P12}, {N, N}, {N, N}, {N, N}, {N, N}, {INF, P12}, {N, N}},
    {{INF, -P12}, {N, N}, {N, N}, {N, N}, {N, N}, {INF, P12}, {N, N}},
    {{INF, -P14}, {INF, -0.0}, {INF, -0.0}, {INF, 0.0}, {INF, 0.0}, {INF, P14}, {INF, N}},
    {{INF, N}, {N, N}, {N, -0.0}, {N, 0.0}, {N, N}, {INF, N}, {N, N}},
};
const SpecialTable AtanhSpecial = {
    {{-0.0, -P12}, {-0.0, -P12}, {-0.0, -P12}, {-0.0, P12}, {-0.0, P12}, {-0.0, P12}, {-0.0, N}},
    {{-0.0, -P12}, {N, N}, {N, N}, {N, N}, {N, N}, {-0.0, P12}, {N, N}},
    {{-0.0, -P12}, {N, N}, {N, N}, {N, N}, {N, N}, {-0.0, P12}, {-0.0, N}},
    {{0.0, -P12}, {N, N}, {N, N}, {N, N}, {N, N}, {0.0, P12}, {0.0, N}},
    {{0.0, -P12}, {N, N}, {N, N}, {N, N}, {N, N}, {0.0, P12}, {N, N}},
    {{0.0, -P12}, {0.0, -P12}, {0.0, -P12}, {0.0, P12}, {0.0, P12}, {0.0, P12}, {0.0, N}},
    {{0.0, -P12}, {N, N}, {N, N}, {N, N}, {N, N}, {0.0, P12}, {N, N}},
};
// clang-format on
} // namespace sv

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

  // The class of V as the special tables index it (0..6, see above).
  llvm::Value *classOf(llvm::Value *V) {
    llvm::Type *I32 = b.getInt32Ty();
    auto K = [&](int C) { return llvm::ConstantInt::get(I32, C); };
    llvm::Value *Neg = b.CreateICmpSLT(
        b.CreateBitCast(V, b.getIntNTy(V->getType()->getPrimitiveSizeInBits())),
        llvm::ConstantInt::get(
            b.getIntNTy(V->getType()->getPrimitiveSizeInBits()), 0));
    llvm::Value *Finite =
        b.CreateSelect(isZero(V), b.CreateSelect(Neg, K(2), K(3)),
                       b.CreateSelect(Neg, K(1), K(4)));
    llvm::Value *Inf = b.CreateSelect(Neg, K(0), K(5));
    return b.CreateSelect(isNan(V), K(6),
                          b.CreateSelect(isInf(V), Inf, Finite));
  }

  // Table[class x][class y], or F where both parts are finite.
  Parts special(const SpecialTable &Table, const char *Name, llvm::Value *X,
                llvm::Value *Y, Parts F) {
    llvm::Type *T = X->getType();
    std::vector<llvm::Constant *> Cells;
    for (int I = 0; I < 7; ++I)
      for (int J = 0; J < 7; ++J)
        for (int Part = 0; Part < 2; ++Part)
          Cells.push_back(llvm::ConstantFP::get(T, Table[I][J][Part]));
    auto *AT = llvm::ArrayType::get(T, Cells.size());
    std::string GName = std::string("pcj_cmath_") + Name +
                        (single() ? "_special_f32" : "_special_f64");
    llvm::Value *G = cx.target.constArray(
        cx.module, llvm::ConstantArray::get(AT, Cells), GName);
    llvm::Value *Idx = b.CreateAdd(b.CreateMul(classOf(X), b.getInt32(14)),
                                   b.CreateMul(classOf(Y), b.getInt32(2)));
    llvm::Value *Re = b.CreateLoad(T, b.CreateInBoundsGEP(T, G, Idx));
    llvm::Value *Im = b.CreateLoad(
        T, b.CreateInBoundsGEP(T, G, b.CreateAdd(Idx, b.getInt32(1))));
    llvm::Value *Bad = b.CreateOr(notFinite(X), notFinite(Y));
    return {select(Bad, Re, F.first), select(Bad, Im, F.second)};
  }

  // |x| or |y| beyond max / 4: the formulas below would overflow.
  llvm::Value *huge(llvm::Value *X, llvm::Value *Y) {
    return b.CreateOr(b.CreateFCmpOGT(fabs(X), k(lim.maxQuarter)),
                      b.CreateFCmpOGT(fabs(Y), k(lim.maxQuarter)));
  }
  // log|z| for a huge z: log(hypot(x/2, y/2)) + 2 ln 2.
  llvm::Value *logAbsHuge(llvm::Value *X, llvm::Value *Y) {
    return b.CreateFAdd(
        call("log", call("hypot", mul(X, k(0.5)), mul(Y, k(0.5)))),
        k(2 * M_LN2));
  }

  // acos z = 2 atan2(Re s1, Re s2) + i asinh(Im(conj(s2) s1)) with
  // s1 = sqrt(1 - z), s2 = sqrt(1 + z) (Kahan's formulas, as CPython).
  Parts acos(llvm::Value *X, llvm::Value *Y) {
    Parts S1 = sqrt(b.CreateFSub(k(1.0), X), b.CreateFNeg(Y));
    Parts S2 = sqrt(b.CreateFAdd(k(1.0), X), Y);
    llvm::Value *Re = mul(k(2.0), call("atan2", S1.first, S2.first));
    llvm::Value *Im = call("asinh", b.CreateFSub(mul(S2.first, S1.second),
                                                 mul(S2.second, S1.first)));
    llvm::Value *Huge = huge(X, Y);
    Re = select(Huge, call("atan2", fabs(Y), X), Re);
    Im = select(Huge, copysign(logAbsHuge(X, Y), b.CreateFNeg(Y)), Im);
    return special(sv::AcosSpecial, "acos", X, Y, {Re, Im});
  }

  // acosh z = asinh(Re(conj(s1) s2)) + 2i atan2(Im s1, Re s2) with
  // s1 = sqrt(z - 1), s2 = sqrt(z + 1).
  Parts acosh(llvm::Value *X, llvm::Value *Y) {
    Parts S1 = sqrt(b.CreateFSub(X, k(1.0)), Y);
    Parts S2 = sqrt(b.CreateFAdd(X, k(1.0)), Y);
    llvm::Value *Re = call("asinh", b.CreateFAdd(mul(S1.first, S2.first),
                                                 mul(S1.second, S2.second)));
    llvm::Value *Im = mul(k(2.0), call("atan2", S1.second, S2.first));
    llvm::Value *Huge = huge(X, Y);
    Re = select(Huge, logAbsHuge(X, Y), Re);
    Im = select(Huge, call("atan2", Y, X), Im);
    return special(sv::AcoshSpecial, "acosh", X, Y, {Re, Im});
  }

  // asinh z = asinh(Im(conj(s1) s2)) + i atan2(y, Re(s1 s2)) with
  // s1 = sqrt(1 + i z), s2 = sqrt(1 - i z).
  Parts asinh(llvm::Value *X, llvm::Value *Y) {
    Parts S1 = sqrt(b.CreateFAdd(k(1.0), Y), b.CreateFNeg(X));
    Parts S2 = sqrt(b.CreateFSub(k(1.0), Y), X);
    llvm::Value *Re = call("asinh", b.CreateFSub(mul(S1.first, S2.second),
                                                 mul(S2.first, S1.second)));
    llvm::Value *Im =
        call("atan2", Y,
             b.CreateFSub(mul(S1.first, S2.first), mul(S1.second, S2.second)));
    llvm::Value *Huge = huge(X, Y);
    Re = select(Huge, copysign(logAbsHuge(X, Y), X), Re);
    Im = select(Huge, call("atan2", Y, fabs(X)), Im);
    return special(sv::AsinhSpecial, "asinh", X, Y, {Re, Im});
  }

  // atanh z = -atanh(-z) reduces to x >= 0; then
  // log1p(4x / ((1 - x)^2 + y^2)) / 4 - i atan2(-2y, (1 - x)(1 + x) - y^2) / 2,
  // with 1/z + i pi/2 for a large z and the limit at z = 1 + tiny i.
  Parts atanh(llvm::Value *X0, llvm::Value *Y0) {
    llvm::Value *Flip = b.CreateFCmpOLT(X0, k(0.0));
    llvm::Value *X = select(Flip, b.CreateFNeg(X0), X0);
    llvm::Value *Y = select(Flip, b.CreateFNeg(Y0), Y0);
    llvm::Value *Ay = fabs(Y);
    llvm::Value *OneMx = b.CreateFSub(k(1.0), X);
    llvm::Value *Re =
        mul(call("log1p",
                 b.CreateFDiv(mul(k(4.0), X),
                              b.CreateFAdd(mul(OneMx, OneMx), mul(Ay, Ay)))),
            k(0.25));
    llvm::Value *Im = mul(
        call("atan2", mul(k(-2.0), Y),
             b.CreateFSub(mul(OneMx, b.CreateFAdd(k(1.0), X)), mul(Ay, Ay))),
        k(-0.5));
    // z = 1 + i y with |y| below sqrt(min normal): inf + i y at y = +-0.
    llvm::Value *AtOne = andv(b.CreateFCmpOEQ(X, k(1.0)),
                              b.CreateFCmpOLT(Ay, k(lim.sqrtMinNormal)));
    llvm::Value *OneRe = b.CreateFNeg(
        call("log",
             b.CreateFDiv(b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, Ay),
                          b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt,
                                                 call("hypot", Ay, k(2.0))))));
    llvm::Value *OneIm =
        copysign(mul(call("atan2", k(2.0), b.CreateFNeg(Ay)), k(0.5)), Y);
    llvm::Value *YZero = isZero(Y);
    Re = select(AtOne, select(YZero, inf(), OneRe), Re);
    Im = select(AtOne, select(YZero, Y, OneIm), Im);
    // Large |z|: atanh z ~ 1/z +- i pi/2 (x / |z|^2 computed without overflow).
    llvm::Value *Big = b.CreateOr(b.CreateFCmpOGT(X, k(lim.sqrtLarge)),
                                  b.CreateFCmpOGT(Ay, k(lim.sqrtLarge)));
    llvm::Value *H = call("hypot", mul(X, k(0.5)), mul(Y, k(0.5)));
    Re = select(Big, b.CreateFDiv(b.CreateFDiv(mul(X, k(0.25)), H), H), Re);
    Im = select(Big, copysign(k(M_PI / 2), Y), Im);
    Re = select(Flip, b.CreateFNeg(Re), Re);
    Im = select(Flip, b.CreateFNeg(Im), Im);
    return special(sv::AtanhSpecial, "atanh", X0, Y0, {Re, Im});
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
  case 1: {
    llvm::Value *L = Make(C.log(X, Y));
    if (R.args.size() == 1)
      return L;
    // log(z, base) = log z / log base, a complex division (as CPython).
    llvm::Value *Bx = complexRe(Cx, R.args[1]), *By = complexIm(Cx, R.args[1]);
    return complexBinOp(Cx, &R.instr, bc::BinOpKind::TrueDiv, R.instr.type, L,
                        Make(C.log(Bx, By)), nullptr);
  }
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
  case 10:
    return Make(C.acos(X, Y));
  case 11: { // asin z = -i asinh(i z)
    Parts S = C.asinh(NegY, X);
    return C.make(S.second, B.CreateFNeg(S.first));
  }
  case 12: { // atan z = -i atanh(i z)
    Parts T = C.atanh(NegY, X);
    return C.make(T.second, B.CreateFNeg(T.first));
  }
  case 13:
    return Make(C.acosh(X, Y));
  case 14:
    return Make(C.asinh(X, Y));
  case 15:
    return Make(C.atanh(X, Y));
  case 16: { // np.log2 = log / ln 2
    Parts L = C.log(X, Y);
    return C.make(B.CreateFDiv(L.first, C.k(M_LN2)),
                  B.CreateFDiv(L.second, C.k(M_LN2)));
  }
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
