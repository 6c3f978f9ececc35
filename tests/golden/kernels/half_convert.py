# SIGNATURE: void(int8[::1], uint8[::1], float16[::1], int8[::1], uint64[::1])
# float16 conversions are native cvt instructions: int8/uint8 -> float16 is
# cvt.rn.f16.s8 / .u8 as in NVVM's PTX (codegen/Int8ToHalf.cpp; exact
# either way), float16 -> integer truncates toward zero from the half
# itself (cvt.rzi.s32.f16, cvt.rzi.u64.f16; saturating, NaN -> 0 by one
# select; numba-cuda's cvt.rni rounds to nearest, docs/migration.md).
# CHECK-PTX-DAG: cvt.rn.f16.s8
# CHECK-PTX-DAG: cvt.rn.f16.u8
# CHECK-PTX-DAG: cvt.rzi.s32.f16
# CHECK-PTX-DAG: cvt.rzi.u64.f16
# CHECK-PTX-NOT: cvt.f32.f16
import numpy as np

from pycuda_jit import cuda


def half_convert(s, u, h, si, ul):
    i = cuda.grid(1)
    h[i] = np.float16(s[i]) * np.float16(0.5)
    h[i + 1] = np.float16(u[i]) * np.float16(0.5)
    si[i] = np.int8(h[i + 2])
    ul[i] = np.uint64(h[i + 3])
