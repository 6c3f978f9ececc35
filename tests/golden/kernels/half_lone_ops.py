# SIGNATURE: void(float16[::1], float16[::1])
# float16 + - * that no multiply-add can pair up are NVVM's add.f16 /
# sub.f16 / mul.f16 (codegen/LoneHalfOps.cpp; same value: the default
# rounding is to nearest even); a product that feeds a sum, and that sum,
# keep .rn, so ptxas cannot fuse them on its own (docs/language.md,
# floating-point contraction).
# CHECK-PTX-DAG: add.f16
# CHECK-PTX-DAG: sub.f16
# CHECK-PTX-DAG: mul.f16
# CHECK-PTX-DAG: fma.rn.f16
# CHECK-PTX-DAG: mul.rn.f16 [[P:%rs[0-9]+]]
# CHECK-PTX: add.rn.f16 {{%rs[0-9]+}}, {{(%rs[0-9]+, )?}}[[P]]
from pycuda_jit import cuda


def half_lone_ops(h, o):
    i = cuda.grid(1)
    a = h[i]
    b = h[i + 1]
    o[i] = a + b
    o[i + 1] = a - b
    o[i + 2] = a * b
    p = b * b
    o[i + 3] = p
    o[i + 4] = p + a                 # fused by the rule: fma.rn.f16
    q = a * b if a < b else b * a    # a merge of branches does not fuse
    o[i + 5] = q + b
