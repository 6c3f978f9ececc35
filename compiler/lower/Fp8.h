// Conversions of the fp8 storage types in target-independent LLVM IR
// (private to compiler/lower and stdlib/lowering; see Fp8.cpp).
#pragma once

#include "types/Fp8.h"

#include <llvm/IR/IRBuilder.h>

namespace pcj::lower {

class LowerContext;

// V converted from the type From to the type To, one of them an fp8 type
// (LowerContext::cast): fp8_T(x) and float32(f), int64(f), ... of an fp8 f.
llvm::Value *castFp8(LowerContext &Cx, llvm::Value *V, types::TypeRef From,
                     types::TypeRef To);

// numba-cuda's cvt_* functions (cuda_fp8.h's __nv_cvt_*), on i8 codes.
// SatFinite and IsE5M2 are i1 values (run-time values are fine): saturate
// overflow to the largest finite value (else infinity or NaN); the format
// e5m2 (else e4m3).  X is a float or a double; a float NaN gives 0x7f, a
// double NaN keeps its sign (and, for e5m2, its top fraction bit).
llvm::Value *fp8FromFloat(llvm::IRBuilder<> &B, llvm::Value *X,
                          llvm::Value *SatFinite, llvm::Value *IsE5M2);
// X a float or a double (a double is first rounded to a float to odd, as
// cuda_fp8.h does); RoundUp: toward +infinity on |X|, else toward zero.
llvm::Value *e8m0FromFloat(llvm::IRBuilder<> &B, llvm::Value *X,
                           llvm::Value *SatFinite, bool RoundUp);
// An e8m0 code as bfloat16 bits (i16): 2**(x-127); 0 gives 2**-127
// (0x0040), 0xff the NaN 0x7fff.
llvm::Value *e8m0ToBf16Bits(llvm::IRBuilder<> &B, llvm::Value *Code);

} // namespace pcj::lower
