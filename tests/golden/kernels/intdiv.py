# SIGNATURE: void(int32[::1], int32[::1], int32[::1])
# Python floor division on int32 stays int32 (i + 1 with i int32 is int32)
# and never traps: a zero divisor gives 0.
# CHECK-TYPED: binop // {{.*}} : int32
# CHECK-PTX: .visible .entry intdiv_
# CHECK-PTX: div.s32
from pycuda_jit import cuda


def intdiv(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] // b[i] + a[i] % (b[i] + 1)
