// The fp8 storage types (numba-cuda's fp8_e4m3, fp8_e5m2, fp8_e8m0; CUDA's
// __nv_fp8_e4m3 & co.): one byte holding an 8-bit float, Kind::Fp8, named
// by its format.  Values of these types only convert -- to and from every
// int and float type (lower/Fp8.cpp) -- they have no arithmetic, as in
// numba-cuda.
//   e4m3: sign, 4 exponent bits (bias 7), 3 fraction bits; no infinity,
//         0x7f/0xff are NaN, largest finite 448 (OCP FP8 "E4M3").
//   e5m2: sign, 5 exponent bits (bias 15), 2 fraction bits; IEEE-like with
//         infinities 0x7c/0xfc, largest finite 57344.
//   e8m0: 8 exponent bits (bias 127), no sign, no fraction: 2**(x-127),
//         0xff is NaN (OCP MX scale format).
#pragma once

#include "types/Type.h"

namespace pcj::types {

enum class Fp8Format : uint8_t { E4M3, E5M2, E8M0 };

TypeRef fp8Ty(Fp8Format F);
// The format of an fp8 type.
Fp8Format fp8Format(TypeRef T);

inline bool isFp8(TypeRef T) { return T->kind() == Kind::Fp8; }

} // namespace pcj::types
