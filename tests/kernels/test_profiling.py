"""cuda.profile_start()/profile_stop()/profiling(): collection switches for a
CUDA profiler (cuProfilerStart/Stop on the GPU, nothing on the CPU
executor); kernels inside compute the same values."""
import numpy as np

from pycuda_jit import cuda

from gpu_util import poisoned


@cuda.jit
def scale(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * 3.0


def test_kernels_inside_a_profiled_region(rng):
    x = rng.standard_normal(777).astype(np.float32)
    out = poisoned(x.shape, x.dtype)
    cuda.profile_start()
    scale[4, 256](x, out)
    cuda.profile_stop()
    np.testing.assert_array_equal(out, x * np.float32(3.0))
    out2 = poisoned(x.shape, x.dtype)
    with cuda.profiling():
        scale[4, 256](x, out2)
    np.testing.assert_array_equal(out2, x * np.float32(3.0))


def test_profile_stop_after_an_error_in_the_region(rng):
    x = rng.standard_normal(10).astype(np.float32)
    try:
        with cuda.profiling():
            raise KeyError("inside")
    except KeyError:
        pass
    out = poisoned(x.shape, x.dtype)
    scale[1, 32](x, out)  # the device is still usable
    np.testing.assert_array_equal(out, x * np.float32(3.0))
