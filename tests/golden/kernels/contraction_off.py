# SIGNATURE: void(float16[::1], float32[::1], float64[::1], float32[::1])
# OPTIONS: fmad=False
# No contraction: nothing carries `contract`, no fma is formed, and every
# multiply and add is .rn (which ptxas never fuses).
# CHECK-LLVM-NOT: {{f(add|sub|mul|neg) contract}}
# CHECK-PTX-NOT: {{fma|(add|sub|mul)\.f(16|32|64)}}
# CHECK-PTX: mul.rn.f16
# CHECK-PTX: add.rn.f16
# CHECK-PTX: sub.rn.f64
# CHECK-PTX-NOT: {{fma|(add|sub|mul)\.f(16|32|64)}}
# CHECK-PTX: add.rn.f32
# CHECK-PTX-NOT: {{fma|(add|sub|mul)\.f(16|32|64)}}
# CHECK-PTX: add.rn.f32
# CHECK-PTX-NOT: {{fma|(add|sub|mul)\.f(16|32|64)}}
from pycuda_jit import cuda


def contraction_off(h, f, d, p):
    i = cuda.grid(1)
    h[i] = h[i] * h[i + 1] + h[i + 2]
    d[i] = d[i + 2] - d[i] * d[i + 1]
    prod = f[i] * f[i + 1]
    f[i] = prod + f[i + 2]
    p[i] = prod
    p[i + 1] = f[i + 1] + f[i + 3]
