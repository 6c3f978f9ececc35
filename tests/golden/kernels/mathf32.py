# SIGNATURE: void(float32[::1], float64[::1])
# float32 math calls libdevice's single-precision functions (__nv_sinf, not
# __nv_sin); libdevice is linked lazily and inlined, so no call remains.
# CHECK-LLVM: call {{.*}}float @__nv_sinf(
# CHECK-LLVM: call {{.*}}double @__nv_exp(
# CHECK-PTX: .visible .entry mathf32_
# CHECK-PTX: sqrt.rn.f32
# CHECK-PTX-NOT: call
from pycuda_jit import cuda
import math


def mathf32(x, y):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = math.sin(x[i]) + math.sqrt(x[i])
        y[i] = math.exp(y[i]) + math.log(y[i])
