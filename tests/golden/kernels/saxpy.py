# SIGNATURE: void(float32, float32[::1], float32[::1], float32[::1])
# The float32 multiply-add stays float32 and fuses into one fma; the grid
# index is provably non-negative, so no negative-index wrap-around is left.
# CHECK-TYPED: binop * {{.*}} : float32
# CHECK-PTX: .visible .entry saxpy_
# CHECK-PTX: mov.u32 {{.*}}%tid.x
# CHECK-PTX: fma.rn.f32
# CHECK-PTX-NOT: .f64
# CHECK-PTX-NOT: selp
from pycuda_jit import cuda


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]
