"""PerformanceWarning (numba-cuda's NumbaPerformanceWarning): a launch
configuration of fewer than 128 blocks, and a host (NumPy, also pinned)
array that a launch copies to the device and back; device, mapped and
managed arrays are not copied and give none.  cuda.config's switches turn
each off.  A warning made an error stops the launch before the kernel runs
(the output keeps its poison)."""
import warnings

import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda, errors


@pytest.fixture
def switches():
    """Both switches on for the test; restored after it."""
    old = (cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS, cuda.config.CUDA_WARN_ON_IMPLICIT_COPY)
    cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS = 1
    cuda.config.CUDA_WARN_ON_IMPLICIT_COPY = 1
    yield cuda.config
    cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS, cuda.config.CUDA_WARN_ON_IMPLICIT_COPY = old


def performance_warnings(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [str(x.message) for x in w if x.category is errors.PerformanceWarning]


@cuda.jit
def fill(r, x):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = x[i] * 2


def test_small_grid_warns_at_configuration(switches):
    assert performance_warnings(lambda: fill[(2, 3, 4), 1]) == [
        "Grid size 24 will likely result in GPU under-utilization due to low occupancy."]
    # Each configuration warns, also a cached one.
    assert len(performance_warnings(lambda: fill[(2, 3, 4), 1])) == 1
    assert performance_warnings(lambda: fill[128, 1]) == []
    assert performance_warnings(lambda: fill[(8, 4, 4), 32]) == []
    switches.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    assert performance_warnings(lambda: fill[1, 1]) == []


def test_host_arrays_warn_device_arrays_do_not(switches, rng):
    switches.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    n = 300
    x = rng.standard_normal(n)
    host_msg = "Host array used in CUDA kernel will incur copy overhead to/from device."

    r = poisoned(n, np.float64)
    assert performance_warnings(lambda: fill[3, 128](r, x)) == [host_msg]
    np.testing.assert_array_equal(r, 2 * x)

    pinned = cuda.pinned_array(n, np.float64)
    pinned[:] = np.nan
    assert performance_warnings(lambda: fill[3, 128](pinned, cuda.to_device(x))) == [host_msg]
    np.testing.assert_array_equal(pinned, 2 * x)

    d = cuda.to_device(poisoned(n, np.float64))
    assert performance_warnings(lambda: fill[3, 128](d, cuda.to_device(x))) == []
    np.testing.assert_array_equal(d.copy_to_host(), 2 * x)
    # Mapped and managed memory is the device's too: NumPy views of it.
    for out in (cuda.mapped_array(n, np.float64), cuda.managed_array(n, np.float64)):
        out[:] = np.nan
        assert performance_warnings(lambda: fill[3, 128](out, cuda.to_device(x))) == []
        cuda.synchronize()
        np.testing.assert_array_equal(np.asarray(out), 2 * x)

    switches.CUDA_WARN_ON_IMPLICIT_COPY = 0
    r = poisoned(n, np.float64)
    assert performance_warnings(lambda: fill[3, 128](r, x)) == []
    np.testing.assert_array_equal(r, 2 * x)


def test_host_array_inside_a_tuple_warns(switches, rng):
    switches.CUDA_LOW_OCCUPANCY_WARNINGS = 0

    @cuda.jit
    def first(r, t):
        r[0] = t[0][0] + t[1]

    x = rng.standard_normal(4)
    r = cuda.to_device(poisoned(1, np.float64))
    msgs = performance_warnings(lambda: first[1, 1](r, (x, 1.5)))
    assert len(msgs) == 1 and msgs[0].startswith("Host array used in CUDA kernel")
    assert r.copy_to_host()[0] == x[0] + 1.5


def test_a_warning_made_an_error_stops_the_launch(switches, rng):
    switches.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    x = rng.standard_normal(8)
    r = poisoned(8, np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error", errors.PerformanceWarning)
        with pytest.raises(errors.PerformanceWarning, match="Host array"):
            fill[1, 8](r, x)
        switches.CUDA_LOW_OCCUPANCY_WARNINGS = 1
        with pytest.raises(errors.PerformanceWarning, match="Grid size 1 "):
            fill[1, 8]
    assert np.isnan(r).all()


def test_gufunc_launch_on_a_small_grid_warns(switches, rng):
    @cuda.guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->(n)")
    def mul(a, b, out):
        for i in range(a.shape[0]):
            out[i] = a[i] * b[i]

    a = rng.standard_normal(512).astype(np.float32)
    b = rng.standard_normal(512).astype(np.float32)
    out = poisoned(512, np.float32)
    msgs = performance_warnings(lambda: mul(a, b, out))
    assert any(m.startswith("Grid size 1 ") for m in msgs), msgs
    np.testing.assert_array_equal(out, a * b)
