// The CPU executor's libdevice (LibdeviceHost.h): integer and bit functions,
// exactly as the PTX instructions libdevice uses (two's-complement wrap,
// popc/clz/brev/prmt/sad/mul.hi/mul24), bit casts, float predicates; and the
// symbol table of every pcj_nv_NAME.
#include "runtime/cpu/LibdeviceHost.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace pcj::rt::cpu {
namespace ldtypes {

namespace {
uint32_t u(i32 X) { return uint32_t(X); }
uint64_t u(i64 X) { return uint64_t(X); }
i32 s(uint32_t X) { return i32(X); }
i64 s(uint64_t X) { return i64(X); }
template <class To, class From> To bits(From X) {
  static_assert(sizeof(To) == sizeof(From));
  To Out;
  std::memcpy(&Out, &X, sizeof(To));
  return Out;
}
uint32_t brev32(uint32_t X) {
  uint32_t R = 0;
  for (int K = 0; K < 32; ++K, X >>= 1)
    R = (R << 1) | (X & 1);
  return R;
}
} // namespace

extern "C" {
// |INT_MIN| wraps to INT_MIN, as abs.s32 does.
i32 pcj_nv_abs(i32 X) { return X < 0 ? s(0u - u(X)) : X; }
i64 pcj_nv_llabs(i64 X) { return X < 0 ? s(uint64_t(0) - u(X)) : X; }
i32 pcj_nv_brev(i32 X) { return s(brev32(u(X))); }
i64 pcj_nv_brevll(i64 X) {
  uint64_t V = u(X);
  return s((uint64_t(brev32(uint32_t(V))) << 32) | brev32(uint32_t(V >> 32)));
}
// prmt.b32 with the selector's nibbles masked to 3 bits: result byte n is
// byte (selector nibble n) of the 8 bytes {y:x}.
i32 pcj_nv_byte_perm(i32 X, i32 Y, i32 S) {
  uint64_t Bytes = (uint64_t(u(Y)) << 32) | u(X);
  uint32_t R = 0;
  for (int N = 0; N < 4; ++N) {
    unsigned Sel = (u(S) >> (4 * N)) & 7;
    R |= uint32_t((Bytes >> (8 * Sel)) & 0xff) << (8 * N);
  }
  return s(R);
}
i32 pcj_nv_clz(i32 X) { return std::countl_zero(u(X)); }
i32 pcj_nv_clzll(i64 X) { return std::countl_zero(u(X)); }
// 1 + the index of the least significant set bit; 0 for 0.
i32 pcj_nv_ffs(i32 X) { return X ? std::countr_zero(u(X)) + 1 : 0; }
i32 pcj_nv_ffsll(i64 X) { return X ? std::countr_zero(u(X)) + 1 : 0; }
i32 pcj_nv_popc(i32 X) { return std::popcount(u(X)); }
i32 pcj_nv_popcll(i64 X) { return std::popcount(u(X)); }
// Halving adds without overflow: (x + y) >> 1 and (x + y + 1) >> 1.
i32 pcj_nv_hadd(i32 X, i32 Y) { return i32((int64_t(X) + Y) >> 1); }
i32 pcj_nv_rhadd(i32 X, i32 Y) { return i32((int64_t(X) + Y + 1) >> 1); }
i32 pcj_nv_uhadd(i32 X, i32 Y) {
  return s(uint32_t((uint64_t(u(X)) + u(Y)) >> 1));
}
i32 pcj_nv_urhadd(i32 X, i32 Y) {
  return s(uint32_t((uint64_t(u(X)) + u(Y) + 1) >> 1));
}
// The low 32 bits of the product of the low 24 bits (sign-extended for mul24).
i32 pcj_nv_mul24(i32 X, i32 Y) {
  int32_t A = s(u(X) << 8) >> 8, B = s(u(Y) << 8) >> 8;
  return s(uint32_t(int64_t(A) * B));
}
i32 pcj_nv_umul24(i32 X, i32 Y) {
  return s(uint32_t(uint64_t(u(X) & 0xffffff) * (u(Y) & 0xffffff)));
}
i32 pcj_nv_mulhi(i32 X, i32 Y) { return i32((int64_t(X) * Y) >> 32); }
i32 pcj_nv_umulhi(i32 X, i32 Y) {
  return s(uint32_t((uint64_t(u(X)) * u(Y)) >> 32));
}
i64 pcj_nv_mul64hi(i64 X, i64 Y) { return i64((__int128(X) * Y) >> 64); }
i64 pcj_nv_umul64hi(i64 X, i64 Y) {
  return s(uint64_t((unsigned __int128)u(X) * u(Y) >> 64));
}
// |x - y| + z, wrapping (sad.s32 / sad.u32).
i32 pcj_nv_sad(i32 X, i32 Y, i32 Z) {
  uint32_t D = X < Y ? u(Y) - u(X) : u(X) - u(Y);
  return s(D + u(Z));
}
i32 pcj_nv_usad(i32 X, i32 Y, i32 Z) {
  uint32_t D = u(X) < u(Y) ? u(Y) - u(X) : u(X) - u(Y);
  return s(D + u(Z));
}
i32 pcj_nv_max(i32 X, i32 Y) { return X > Y ? X : Y; }
i32 pcj_nv_min(i32 X, i32 Y) { return X < Y ? X : Y; }
i32 pcj_nv_umax(i32 X, i32 Y) { return u(X) > u(Y) ? X : Y; }
i32 pcj_nv_umin(i32 X, i32 Y) { return u(X) < u(Y) ? X : Y; }
i64 pcj_nv_llmax(i64 X, i64 Y) { return X > Y ? X : Y; }
i64 pcj_nv_llmin(i64 X, i64 Y) { return X < Y ? X : Y; }
i64 pcj_nv_ullmax(i64 X, i64 Y) { return u(X) > u(Y) ? X : Y; }
i64 pcj_nv_ullmin(i64 X, i64 Y) { return u(X) < u(Y) ? X : Y; }

// Bit casts.
i32 pcj_nv_double2hiint(f64 X) { return s(uint32_t(bits<uint64_t>(X) >> 32)); }
i32 pcj_nv_double2loint(f64 X) { return s(uint32_t(bits<uint64_t>(X))); }
f64 pcj_nv_hiloint2double(i32 Hi, i32 Lo) {
  return bits<double>((uint64_t(u(Hi)) << 32) | u(Lo));
}
i64 pcj_nv_double_as_longlong(f64 X) { return bits<i64>(X); }
f64 pcj_nv_longlong_as_double(i64 X) { return bits<double>(X); }
i32 pcj_nv_float_as_int(f32 X) { return bits<i32>(X); }
i32 pcj_nv_float_as_uint(f32 X) { return bits<i32>(X); }
f32 pcj_nv_int_as_float(i32 X) { return bits<float>(X); }
f32 pcj_nv_uint_as_float(i32 X) { return bits<float>(X); }

// Predicates: 0 or 1 (signbit: the sign bit, also of NaN and -0.0).
i32 pcj_nv_finitef(f32 X) { return std::isfinite(X); }
i32 pcj_nv_isfinited(f64 X) { return std::isfinite(X); }
i32 pcj_nv_isinff(f32 X) { return std::isinf(X); }
i32 pcj_nv_isinfd(f64 X) { return std::isinf(X); }
i32 pcj_nv_isnanf(f32 X) { return std::isnan(X); }
i32 pcj_nv_isnand(f64 X) { return std::isnan(X); }
i32 pcj_nv_signbitf(f32 X) { return i32(bits<uint32_t>(X) >> 31); }
i32 pcj_nv_signbitd(f64 X) { return i32(bits<uint64_t>(X) >> 63); }
} // extern "C"

} // namespace ldtypes

std::span<const RuntimeSymbol> libdeviceSymbols() {
  static const RuntimeSymbol Table[] = {
#define PCJ_LIBDEVICE(Name, Ret, Params)                                       \
  {"pcj_nv_" #Name, reinterpret_cast<void *>(&ldtypes::pcj_nv_##Name)},
#include "stdlib/registry/libdevice.def"
#undef PCJ_LIBDEVICE
  };
  return Table;
}

} // namespace pcj::rt::cpu
