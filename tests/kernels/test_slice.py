"""The vertical slice's kernels, checked against numpy on random inputs."""
import math

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 1000, 100_003])
def test_saxpy(backend, rng, dtype, n):
    x = rng.standard_normal(n).astype(dtype)
    y = rng.standard_normal(n).astype(dtype)
    a = dtype(1.75)
    d_x, d_y = cuda.to_device(x), cuda.to_device(y)
    d_out = cuda.to_device(poisoned(n, dtype))
    saxpy[(n + 127) // 128, 128](a, d_x, d_y, d_out)
    out = d_out.copy_to_host()
    # a * x + y may be fused into one fma (as nvcc does by default)
    np.testing.assert_allclose(out, a * x + y, rtol=1e-6, atol=1e-6)


def test_saxpy_numpy_arguments_are_copied_back(backend, rng):
    n = 513
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    out = poisoned(n, np.float32)
    saxpy[3, 256](2.0, x, y, out)
    np.testing.assert_allclose(out, 2.0 * x + y, rtol=1e-6)


def test_saxpy_python_float_scalar_keeps_float32(backend, rng):
    # The Python float argument is float64; the result is stored as float32.
    n = 64
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    out = poisoned(n, np.float32)
    saxpy[1, 64](0.5, x, y, out)
    np.testing.assert_allclose(out, (0.5 * x.astype(np.float64) + y).astype(np.float32), rtol=1e-6)


@cuda.jit
def add2d(a, b, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[i, j] * 2 + b[i, j] - i + j


@pytest.mark.parametrize("order", ["C", "F"])
def test_2d_kernel(backend, rng, order):
    shape = (67, 45)
    a = np.asarray(rng.random(shape), order=order)
    b = np.asarray(rng.random(shape), order=order)
    out = np.asarray(poisoned(shape, np.float64), order=order)
    add2d[(5, 3), (16, 16)](cuda.to_device(a), cuda.to_device(b), out)
    ii, jj = np.indices(shape)
    np.testing.assert_allclose(out, a * 2 + b - ii + jj)


def test_2d_kernel_strided_view(backend, rng):
    base = rng.random((40, 60))
    a = base[::2, 1::3]  # non-contiguous: layout 'A', byte strides
    b = rng.random(a.shape)
    out = poisoned(a.shape, np.float64)
    add2d[(2, 2), (16, 16)](a, b, out)
    ii, jj = np.indices(a.shape)
    np.testing.assert_allclose(out, a * 2 + b - ii + jj)


@cuda.jit
def poly_loop(x, coeffs, out):
    i = cuda.grid(1)
    if i >= x.size:
        return
    acc = 0.0
    p = 1.0
    for k in range(coeffs.size):
        acc += coeffs[k] * p
        p *= x[i]
    # a while loop with break/continue on top
    n = 0
    m = 0
    while True:
        n += 1
        if n % 3 == 0:
            continue
        m += n
        if n >= 10:
            break
    out[i] = acc + m


def test_loop_kernel(backend, rng):
    n = 1000
    x = rng.uniform(-1, 1, n).astype(np.float32)
    coeffs = rng.standard_normal(7).astype(np.float32)
    out = poisoned(n, np.float32)
    poly_loop[8, 128](x, coeffs, out)
    m = sum(k for k in range(1, 11) if k % 3 != 0)
    expect = np.polynomial.polynomial.polyval(x.astype(np.float64), coeffs.astype(np.float64)) + m
    np.testing.assert_allclose(out, expect, rtol=1e-4, atol=1e-5)


@cuda.jit
def math_kernel(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = math.sqrt(v) + math.exp(-v) + math.log(v + 1) + math.sin(v) * math.cos(v)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_math_functions(backend, rng, dtype):
    n = 777
    x = rng.uniform(0, 4, n).astype(dtype)
    out = poisoned(n, dtype)
    math_kernel[7, 128](x, out)
    xd = x.astype(np.float64)
    expect = np.sqrt(xd) + np.exp(-xd) + np.log(xd + 1) + np.sin(xd) * np.cos(xd)
    np.testing.assert_allclose(out, expect, rtol=1e-5 if dtype == np.float32 else 1e-12)


@cuda.jit
def indices_kernel(out):
    x = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    y = cuda.threadIdx.y + cuda.blockIdx.y * cuda.blockDim.y
    z = cuda.threadIdx.z + cuda.blockIdx.z * cuda.blockDim.z
    gx, gy, gz = cuda.gridsize(3)
    out[z, y, x] = x + 1000 * y + 1000000 * z + gx * gy * gz * 0


def test_thread_indices_3d(backend):
    grid, block = (3, 2, 2), (4, 3, 2)
    shape = (grid[2] * block[2], grid[1] * block[1], grid[0] * block[0])
    out = poisoned(shape, np.int64)
    indices_kernel[grid, block](out)
    z, y, x = np.indices(shape)
    np.testing.assert_array_equal(out, x + 1000 * y + 1000000 * z)


@cuda.jit
def int_semantics(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] // b[i]
        out[i, 1] = a[i] % b[i]
        out[i, 2] = a[i] ** 2 + (a[i] << 3) - (a[i] >> 1)
        out[i, 3] = max(a[i], b[i]) - min(a[i], b[i]) + abs(a[i])
        out[i, 4] = -a[i] if a[i] > 0 and b[i] > 0 else (a[i] if a[i] < b[i] else b[i])


def test_integer_python_semantics(backend, rng):
    n = 500
    a = rng.integers(-1000, 1000, n)
    b = rng.integers(-50, 50, n)
    b[b == 0] = 7
    out = poisoned((n, 5), np.int64)
    int_semantics[4, 128](a, b, out)
    exp = np.stack([a // b, a % b, a ** 2 + (a << 3) - (a >> 1),
                    np.maximum(a, b) - np.minimum(a, b) + np.abs(a),
                    np.where((a > 0) & (b > 0), -a, np.where(a < b, a, b))], axis=1)
    np.testing.assert_array_equal(out, exp)


@cuda.jit("void(float32[::1], float32[::1], float32)")
def scale_eager(x, out, s):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * s


def test_eager_signature(backend, rng):
    assert scale_eager.signatures == [
        "(array(float32, 1d, C), array(float32, 1d, C), float32) -> none"]
    x = rng.random(300, dtype=np.float32)
    out = poisoned(300, np.float32)
    scale_eager[2, 256](x, out, 3)  # an int converts to the declared float32
    np.testing.assert_allclose(out, x * np.float32(3))
    with pytest.raises(TypeError, match="No matching definition"):
        scale_eager[2, 256](x.astype(np.float64), out, 3)


@cuda.jit
def print_kernel(x, flag):
    i = cuda.grid(1)
    if i < 2:
        print("item", i, x[i], flag, 100% 7, "done%")


def test_print_from_kernel(backend, capfd):
    x = np.array([1.5, -2.25])
    print_kernel[1, 4](x, True)
    cuda.synchronize()
    out = capfd.readouterr().out.splitlines()
    assert sorted(out) == ["item 0 1.500000 True 2 done%", "item 1 -2.250000 True 2 done%"]


@cuda.jit
def print_tuples(t, one, flag):
    print(cuda.threadIdx, cuda.blockIdx)
    if cuda.grid(1) == 0 and cuda.threadIdx.z == 0:
        print("t =", t, one, (flag, None), (), cuda.blockDim, cuda.gridDim)


def test_print_tuples_and_dim3(backend, capfd, rng):
    # As Python's str(): nested tuples, "(x,)" for one element, floats as %f
    # (numba-cuda's choice); a dim3 namespace as "(x, y, z)".
    a, b = (int(v) for v in rng.integers(-99, 99, size=2))
    print_tuples[(2, 1), (2, 1, 2)]((a, ((2, b), 3.5), (4,), 5), (7,), False)
    cuda.synchronize()
    out = capfd.readouterr().out.splitlines()
    head = f"t = ({a}, ((2, {b}), 3.500000), (4,), 5) (7,) (False, None) () (2, 1, 2) (2, 1, 1)"
    dims = [f"({x}, 0, {z}) ({bx}, 0, 0)" for bx in range(2) for x in range(2) for z in range(2)]
    assert sorted(out) == sorted(dims + [head])


def test_print_of_more_than_32_values_is_refused():
    @cuda.jit
    def many(t):
        print(t, t, t)

    with pytest.raises(errors.TypingError, match="at most 32 values"):
        many[1, 1](tuple(range(11)))


@cuda.jit
def iterate_arrays(x, m, out):
    i = cuda.grid(1)
    if i == 0:
        s = 0.0
        for v in x:                      # 1-d array
            s += v
        out[0] = s
        t = 0.0
        for k, row in enumerate(m):      # rows of a 2-d array are views
            for j, v in enumerate(row):
                t += v * (k + 1) * (j + 2)
        out[1] = t
        u = 0.0
        for a, b in zip(x, m[0]):        # stops at the shorter
            u += a * b
        out[2] = u


def test_iteration_over_arrays(backend, rng):
    x = rng.random(7)
    m = rng.random((4, 5))
    out = poisoned(3, np.float64)
    iterate_arrays[1, 32](x, m, out)
    k = np.arange(1, 5)[:, None]
    j = np.arange(2, 7)[None, :]
    np.testing.assert_allclose(out, [x.sum(), (m * k * j).sum(), (x[:5] * m[0]).sum()])


@cuda.jit
def copy_scaled(src, dst, f):
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] = src[i] * f


def test_read_only_arrays_use_the_read_only_cache_unless_they_alias(backend, rng):
    if backend != "cuda":
        pytest.skip("ld.global.nc is a GPU code-generation property")
    x = cuda.to_device(rng.random(1000))
    y = cuda.device_array(1000)
    copy_scaled[4, 256](x, y, 2.0)
    np.testing.assert_allclose(y.copy_to_host(), x.copy_to_host() * 2.0)
    info = copy_scaled.stats
    assert info["readonly_args"] == [0] and info["noalias"]
    assert "ld.global.nc" in copy_scaled.inspect_asm(copy_scaled.signatures[0])
    # The same buffer as source and destination: the plain variant runs.
    z = cuda.to_device(rng.random(1000))
    before = z.copy_to_host()
    copy_scaled[4, 256](z, z, 3.0)
    np.testing.assert_allclose(z.copy_to_host(), before * 3.0)
