// The CPU executor's libdevice (LibdeviceHost.h): arithmetic and conversions
// in a named IEEE rounding mode (fadd_rz, ddiv_ru, fma_rd, double2float_ru,
// ll2float_rz, float2int_rd, ...), exact like the GPU's instructions.
//
// The host's floating-point unit rounds in any of the four IEEE modes, so
// each operation runs once with the mode switched (fesetround) and
// switched back.  Operands and result pass through volatile variables so
// the operation happens between the two switches; this file is also built
// with -frounding-math -ffp-contract=off (CMakeLists.txt) so the compiler
// neither folds nor fuses it.  The tests compare every function with exact
// rational arithmetic (tests/kernels/test_libdevice.py).
//
// Float -> integer conversions follow PTX's cvt.{rni,rzi,rmi,rpi}: round in
// the mode, saturate to the integer type's range, NaN as the GPU gives it
// (toInt).
#include "runtime/cpu/LibdeviceHost.h"

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace pcj::rt::cpu {
namespace ldtypes {

namespace {

template <class T, class Fn> T inMode(int Mode, Fn Op) {
  int Old = std::fegetround();
  std::fesetround(Mode);
  T R = Op();
  std::fesetround(Old);
  return R;
}

template <class T> T add(T A, T B) {
  volatile T X = A, Y = B;
  volatile T R = X + Y;
  return R;
}
template <class T> T sub(T A, T B) {
  volatile T X = A, Y = B;
  volatile T R = X - Y;
  return R;
}
template <class T> T mul(T A, T B) {
  volatile T X = A, Y = B;
  volatile T R = X * Y;
  return R;
}
template <class T> T div(T A, T B) {
  volatile T X = A, Y = B;
  volatile T R = X / Y;
  return R;
}
template <class T> T root(T A) {
  volatile T X = A;
  volatile T R = std::sqrt(T(X));
  return R;
}
template <class T> T fused(T A, T B, T C) {
  volatile T X = A, Y = B, Z = C;
  volatile T R = std::fma(T(X), T(Y), T(Z));
  return R;
}
template <class To, class From> To convert(From A) {
  volatile From X = A;
  volatile To R = To(X);
  return R;
}

// cvt.rXi: the float rounded to an integer value in the mode, saturated.
template <class I, class F> I toInt(F X, int Mode) {
  // NaN: 0 from a float to 32 bits; the bit pattern 0x80...0 from a double
  // or to 64 bits -- what cvt.rXi does on the GPU (measured on the H200;
  // PTX's manual says 0 for all).
  if (std::isnan(X))
    return sizeof(F) == 4 && sizeof(I) == 4
               ? I(0)
               : I(std::make_unsigned_t<I>(1) << (sizeof(I) * 8 - 1));
  F R;
  switch (Mode) {
  case FE_DOWNWARD:
    R = std::floor(X);
    break;
  case FE_UPWARD:
    R = std::ceil(X);
    break;
  case FE_TOWARDZERO:
    R = std::trunc(X);
    break;
  default:
    R = std::nearbyint(X); // ties to even (the default mode)
  }
  using L = std::numeric_limits<I>;
  // L::min() and -L::min() (or 2^bits for unsigned) are powers of two, exact in
  // F.
  F Lo = F(L::min()),
    Hi = L::is_signed ? -F(L::min()) : F(2) * F(I(1) << (sizeof(I) * 8 - 1));
  if (R <= Lo)
    return L::min();
  if (R >= Hi)
    return L::max();
  return I(R);
}

} // namespace

#define PCJ_FOUR(Name, Ret, Params, Expr)                                      \
  Ret pcj_nv_##Name##_rn Params {                                              \
    return inMode<Ret>(FE_TONEAREST, [&] { return Expr; });                    \
  }                                                                            \
  Ret pcj_nv_##Name##_rz Params {                                              \
    return inMode<Ret>(FE_TOWARDZERO, [&] { return Expr; });                   \
  }                                                                            \
  Ret pcj_nv_##Name##_ru Params {                                              \
    return inMode<Ret>(FE_UPWARD, [&] { return Expr; });                       \
  }                                                                            \
  Ret pcj_nv_##Name##_rd Params {                                              \
    return inMode<Ret>(FE_DOWNWARD, [&] { return Expr; });                     \
  }

#define PCJ_TOINT(Name, Ret, I, F)                                             \
  Ret pcj_nv_##Name##_rn(F X) { return Ret(toInt<I>(X, FE_TONEAREST)); }       \
  Ret pcj_nv_##Name##_rz(F X) { return Ret(toInt<I>(X, FE_TOWARDZERO)); }      \
  Ret pcj_nv_##Name##_ru(F X) { return Ret(toInt<I>(X, FE_UPWARD)); }          \
  Ret pcj_nv_##Name##_rd(F X) { return Ret(toInt<I>(X, FE_DOWNWARD)); }

extern "C" {
PCJ_FOUR(dadd, f64, (f64 X, f64 Y), add(X, Y))
PCJ_FOUR(dsub, f64, (f64 X, f64 Y), sub(X, Y))
PCJ_FOUR(dmul, f64, (f64 X, f64 Y), mul(X, Y))
PCJ_FOUR(ddiv, f64, (f64 X, f64 Y), div(X, Y))
PCJ_FOUR(drcp, f64, (f64 X), div(1.0, X))
PCJ_FOUR(dsqrt, f64, (f64 X), root(X))
PCJ_FOUR(fma, f64, (f64 X, f64 Y, f64 Z), fused(X, Y, Z))
PCJ_FOUR(fadd, f32, (f32 X, f32 Y), add(X, Y))
PCJ_FOUR(fsub, f32, (f32 X, f32 Y), sub(X, Y))
PCJ_FOUR(fmul, f32, (f32 X, f32 Y), mul(X, Y))
PCJ_FOUR(fdiv, f32, (f32 X, f32 Y), div(X, Y))
PCJ_FOUR(frcp, f32, (f32 X), div(1.0f, X))
PCJ_FOUR(fsqrt, f32, (f32 X), root(X))
PCJ_FOUR(fmaf, f32, (f32 X, f32 Y, f32 Z), fused(X, Y, Z))
PCJ_FOUR(fmaf_ieee, f32, (f32 X, f32 Y, f32 Z), fused(X, Y, Z))

PCJ_FOUR(double2float, f32, (f64 X), (convert<f32>(X)))
PCJ_FOUR(ll2float, f32, (i64 X), (convert<f32>(X)))
PCJ_FOUR(ull2float, f32, (i64 X), (convert<f32>(uint64_t(X))))
PCJ_FOUR(ll2double, f64, (i64 X), (convert<f64>(X)))
PCJ_FOUR(ull2double, f64, (i64 X), (convert<f64>(uint64_t(X))))
PCJ_FOUR(int2float, f32, (i32 X), (convert<f32>(X)))
PCJ_FOUR(uint2float, f32, (i32 X), (convert<f32>(uint32_t(X))))
// Exact: every 32-bit integer is a double.
f64 pcj_nv_int2double_rn(i32 X) { return f64(X); }
f64 pcj_nv_uint2double_rn(i32 X) { return f64(uint32_t(X)); }

PCJ_TOINT(float2int, i32, int32_t, f32)
PCJ_TOINT(float2uint, i32, uint32_t, f32)
PCJ_TOINT(float2ll, i64, int64_t, f32)
PCJ_TOINT(float2ull, i64, uint64_t, f32)
PCJ_TOINT(double2int, i32, int32_t, f64)
PCJ_TOINT(double2uint, i32, uint32_t, f64)
PCJ_TOINT(double2ll, i64, int64_t, f64)
PCJ_TOINT(double2ull, i64, uint64_t, f64)

// llrint: cvt.rni.s64; llround: halfway cases away from zero, then cvt.rzi.
i64 pcj_nv_llrint(f64 X) { return toInt<int64_t>(X, FE_TONEAREST); }
i64 pcj_nv_llrintf(f32 X) { return toInt<int64_t>(X, FE_TONEAREST); }
i64 pcj_nv_llround(f64 X) {
  return toInt<int64_t>(std::round(X), FE_TOWARDZERO);
}
i64 pcj_nv_llroundf(f32 X) {
  return toInt<int64_t>(std::round(X), FE_TOWARDZERO);
}

// float <-> half bits (cvt.rn.f16.f32 / cvt.f32.f16).  The host's binary16
// type: AArch64's __fp16 (IEEE binary16 there; float -> __fp16 rounds to
// nearest even; GCC 12 has no _Float16 in C++ for aarch64, though it
// defines __FLT16_MAX__), else _Float16 (x86-64).
#if defined(__aarch64__)
using HostHalf = __fp16;
#elif defined(__FLT16_MAX__)
using HostHalf = _Float16;
#else
#error "no binary16 type for this host"
#endif
i16 pcj_nv_float2half_rn(f32 X) {
  HostHalf H = HostHalf(X);
  uint16_t B;
  std::memcpy(&B, &H, 2);
  return i16(B);
}
f32 pcj_nv_half2float(i16 X) {
  uint16_t B = uint16_t(X);
  HostHalf H;
  std::memcpy(&H, &B, 2);
  return f32(H);
}
} // extern "C"

} // namespace ldtypes
} // namespace pcj::rt::cpu
