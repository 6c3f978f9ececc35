# SIGNATURE: void(float32[::1], float32[::1], float32[::1], float32)
# A grid-stride loop (run-time step) becomes a counted loop: the trip count
# is computed once, LLVM unrolls it, and the index -- provably >= 0 -- needs
# no negative-index wrap-around (no shr.s64/selp sign tricks in the body).
# CHECK-TYPED: foriter
# CHECK-PTX: .visible .entry gridstride_
# CHECK-PTX: div.u64
# CHECK-PTX: fma.rn.f32
# CHECK-PTX: fma.rn.f32
# CHECK-PTX-NOT: shr.s64
# CHECK-PTX-NOT: selp
from pycuda_jit import cuda


def gridstride(a, b, c, s):
    for i in range(cuda.grid(1), a.size, cuda.gridsize(1)):
        a[i] = b[i] + s * c[i]
