# SIGNATURE: void(float32[::1], float32[::1], float32[::1], float32)
# A grid-stride loop (run-time step) becomes a counted loop: the trip count
# is computed once and the index -- provably >= 0 -- needs no negative-index
# wrap-around (no shr.s64/selp sign tricks in the body).  It stores to a
# global array, so it is not unrolled (unrolled, each warp writes k streams
# a grid apart: slower on the H200, see benchmarks/README.md).
# CHECK-TYPED: foriter
# CHECK-LLVM: !{!"llvm.loop.unroll.disable"}
# CHECK-PTX: .visible .entry gridstride_
# CHECK-PTX: div.u64
# CHECK-PTX: fma.rn.f32
# CHECK-PTX-NOT: fma.rn.f32
# CHECK-PTX-NOT: shr.s64
# CHECK-PTX-NOT: selp
from pycuda_jit import cuda


def gridstride(a, b, c, s):
    for i in range(cuda.grid(1), a.size, cuda.gridsize(1)):
        a[i] = b[i] + s * c[i]
