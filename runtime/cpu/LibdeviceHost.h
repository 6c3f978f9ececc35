// The CPU executor's libdevice: host functions pcj_nv_NAME with the
// signature of libdevice's __nv_NAME, one per row of
// stdlib/registry/libdevice.def (the declarations below are generated from
// that table, so a definition with another signature does not compile).
// Kernels call them through TargetHooks::libdeviceFunction.
//   LibdeviceMath.cpp      libm and the CUDA special functions
//   LibdeviceRounding.cpp  rounding-mode arithmetic and conversions
//   LibdeviceInt.cpp       integer and bit functions, the symbol table
#pragma once

#include "runtime/cpu/GridRunner.h"

#include <cstdint>
#include <span>

namespace pcj::rt::cpu {

namespace ldtypes {
using i16 = int16_t;
using i32 = int32_t;
using i64 = int64_t;
using f32 = float;
using f64 = double;
using i32_out = int32_t *;
using f32_out = float *;
using f64_out = double *;

extern "C" {
#define PCJ_LIBDEVICE(Name, Ret, Params) Ret pcj_nv_##Name Params;
#include "stdlib/registry/libdevice.def"
#undef PCJ_LIBDEVICE
}
} // namespace ldtypes

// Every pcj_nv_NAME by name, for runtimeSymbols().
std::span<const RuntimeSymbol> libdeviceSymbols();

} // namespace pcj::rt::cpu
