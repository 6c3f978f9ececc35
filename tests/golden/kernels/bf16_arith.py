# SIGNATURE: void(uint16[::1], float32[::1], int64[::1])
# bfloat16 on sm_90: + - * are native add.rn/sub.rn/mul.rn.bf16, fma and
# max and the comparison too; / divides in float32 (div.rn.f32) and rounds
# once (cvt.rn.bf16.f32); int64 -> bfloat16 rounding up goes through a
# float32 rounded to odd (integer code, no cvt.rn.f32.s64).
# CHECK-PTX: add.rn.bf16
# CHECK-PTX: fma.rn.bf16
# CHECK-PTX: setp.lt.bf16
# CHECK-PTX: mul.rn.bf16
# CHECK-PTX: sub.rn.bf16
# CHECK-PTX: max.bf16
# CHECK-PTX: div.rn.f32
# CHECK-PTX: cvt.rn.bf16.f32
# CHECK-PTX: clz.b64
from pycuda_jit import cuda, float32
from pycuda_jit.cuda import bf16
from pycuda_jit.cuda.bf16 import bfloat16


def bf16_arith(h, f, w):
    i = cuda.grid(1)
    a = bf16.uint16_as_bfloat16(h[i])
    b = bf16.uint16_as_bfloat16(h[i + 1])
    c = bf16.hfma(a, b, a + b)
    if a < b:
        c = bf16.hmax(c * a, c - b)
    else:
        c = c / b
    h[i] = bf16.bfloat16_as_uint16(c)
    f[i] = float32(bfloat16(f[i]) - a)
    h[i + 2] = bf16.bfloat16_as_uint16(bf16.int64_to_bfloat16_ru(w[i]))
