# SIGNATURE: void(float32[:, ::1], float32[:, ::1])
# A block-stride loop (one block walks a row, step cuda.blockDim.x) runs
# many iterations per thread: its back edge carries llvm.loop.unroll.count 4
# (nvcc unrolls such loops 4x; NVPTX's default budget gives an expf body 2x),
# so the optimized PTX has four expf (ex2) in the unrolled body.
# CHECK-LLVM: !{!"llvm.loop.unroll.count", i32 4}
# CHECK-PTX: ex2.approx
# CHECK-PTX: ex2.approx
# CHECK-PTX: ex2.approx
# CHECK-PTX: ex2.approx
import math

from pycuda_jit import cuda


def blockstride(x, out):
    row = cuda.blockIdx.x
    for j in range(cuda.threadIdx.x, x.shape[1], cuda.blockDim.x):
        out[row, j] = math.exp(x[row, j])
