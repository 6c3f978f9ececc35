"""Type objects (pycuda_jit.types) used as values inside kernels: dtypes of
shared and local arrays, conversions, and an array's dtype."""
import numpy as np

from pycuda_jit import cuda, types
from pycuda_jit import float32, int32
from gpu_util import poisoned


# ---- type objects inside kernels ------------------------------------------------------

@cuda.jit
def typed_scratch(x, out, iout):
    t = cuda.threadIdx.x
    sm = cuda.shared.array(32, float32)             # our type object as a dtype
    loc = cuda.local.array(2, dtype=types.int32)    # module attribute
    sm[t] = float32(x[t])                           # a cast: rounds to float32
    cuda.syncthreads()
    loc[0] = int32(x[t] * 10.0)                     # truncates toward zero
    loc[1] = cuda.int64(x[t] * -3.0)                # cuda.<type> works too
    out[t, 0] = sm[31 - t]
    out[t, 1] = types.float64(sm[t]) * 3.0
    tmp = cuda.local.array(1, x.dtype)              # an array's dtype
    tmp[0] = x[t]
    out[t, 2] = tmp[0]
    iout[t, 0] = loc[0]
    iout[t, 1] = loc[1]


def test_type_objects_in_kernels(rng):
    x = rng.uniform(-20, 20, 32)
    out, iout = poisoned((32, 3), np.float64), poisoned((32, 2), np.int64)
    typed_scratch[1, 32](x, out, iout)
    x32 = x.astype(np.float32)
    np.testing.assert_array_equal(out[:, 0], x32[::-1].astype(np.float64))
    np.testing.assert_array_equal(out[:, 1], x32.astype(np.float64) * 3.0)
    np.testing.assert_array_equal(out[:, 2], x)
    np.testing.assert_array_equal(iout[:, 0], np.trunc(x * 10.0).astype(np.int64))
    np.testing.assert_array_equal(iout[:, 1], np.trunc(x * -3.0).astype(np.int64))
