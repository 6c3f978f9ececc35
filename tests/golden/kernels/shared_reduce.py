# SIGNATURE: void(float32[::1], float32[::1])
# A static shared array lives in addrspace(3); syncthreads is bar.sync 0.
# CHECK-LLVM: addrspace(3) global [128 x float]
# CHECK-LLVM: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
# CHECK-PTX: .shared .align 16 .b8
# CHECK-PTX: bar.sync 0
# CHECK-PTX: st.shared.b32
from pycuda_jit import cuda
import numpy as np

TPB = 128


def shared_reduce(x, out):
    sm = cuda.shared.array(TPB, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sm[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            sm[t] += sm[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = sm[0]
