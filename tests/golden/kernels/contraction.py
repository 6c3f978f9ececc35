# SIGNATURE: void(float16[::1], float32[::1], float64[::1], float32[::1])
# Contraction (fmad=True, the default): lowering marks float operations
# `contract`; codegen's FuseMultiplyAdd turns each multiply-add of the rule
# into an fma and drops the flags, so every other multiply and add carries
# .rn and ptxas cannot fuse it (the CPU executor rounds the same way).
# CHECK-LLVM: fmul contract half
# CHECK-LLVM: fadd contract half
# CHECK-PTX-NOT: {{(add|sub|mul)\.f(16|32|64)}}
# CHECK-PTX: fma.rn.f16
# CHECK-PTX-NOT: {{(add|sub|mul)\.f(16|32|64)}}
# CHECK-PTX: fma.rn.f64
# CHECK-PTX-NOT: {{(add|sub|mul)\.f(16|32|64)}}
# CHECK-PTX: mul.rn.f32
# CHECK-PTX-NOT: {{(add|sub|mul)\.f(16|32|64)}}
# CHECK-PTX: fma.rn.f32
# CHECK-PTX-NOT: {{(add|sub|mul)\.f(16|32|64)}}
# CHECK-PTX: add.rn.f32
# CHECK-PTX-NOT: {{(add|sub|mul)\.f(16|32|64)}}
from pycuda_jit import cuda


def contraction(h, f, d, p):
    i = cuda.grid(1)
    h[i] = h[i] * h[i + 1] + h[i + 2]
    d[i] = d[i + 2] - d[i] * d[i + 1]
    prod = f[i] * f[i + 1]
    f[i] = prod + f[i + 2]          # fused
    p[i] = prod                     # the product itself: mul.rn
    p[i + 1] = f[i + 1] + f[i + 3]  # no product: add.rn
