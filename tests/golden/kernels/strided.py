# SIGNATURE: void(float32[:, :], float32[:])
# Layout 'A': addresses come from the byte strides; a Python float literal
# does not promote float32 to float64.
# CHECK-TYPED: : float32
# CHECK-PTX: .visible .entry strided_
# CHECK-PTX: fma.rn.f32
# CHECK-PTX-NOT: cvt.f64.f32
from pycuda_jit import cuda


def strided(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        acc = 0.0
        for j in range(a.shape[1]):
            acc += a[i, j] * 0.5
        out[i] = acc
