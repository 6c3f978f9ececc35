// The CPU executor's libdevice (LibdeviceHost.h): the math functions.
// Where C's libm has the function (sin, erfc, jn, remquo, ...) the host
// calls it: the same function, within the few-ulp accuracy both sides
// document (docs/language.md lists the differences).  CUDA's own functions
// are written here: sinpi/cospi (exact argument reduction), rsqrt, rcbrt,
// erfinv/erfcinv (Halley/Newton on erf/erfc), erfcx, normcdf/normcdfinv,
// cyl_bessel_i0/i1 (power series, asymptotic series for large x),
// norm3d/norm4d/rnorm*, rhypot, powi (libdevice's own multiplication
// order), saturatef.  The fast_* functions
// (GPU approximations) give the accurate value.  float32 versions of
// CUDA's own functions compute in double and round once.
#include "runtime/cpu/LibdeviceHost.h"

#include <cfloat>
#include <climits>
#include <cmath>

namespace pcj::rt::cpu {
namespace ldtypes {

namespace {

constexpr double kPi = 3.141592653589793;
constexpr double kTwoOverSqrtPi = 1.1283791670955126;
constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kInvSqrt2 = 0.7071067811865476;
constexpr double kInvSqrt2Lo = -4.833646656726457e-17; // 1/sqrt(2) - kInvSqrt2

// sin(pi x), cos(pi x) for |x| <= 1/4.
double sinPiSmall(double X) { return std::sin(kPi * X); }
double cosPiSmall(double X) { return std::cos(kPi * X); }

double sinPi(double X) {
  if (!std::isfinite(X))
    return X - X;                    // NaN
  double R = std::remainder(X, 2.0); // exact, in [-1, 1]
  double A = std::fabs(R);
  if (A > 0.5)
    A = 1.0 - A; // sin(pi a) = sin(pi (1 - a)); exact
  double S = A <= 0.25 ? sinPiSmall(A) : cosPiSmall(0.5 - A);
  if (S == 0)
    return std::copysign(0.0, X);
  return std::copysign(S, R);
}

double cosPi(double X) {
  if (!std::isfinite(X))
    return X - X;
  double A = std::fabs(std::remainder(X, 2.0)); // [0, 1]
  double Sign = 1;
  if (A > 0.5) {
    A = 1.0 - A; // cos(pi a) = -cos(pi (1 - a))
    Sign = -1;
  }
  if (A == 0.5)
    return 0.0;
  return Sign * (A <= 0.25 ? cosPiSmall(A) : sinPiSmall(0.5 - A));
}

// exp(x * y) with x * y taken exactly (a double-double product).
double expProduct(double X, double Y) {
  double Hi = X * Y;
  double Lo = std::fma(X, Y, -Hi);
  double E = std::exp(Hi);
  return E + E * Lo;
}

// erfcx(x) = exp(x^2) erfc(x).
double erfcx(double X) {
  if (std::isnan(X))
    return X;
  if (X < 0) {
    if (X < -26.7)
      return HUGE_VAL;
    return 2 * expProduct(X, X) - erfcx(-X);
  }
  if (X < 10)
    return expProduct(X, X) * std::erfc(X);
  if (std::isinf(X))
    return 0;
  // Asymptotic: 1/(x sqrt(pi)) * sum_k (-1)^k (2k-1)!! / (2x^2)^k.
  double T = 1, S = 1, Z = 2 * X * X;
  for (int K = 1; K < 60; ++K) {
    double Next = -T * (2 * K - 1) / Z;
    if (std::fabs(Next) >= std::fabs(T))
      break;
    T = Next;
    S += T;
    if (std::fabs(T) < 1e-17 * std::fabs(S))
      break;
  }
  return S / (X * 1.772453850905516);
}

// A first guess for y with erfc(y) = C (0 < C < 1), Winitzki's formula.
double erfcinvGuess(double C) {
  const double A = 0.147;
  double L = std::log(C) + std::log(2 - C); // log(1 - x^2), x = 1 - C
  double T = 2 / (kPi * A) + L / 2;
  return std::sqrt(std::sqrt(T * T - L / A) - T);
}

// y > 0 with erfc(y) = C, 0 < C < 1: Newton on log(erfc(y)) - log(C),
// where log(erfc(y)) = log(erfcx(y)) - y^2 stays finite for tiny C.
double erfcinvSmall(double C) {
  double Y = erfcinvGuess(C), LogC = std::log(C);
  for (int K = 0; K < 50; ++K) {
    double E = erfcx(Y);
    double H = std::log(E) - Y * Y - LogC;
    double D = H * E / kTwoOverSqrtPi; // h / h', h' = -2/sqrt(pi)/erfcx(y)
    Y += D;
    if (std::fabs(D) <= 1e-17 * Y)
      break;
  }
  return Y;
}

double erfinv(double X) {
  double A = std::fabs(X);
  if (std::isnan(X) || A > 1)
    return NAN;
  if (A == 1)
    return std::copysign(HUGE_VAL, X);
  if (A > 0.5)
    return std::copysign(erfcinvSmall(1 - A), X); // 1 - A exact
  if (X == 0)
    return X;
  // Halley on erf(y) - x, erf''/erf' = -2y.
  double Y = std::copysign(erfcinvGuess(1 - A), X);
  for (int K = 0; K < 20; ++K) {
    double F = std::erf(Y) - X;
    double D = F / (kTwoOverSqrtPi * std::exp(-Y * Y));
    D = D / (1 + Y * D);
    Y -= D;
    if (std::fabs(D) <= 1e-17 * std::fabs(Y))
      break;
  }
  return Y;
}

double erfcinv(double C) {
  if (std::isnan(C) || C < 0 || C > 2)
    return NAN;
  if (C == 0)
    return HUGE_VAL;
  if (C == 2)
    return -HUGE_VAL;
  if (C == 1)
    return 0;
  if (C > 1)
    return -erfcinv(2 - C); // exact
  if (C >= 0.5)
    return erfinv(1 - C); // exact
  return erfcinvSmall(C);
}

// Phi(x) = erfc(-x/sqrt(2)) / 2, with the argument's rounding error
// corrected to first order (erfc' = -2/sqrt(pi) exp(-z^2)).
double normcdf(double X) {
  if (std::isnan(X))
    return X;
  double Z = -X * kInvSqrt2;
  double Lo = std::fma(-X, kInvSqrt2, -Z) + -X * kInvSqrt2Lo;
  double R = std::erfc(Z);
  if (std::isfinite(Z))
    R -= Lo * kTwoOverSqrtPi * std::exp(-Z * Z);
  return R / 2;
}

// Modified Bessel functions I0, I1: the power series below 25, else the
// asymptotic series e^x / sqrt(2 pi x) * sum_k a_k with
// a_k = -a_{k-1} (mu - (2k-1)^2) / (8 k x), mu = 4 nu^2.
double besselI(int Nu, double X) {
  double A = std::fabs(X);
  if (std::isnan(X))
    return X;
  double R;
  if (A < 25) {
    double Q = A * A / 4, T = Nu ? A / 2 : 1, S = T;
    for (int K = 1; K < 200; ++K) {
      T *= Q / (double(K) * (K + Nu));
      S += T;
      if (T < 1e-17 * S)
        break;
    }
    R = S;
  } else if (std::isinf(A)) {
    R = HUGE_VAL;
  } else {
    double Mu = 4.0 * Nu * Nu, T = 1, S = 1;
    for (int K = 1; K < 60; ++K) {
      double Next = -T * (Mu - double(2 * K - 1) * (2 * K - 1)) / (8.0 * K * A);
      if (std::fabs(Next) >= std::fabs(T))
        break;
      T = Next;
      S += T;
      if (std::fabs(T) < 1e-17 * std::fabs(S))
        break;
    }
    double Half =
        std::exp(A / 2); // e^x in two halves: finite up to I's own overflow
    R = Half * (Half / std::sqrt(2 * kPi * A) * S);
  }
  return Nu && X < 0 ? -R : R;
}

// x^n by binary exponentiation, the multiplications in libdevice's order
// (so the host rounds exactly like the GPU), 1/x^|n| for negative n.
template <class T> T powi(T X, int32_t N) {
  uint32_t E = N < 0 ? 0u - uint32_t(N) : uint32_t(N);
  T R = 1;
  for (;;) {
    if (E & 1)
      R *= X;
    E >>= 1;
    if (!E)
      break;
    X *= X;
  }
  return N < 0 ? T(1) / R : R;
}

double rsqrt(double X) { return 1 / std::sqrt(X); }

// 1/sqrt(x) rounded once to float: the double result, moved to the
// neighbouring float when the exact value lies beyond the midpoint
// (decided exactly: t > m  <=>  x m^2 < 1, with x m^2 as a double-double).
float rsqrtfCorrect(float X) {
  if (!(X > 0) || std::isinf(X))
    return float(rsqrt(X));
  float Y = float(rsqrt(double(X)));
  auto Below = [&](double M) { // 1/sqrt(x) < M ?
    double P = M * M;          // exact: M has at most 25 bits
    double Hi = double(X) * P; // x * m^2 = Hi + Lo exactly
    double Lo = std::fma(double(X), P, -Hi);
    return Hi > 1 || (Hi == 1 && Lo > 0);
  };
  double Up = (double(Y) + double(std::nextafter(Y, INFINITY))) / 2;
  double Down = (double(Y) + double(std::nextafter(Y, 0.0f))) / 2;
  if (!Below(Up) && std::isfinite(Up))
    return std::nextafter(Y, INFINITY);
  if (Below(Down))
    return std::nextafter(Y, 0.0f);
  return Y;
}

int32_t ilogbExact(double X) {
  if (std::isnan(X) || X == 0)
    return INT_MIN;
  if (std::isinf(X))
    return INT_MAX;
  return std::ilogb(X);
}

double lgammaR(double X) {
  int Sign;
  return lgamma_r(X, &Sign);
}
float lgammaRf(float X) {
  int Sign;
  return lgammaf_r(X, &Sign);
}

} // namespace

extern "C" {
#define PCJ_LIBM1(N)                                                           \
  f64 pcj_nv_##N(f64 X) { return ::N(X); }                                     \
  f32 pcj_nv_##N##f(f32 X) { return ::N##f(X); }
#define PCJ_LIBM2(N)                                                           \
  f64 pcj_nv_##N(f64 X, f64 Y) { return ::N(X, Y); }                           \
  f32 pcj_nv_##N##f(f32 X, f32 Y) { return ::N##f(X, Y); }
PCJ_LIBM1(acos)
PCJ_LIBM1(acosh)
PCJ_LIBM1(asin)
PCJ_LIBM1(asinh)
PCJ_LIBM1(atan)
PCJ_LIBM1(atanh)
PCJ_LIBM1(cbrt)
PCJ_LIBM1(ceil)
PCJ_LIBM1(cos)
PCJ_LIBM1(cosh)
PCJ_LIBM1(erf)
PCJ_LIBM1(erfc)
PCJ_LIBM1(exp)
PCJ_LIBM1(exp10)
PCJ_LIBM1(exp2)
PCJ_LIBM1(expm1)
PCJ_LIBM1(fabs)
PCJ_LIBM1(floor)
PCJ_LIBM1(j0)
PCJ_LIBM1(j1)
PCJ_LIBM1(log)
PCJ_LIBM1(log10)
PCJ_LIBM1(log1p)
PCJ_LIBM1(log2)
PCJ_LIBM1(logb)
PCJ_LIBM1(nearbyint)
PCJ_LIBM1(rint)
PCJ_LIBM1(round)
PCJ_LIBM1(sin)
PCJ_LIBM1(sinh)
PCJ_LIBM1(sqrt)
PCJ_LIBM1(tan)
PCJ_LIBM1(tanh)
PCJ_LIBM1(tgamma)
PCJ_LIBM1(trunc)
PCJ_LIBM1(y0)
PCJ_LIBM1(y1)
PCJ_LIBM2(atan2)
PCJ_LIBM2(copysign)
PCJ_LIBM2(fdim)
PCJ_LIBM2(fmax)
PCJ_LIBM2(fmin)
PCJ_LIBM2(fmod)
PCJ_LIBM2(hypot)
PCJ_LIBM2(nextafter)
PCJ_LIBM2(pow)
PCJ_LIBM2(remainder)
#undef PCJ_LIBM1
#undef PCJ_LIBM2

f64 pcj_nv_fma(f64 X, f64 Y, f64 Z) { return std::fma(X, Y, Z); }
f32 pcj_nv_fmaf(f32 X, f32 Y, f32 Z) { return std::fma(X, Y, Z); }
f64 pcj_nv_jn(i32 N, f64 X) { return ::jn(N, X); }
f32 pcj_nv_jnf(i32 N, f32 X) { return ::jnf(N, X); }
f64 pcj_nv_yn(i32 N, f64 X) { return ::yn(N, X); }
f32 pcj_nv_ynf(i32 N, f32 X) { return ::ynf(N, X); }
f64 pcj_nv_ldexp(f64 X, i32 N) { return std::ldexp(X, N); }
f32 pcj_nv_ldexpf(f32 X, i32 N) { return std::ldexp(X, N); }
f64 pcj_nv_scalbn(f64 X, i32 N) { return std::scalbn(X, N); }
f32 pcj_nv_scalbnf(f32 X, i32 N) { return std::scalbn(X, N); }
i32 pcj_nv_ilogb(f64 X) { return ilogbExact(X); }
i32 pcj_nv_ilogbf(f32 X) { return ilogbExact(X); }
f64 pcj_nv_lgamma(f64 X) { return lgammaR(X); }
f32 pcj_nv_lgammaf(f32 X) { return lgammaRf(X); }
f64 pcj_nv_frexp(f64 X, i32_out E) {
  *E = 0;
  return std::frexp(X, E);
}
f32 pcj_nv_frexpf(f32 X, i32_out E) {
  *E = 0;
  return std::frexp(X, E);
}
f64 pcj_nv_modf(f64 X, f64_out I) { return std::modf(X, I); }
f32 pcj_nv_modff(f32 X, f32_out I) { return std::modf(X, I); }
f64 pcj_nv_remquo(f64 X, f64 Y, i32_out Q) {
  *Q = 0;
  return std::remquo(X, Y, Q);
}
f32 pcj_nv_remquof(f32 X, f32 Y, i32_out Q) {
  *Q = 0;
  return std::remquo(X, Y, Q);
}
void pcj_nv_sincos(f64 X, f64_out S, f64_out C) {
  *S = std::sin(X);
  *C = std::cos(X);
}
void pcj_nv_sincosf(f32 X, f32_out S, f32_out C) {
  *S = std::sin(X);
  *C = std::cos(X);
}
f64 pcj_nv_powi(f64 X, i32 N) { return powi(X, N); }
f32 pcj_nv_powif(f32 X, i32 N) { return powi(X, N); }

// CUDA's own functions.
f64 pcj_nv_sinpi(f64 X) { return sinPi(X); }
f32 pcj_nv_sinpif(f32 X) { return f32(sinPi(X)); }
f64 pcj_nv_cospi(f64 X) { return cosPi(X); }
f32 pcj_nv_cospif(f32 X) { return f32(cosPi(X)); }
void pcj_nv_sincospi(f64 X, f64_out S, f64_out C) {
  *S = sinPi(X);
  *C = cosPi(X);
}
void pcj_nv_sincospif(f32 X, f32_out S, f32_out C) {
  *S = f32(sinPi(X));
  *C = f32(cosPi(X));
}
f64 pcj_nv_rsqrt(f64 X) { return rsqrt(X); }
f32 pcj_nv_rsqrtf(f32 X) { return f32(rsqrt(X)); }
f32 pcj_nv_frsqrt_rn(f32 X) { return rsqrtfCorrect(X); }
f64 pcj_nv_rcbrt(f64 X) { return 1 / std::cbrt(X); }
f32 pcj_nv_rcbrtf(f32 X) { return f32(1 / std::cbrt(f64(X))); }
f64 pcj_nv_rcp64h(f64 X) { return 1 / X; }
f64 pcj_nv_erfinv(f64 X) { return erfinv(X); }
f32 pcj_nv_erfinvf(f32 X) { return f32(erfinv(X)); }
f64 pcj_nv_erfcinv(f64 X) { return erfcinv(X); }
f32 pcj_nv_erfcinvf(f32 X) { return f32(erfcinv(X)); }
f64 pcj_nv_erfcx(f64 X) { return erfcx(X); }
f32 pcj_nv_erfcxf(f32 X) { return f32(erfcx(X)); }
f64 pcj_nv_normcdf(f64 X) { return normcdf(X); }
f32 pcj_nv_normcdff(f32 X) { return f32(normcdf(X)); }
f64 pcj_nv_normcdfinv(f64 P) { return -kSqrt2 * erfcinv(2 * P); }
f32 pcj_nv_normcdfinvf(f32 P) { return f32(-kSqrt2 * erfcinv(2 * f64(P))); }
f64 pcj_nv_cyl_bessel_i0(f64 X) { return besselI(0, X); }
f32 pcj_nv_cyl_bessel_i0f(f32 X) { return f32(besselI(0, X)); }
f64 pcj_nv_cyl_bessel_i1(f64 X) { return besselI(1, X); }
f32 pcj_nv_cyl_bessel_i1f(f32 X) { return f32(besselI(1, X)); }
f64 pcj_nv_rhypot(f64 X, f64 Y) { return 1 / std::hypot(X, Y); }
f32 pcj_nv_rhypotf(f32 X, f32 Y) { return f32(1 / std::hypot(f64(X), f64(Y))); }
f64 pcj_nv_norm3d(f64 A, f64 B, f64 C) {
  return std::hypot(std::hypot(A, B), C);
}
f32 pcj_nv_norm3df(f32 A, f32 B, f32 C) {
  return f32(std::hypot(f64(A), f64(B), f64(C)));
}
f64 pcj_nv_norm4d(f64 A, f64 B, f64 C, f64 D) {
  return std::hypot(std::hypot(A, B), std::hypot(C, D));
}
f32 pcj_nv_norm4df(f32 A, f32 B, f32 C, f32 D) {
  return f32(
      std::hypot(std::hypot(f64(A), f64(B)), std::hypot(f64(C), f64(D))));
}
f64 pcj_nv_rnorm3d(f64 A, f64 B, f64 C) { return 1 / pcj_nv_norm3d(A, B, C); }
f32 pcj_nv_rnorm3df(f32 A, f32 B, f32 C) {
  return f32(1 / std::hypot(f64(A), f64(B), f64(C)));
}
f64 pcj_nv_rnorm4d(f64 A, f64 B, f64 C, f64 D) {
  return 1 / pcj_nv_norm4d(A, B, C, D);
}
f32 pcj_nv_rnorm4df(f32 A, f32 B, f32 C, f32 D) {
  return f32(
      1 / std::hypot(std::hypot(f64(A), f64(B)), std::hypot(f64(C), f64(D))));
}
// Clamped to [0, 1]; NaN -> 0.
f32 pcj_nv_saturatef(f32 X) { return X > 0 ? (X < 1 ? X : 1.0f) : 0.0f; }

// GPU approximations; the host gives the accurate value.
f32 pcj_nv_fast_cosf(f32 X) { return std::cos(X); }
f32 pcj_nv_fast_sinf(f32 X) { return std::sin(X); }
f32 pcj_nv_fast_tanf(f32 X) { return std::tan(X); }
f32 pcj_nv_fast_tanhf(f32 X) { return std::tanh(X); }
f32 pcj_nv_fast_expf(f32 X) { return std::exp(X); }
f32 pcj_nv_fast_exp10f(f32 X) { return ::exp10f(X); }
f32 pcj_nv_fast_logf(f32 X) { return std::log(X); }
f32 pcj_nv_fast_log2f(f32 X) { return std::log2(X); }
f32 pcj_nv_fast_log10f(f32 X) { return std::log10(X); }
f32 pcj_nv_fast_powf(f32 X, f32 Y) { return std::pow(X, Y); }
f32 pcj_nv_fast_fdividef(f32 X, f32 Y) { return X / Y; }
void pcj_nv_fast_sincosf(f32 X, f32_out S, f32_out C) {
  *S = std::sin(X);
  *C = std::cos(X);
}
} // extern "C"

} // namespace ldtypes
} // namespace pcj::rt::cpu
