# SIGNATURE: void(float32[::1], float64[::1], int32[::1], int64[::1], uint8[::1])
# Float -> int conversions saturate and map NaN to 0 (docs/language.md): on
# NVPTX that is cvt.rzi, which saturates, plus one select for NaN (the
# H200 gives 0x80...0 for NaN in f64 -> s32 and in every conversion to a
# 64-bit integer); LLVM's fptosi.sat would add compares and selects around
# it, and its fptosi is poison out of range.  8-bit results clamp the
# 32-bit conversion.
# CHECK-LLVM: call i32 asm "cvt.rzi.s32.f32 $0, $1;", "=r,f"
# CHECK-LLVM: call i64 asm "cvt.rzi.s64.f64 $0, $1;", "=l,d"
# CHECK-LLVM: call i32 @llvm.smax.i32({{.*}}, i32 0)
# CHECK-LLVM: call i32 @llvm.smin.i32({{.*}}, i32 255)
# CHECK-PTX: cvt.rzi.s32.f32 [[R32:%r[0-9]+]], [[F32:%r[0-9]+]];
# CHECK-PTX: setp.nan.f32 [[P32:%p[0-9]+]], [[F32]], [[F32]];
# CHECK-PTX-NEXT: selp.b32 {{%r[0-9]+}}, 0, [[R32]], [[P32]];
# CHECK-PTX: st.global.b32
# CHECK-PTX: cvt.rzi.s64.f64 [[R64:%rd[0-9]+]], [[F64:%rd[0-9]+]];
# CHECK-PTX: setp.nan.f64 [[P64:%p[0-9]+]], [[F64]], [[F64]];
# CHECK-PTX-NEXT: selp.b64 {{%rd[0-9]+}}, 0, [[R64]], [[P64]];
# CHECK-PTX: st.global.b64
import numpy as np

from pycuda_jit import cuda


def float_to_int(x, y, a, b, c):
    i = cuda.grid(1)
    if i < x.size:
        a[i] = np.int32(x[i])
        b[i] = y[i]
        c[i] = np.uint8(x[i])
