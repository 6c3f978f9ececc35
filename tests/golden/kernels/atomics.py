# SIGNATURE: void(float32[::1], int32[::1], uint32[::1], float64[:, ::1], int64[::1])
# Atomics: atom.* when the old value is used, red.* when it is dropped;
# floats' max/min are CAS loops (numba-cuda's NaN rules), inc is atom.inc.
# CHECK-LLVM: atomicrmw fadd ptr addrspace(1)
# CHECK-LLVM: call void asm sideeffect "red.shared.add.u32 [$0], $1;"
# CHECK-LLVM: call {{.*}}double @pcj_atomic_max_f64_as1(
# CHECK-LLVM: cmpxchg ptr addrspace(1)
# CHECK-LLVM: atomicrmw min ptr addrspace(1)
# CHECK-LLVM: define internal double @pcj_atomic_max_f64_as1
# CHECK-PTX: atom.global.add.f32
# CHECK-PTX: red.shared.add.u32
# CHECK-PTX: red.global.add.u32
# CHECK-PTX: atom.global.inc.u32
# CHECK-PTX: atom.relaxed.gpu.global.cas.b64
# CHECK-PTX: atom.relaxed.gpu.global.cas.b32
# CHECK-PTX: atom.global.min.s64
# CHECK-PTX: red.global.or.b64
from pycuda_jit import cuda
import numpy as np


def atomics(f, hist, counters, grid2d, wide):
    i = cuda.grid(1)
    old = cuda.atomic.add(f, 0, f[i])
    sm = cuda.shared.array(32, np.int32)
    cuda.atomic.add(sm, i % 32, 1)
    cuda.syncthreads()
    cuda.atomic.add(hist, i % 32, sm[i % 32])
    f[i] = old + cuda.atomic.inc(counters, 0, 100)
    grid2d[1, 2] = cuda.atomic.max(grid2d, (0, i % 4), grid2d[1, 1])
    hist[i] = cuda.atomic.cas(hist, i, 0, 7)
    wide[i] = cuda.atomic.min(wide, 1, wide[i])
    cuda.atomic.or_(wide, 2, wide[i])
