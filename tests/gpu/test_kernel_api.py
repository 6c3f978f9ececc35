"""numba-cuda's kernel-object API (pycuda_jit/_kernel_api.py): forall,
overloads, specialize / specializations, and the function's name and
docstring on the kernel -- checked by the values the launches compute."""
import numpy as np
import pytest

from pycuda_jit import cuda, float32, int32
from gpu_util import poisoned


@cuda.jit
def add_one(x):
    """Adds one to every element."""
    i = cuda.grid(1)
    if i < x.size:
        x[i] += 1


@cuda.jit
def axpy(out, a, x, y):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


@pytest.mark.parametrize("n", [1, 127, 128, 129, 1000])
def test_forall_covers_every_element(rng, n):
    x = rng.integers(-1000, 1000, n).astype(np.int64)
    expect = x + 1
    add_one.forall(n)(x)
    np.testing.assert_array_equal(x, expect)


def test_forall_with_threads_per_block_and_stream(rng):
    n = 333
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    out = cuda.to_device(poisoned(n, np.float32))
    s = cuda.stream()
    axpy.forall(n, tpb=32, stream=s)(out, np.float32(2.5), x, y)
    s.synchronize()
    np.testing.assert_allclose(out.copy_to_host(), np.float32(2.5) * x + y, rtol=1e-6)


def test_forall_zero_tasks_launches_nothing(rng):
    x = rng.integers(0, 10, 7)
    before = x.copy()
    add_one.forall(0)(x)
    np.testing.assert_array_equal(x, before)


def test_forall_negative_tasks_is_a_value_error():
    with pytest.raises(ValueError, match="negative task count"):
        add_one.forall(-1)


def test_overloads_one_entry_per_specialization(rng):
    @cuda.jit
    def scale(out, x, a):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * a

    x = rng.random(16)
    out = poisoned(16, np.float64)
    scale[1, 16](out, x, 3)
    np.testing.assert_allclose(out, x * 3)
    scale[1, 16](out, cuda.to_device(x), 3)  # a C-contiguous device array: same types
    assert len(scale.overloads) == 1
    scale[1, 16](out, x, 0.5)
    np.testing.assert_allclose(out, x * 0.5)
    assert len(scale.overloads) == 2
    assert list(scale.overloads) == scale.signatures
    ov = scale.overloads[scale.signatures[1]]
    assert ov.signature == scale.signatures[1]
    assert not ov.cooperative
    assert ".visible .entry" in ov.inspect_asm((9, 0))
    with pytest.raises(KeyError):
        scale.overloads["(int8) -> none"]


def test_overload_of_a_grid_sync_kernel_is_cooperative(rng):
    @cuda.jit("void(int32[::1])")
    def rotate(x):
        i = cuda.grid(1)
        v = x[(i + 1) % x.size]
        cuda.cg.this_grid().sync()
        x[i] = v

    x = rng.integers(0, 100, 64).astype(np.int32)
    expect = np.roll(x, -1)
    rotate[2, 32](x)
    np.testing.assert_array_equal(x, expect)
    (ov,) = rotate.overloads.values()
    assert ov.cooperative
    assert rotate.overloads[(int32[::1],)].signature == ov.signature


def test_specialize_compiles_for_the_types_and_caches(rng):
    @cuda.jit
    def copy(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i]

    assert len(copy.specializations) == 0
    f32 = copy.specialize(float32[::1], float32[::1])
    assert copy.specialize(float32[::1], float32[::1]) is f32
    x = rng.random(8).astype(np.int32)
    i32 = copy.specialize(cuda.to_device(x), x)  # values: typed as at a launch
    assert i32 is not f32 and len(copy.specializations) == 2
    assert f32.signatures == ["(array(float32, 1d, C), array(float32, 1d, C)) -> none"]
    a = rng.random(8, dtype=np.float32)
    out = poisoned(8, np.float32)
    f32[1, 8](out, a)
    np.testing.assert_array_equal(out, a)
    with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
        f32.specialize(float32[::1], float32[::1])
    with_sig = cuda.jit("void(float32[::1])")(lambda x: None)
    with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
        with_sig.specialize(float32[::1])


def test_kernel_carries_the_functions_name_and_docstring():
    assert add_one.__doc__ == "Adds one to every element."
    assert add_one.__name__ == "add_one"
    assert add_one.__qualname__ == "add_one"
    assert add_one.__module__ == __name__
    assert add_one.__wrapped__ is add_one.py_func
