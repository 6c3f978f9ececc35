# SIGNATURE: void(int8[:, :], float32[:, ::1], float64[::1], int64[::1])
# Whole-array reductions (stdlib/registry/reduction.def): NumPy's result
# types (a sum of int8 is int64, a mean of int8 float64, float32 stays
# float32), one thread's nested loops over a strided view, and steps that
# are never contracted: var's squares are rounded before they are added,
# even with fmad=True.  min of an empty array raises ValueError.
# CHECK-TYPED: : int64 [np.sum]
# CHECK-TYPED: : float64 [array.mean]
# CHECK-TYPED: : float32 [np.var]
# CHECK-TYPED: : int8 [np.min]
# CHECK-TYPED: : int64 [np.count_nonzero]
# CHECK-LLVM: reduce.head
# CHECK-LLVM-NOT: fmul contract
# CHECK-PTX-NOT: fma.rn
# CHECK-PTX: mul.rn.f32
# CHECK-PTX: add.rn.f32
# CHECK-PTX: div.rn.f32
from pycuda_jit import cuda
import numpy as np


def reductions(a, f, out, n):
    v = a[1:, ::2]
    n[0] = np.sum(v)
    out[0] = v.mean()
    out[1] = np.var(f)
    n[1] = np.min(a)
    n[2] = np.count_nonzero(f)
