# SIGNATURE: void(float32[::1], int32[::1])
# Dynamic shared memory is one extern .shared array (all dynamic arrays
# alias it) sized by %dynamic_smem_size; cuda.const.array_like puts a
# module-level table in .const memory.
# CHECK-LLVM: @const_{{[0-9a-f]+}} = internal addrspace(4) constant [4 x float]
# CHECK-LLVM: @pcj_dynshared = external addrspace(3) global [0 x i8], align 16
# CHECK-PTX: .const .align 16 .b8 const_{{[0-9a-f]+}}[16]
# CHECK-PTX: .extern .shared .align 16 .b8 pcj_dynshared[];
# CHECK-PTX: %dynamic_smem_size
# CHECK-PTX: ld.const.b32
from pycuda_jit import cuda
import numpy as np

WEIGHTS = np.array([0.5, 0.25, 0.125, 0.0625], dtype=np.float32)


def memory_spaces(x, n):
    w = cuda.const.array_like(WEIGHTS)
    dyn = cuda.shared.array(0, np.float32)
    alias = cuda.shared.array(0, np.int32)
    t = cuda.threadIdx.x
    dyn[t] = x[t] * w[t % 4]
    cuda.syncthreads()
    x[t] = dyn[dyn.size - 1 - t]
    n[t] = alias[t] + len(dyn)
