# SIGNATURE: void(int16[::1], int8[::1], int64[::1], float64[::1])
# abs of an int8/int16 is computed on a 32-bit register in inline PTX
# (codegen/WidenNarrowInts.cpp): ptxas mistranslates `abs.s16` followed by
# `cvt.s64.s16` (abs(int16(-32768)) widened gave +32768 on the H200), and
# LLVM narrows any widened form back to abs.s16 -- also the one it makes of
# `v if v >= 0 else -v`.
# CHECK-PTX-NOT: abs.s{{8|16}}
# CHECK-PTX: abs.s32
# CHECK-PTX: cvt.s64.s16
# CHECK-PTX: abs.s32
# CHECK-PTX: abs.s32
# CHECK-PTX-NOT: abs.s{{8|16}}
from pycuda_jit import cuda


def narrow_abs(h, b, w, t):
    i = cuda.grid(1)
    w[i] = abs(h[i])
    t[i] = t[abs(b[i])]
    v = h[i + 1]
    w[i + 1] = v if v >= 0 else -v
