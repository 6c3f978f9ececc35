# SIGNATURE: void(float32[::1], float64[::1], int32[::1], int64[::1], uint8[::1])
# Float -> int conversions saturate and map NaN to 0 (docs/language.md): on
# NVPTX that is exactly cvt.rzi, emitted as one instruction (LLVM's
# fptosi.sat would add compares and selects; its fptosi is poison out of
# range).  8-bit results clamp the 32-bit conversion.
# CHECK-LLVM: call i32 asm "cvt.rzi.s32.f32 $0, $1;", "=r,f"
# CHECK-LLVM: call i64 asm "cvt.rzi.s64.f64 $0, $1;", "=l,d"
# CHECK-LLVM: call i32 @llvm.smax.i32({{.*}}, i32 0)
# CHECK-LLVM: call i32 @llvm.smin.i32({{.*}}, i32 255)
# CHECK-PTX: cvt.rzi.s32.f32
# CHECK-PTX-NOT: selp
# CHECK-PTX: st.global.u32
# CHECK-PTX: cvt.rzi.s64.f64
# CHECK-PTX-NOT: selp
# CHECK-PTX: st.global.u64
import numpy as np

from pycuda_jit import cuda


def float_to_int(x, y, a, b, c):
    i = cuda.grid(1)
    if i < x.size:
        a[i] = np.int32(x[i])
        b[i] = y[i]
        c[i] = np.uint8(x[i])
