# SIGNATURE: void(float32[::1], float32[::1])
# CUDA vector types are structs of their elements: construction is
# insertvalue (vector arguments contribute their elements in order), fields
# are extractvalue, and after optimization nothing of the struct is left.
# CHECK-TYPED: : float32x2 [cuda.float32x2]
# CHECK-TYPED: : float32x4 [cuda.float32x4]
# CHECK-LLVM: insertvalue { float, float }
# CHECK-LLVM: extractvalue { float, float }
# CHECK-LLVM: insertvalue { float, float, float, float }
# CHECK-PTX: add.rn.f32
from pycuda_jit import cuda


def vectors(out, x):
    i = cuda.grid(1)
    h = cuda.float2(x[i], 2.0)
    v = cuda.float32x4(h, x[i + 1], 1)
    out[i] = v.x + v.y + v.z + v.w + h.y
