# SIGNATURE: void(int64[::1], float64[::1])
# A module-level NumPy array is frozen into constant memory when the kernel
# compiles (like numba-cuda): a .const global holding its bytes, read with
# ld.const; a namedtuple global folds into constants.
# CHECK-LLVM: addrspace(4) constant
# CHECK-PTX: .const .align 16 .b8
# CHECK-PTX: ld.const.b32
from collections import namedtuple

import numpy as np

from pycuda_jit import cuda

Scale = namedtuple("Scale", "mul add")
SCALE = Scale(2.0, 0.5)
WEIGHTS = np.array([0.5, 1.25, -3.0, 4.5, 0.125], dtype=np.float32)


def const_table(idx, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = WEIGHTS[idx[i] % WEIGHTS.size] * SCALE.mul + SCALE.add
