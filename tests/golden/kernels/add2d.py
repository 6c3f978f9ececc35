# SIGNATURE: void(float64[:, ::1], float64[:, ::1], float64[:, ::1])
# C-contiguous 2-D indexing uses the shape (row * ncols + col), not strides.
# CHECK-LLVM: extractvalue {{.*}} 1, 1
# CHECK-PTX: .visible .entry add2d_
# CHECK-PTX: %ctaid.y
# CHECK-PTX: ld.global.b64
# CHECK-PTX: st.global.b64
from pycuda_jit import cuda


def add2d(a, b, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[i, j] + 2.0 * b[i, j]
