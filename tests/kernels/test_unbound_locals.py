"""Locals assigned on some paths only (Python semantics).

A local read where it may be unassigned compiles; on the paths where it is
assigned it has its value.  Where it is not, the read gives zero of the
local's type, or, in checked mode (debug=True), raises UnboundLocalError
naming the variable, file and line (KernelUnboundLocalError, on the GPU
too: the context's error record, raised by the launch in checked mode).  A local that
no assignment can reach before the read is a compile error naming it.
"""
import inspect

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


def line_of(func, needle):
    func = getattr(func, "py_func", func)
    lines, start = inspect.getsourcelines(func)
    for k, text in enumerate(lines):
        if needle in text:
            return start + k
    raise AssertionError(needle)


# ---- values on the assigned and the unassigned paths --------------------------


def after_loop(a, n, out):
    i = cuda.grid(1)
    if i < out.size:
        for k in range(n[i]):
            v = a[i] * k  # assigned only if the loop runs
        out[i] = v


def branch_only(a, c, out):
    i = cuda.grid(1)
    if i < out.size:
        if c[i] > 0:
            v = a[i] + 1.5
        elif c[i] < -1:
            v = a[i] * 2.0
        out[i] = v


def nested_while_else(n, m, out):
    i = cuda.grid(1)
    if i < out.size:
        t = 0
        for p in range(n[i]):
            j = 0
            while j < m[i]:
                w = p * 10 + j
                j += 1
            else:
                t += w  # unassigned if the inner loop never ran
        out[i] = t


def previous_iteration(a, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        s = 0.0
        for k in range(a.shape[1]):
            if k > 0:
                s += prev * a[i, k]  # assigned by the previous iteration
            prev = a[i, k] + 1.0
        out[i] = s


def for_else_found(a, x, out):
    i = cuda.grid(1)
    if i < out.size:
        for k in range(a.shape[1]):
            if a[i, k] == x[i]:
                found = k
                break
        else:
            found = -1
        out[i] = found


def tuple_and_view(a, c, out, sizes):
    i = cuda.grid(1)
    if i < out.shape[0]:
        if c[i] > 0:
            t = (a[i, 0], a[i, 1] * 2.0)
            row = a[i, 1:]
        out[i, 0] = t[0]
        out[i, 1] = t[1]
        sizes[i] = row.shape[0]


@cuda.jit(device=True)
def last_positive(a, i):
    for k in range(a.shape[1]):
        if a[i, k] > 0:
            v = a[i, k]
    return v


def calls_device(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = last_positive(a, i)


@pytest.mark.parametrize("debug", [False, True])
def test_read_after_loop(backend, rng, debug):
    k = cuda.jit(debug=debug)(after_loop)
    n_ = 64
    a = rng.uniform(-2, 2, n_)
    n = rng.integers(1 if debug else 0, 5, n_)
    out = poisoned(n_, np.float64)
    k[2, 32](a, n, out)
    want = np.where(n > 0, a * (n - 1), 0.0)
    np.testing.assert_array_equal(out, want)
    assert (n == 0).any() or debug


@pytest.mark.parametrize("debug", [False, True])
def test_branch_only(backend, rng, debug):
    k = cuda.jit(debug=debug)(branch_only)
    n_ = 64
    a = rng.uniform(-2, 2, n_).astype(np.float32)
    c = rng.integers(-3, 3, n_)
    if debug:
        c[np.abs(c) <= 1] = 2
    out = poisoned(n_, np.float32)
    k[2, 32](a, c, out)
    want = np.where(c > 0, a + np.float32(1.5),
                    np.where(c < -1, a * np.float32(2), np.float32(0)))
    np.testing.assert_array_equal(out, want)


def test_nested_while_else(backend, rng):
    k = cuda.jit(nested_while_else)
    n_ = 64
    n = rng.integers(0, 4, n_)
    m = rng.integers(0, 4, n_)
    out = poisoned(n_, np.int64)
    k[2, 32](n, m, out)
    # The else of the while runs after every inner loop; with m == 0 the
    # inner loop never assigns w: the unassigned read gives 0.
    want = [sum(p * 10 + mm - 1 if mm > 0 else 0 for p in range(nn))
            for nn, mm in zip(n, m)]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("debug", [False, True])
def test_previous_iteration(backend, rng, debug):
    k = cuda.jit(debug=debug)(previous_iteration)
    a = rng.uniform(-1, 1, (40, 7))
    out = poisoned(40, np.float64)
    k[2, 32](a, out)
    want = [sum((a[r, c - 1] + 1.0) * a[r, c] for c in range(1, 7)) for r in range(40)]
    np.testing.assert_allclose(out, want, rtol=1e-12)


def test_for_else(backend, rng):
    k = cuda.jit(for_else_found)
    a = rng.integers(0, 6, (50, 5))
    x = rng.integers(0, 8, 50)
    out = poisoned(50, np.int64)
    k[2, 32](a, x, out)
    want = [list(row).index(v) if v in row else -1 for row, v in zip(a, x)]
    np.testing.assert_array_equal(out, want)


def test_tuple_and_view(backend, rng):
    k = cuda.jit(tuple_and_view)
    a = rng.uniform(-1, 1, (40, 6))
    c = rng.integers(-1, 2, 40)
    out = poisoned((40, 2), np.float64)
    sizes = poisoned(40, np.int64)
    k[2, 32](a, c, out, sizes)
    on = c > 0
    np.testing.assert_array_equal(out[:, 0], np.where(on, a[:, 0], 0.0))
    np.testing.assert_array_equal(out[:, 1], np.where(on, a[:, 1] * 2.0, 0.0))
    np.testing.assert_array_equal(sizes, np.where(on, 5, 0))


def test_device_function(backend, rng):
    k = cuda.jit(calls_device)
    a = rng.uniform(-1, 1, (40, 4))
    a[3] = -np.abs(a[3])  # no positive element: v unassigned
    out = poisoned(40, np.float64)
    k[2, 32](a, out)
    want = [([v for v in row if v > 0] or [0.0])[-1] for row in a]
    np.testing.assert_array_equal(out, want)


# ---- checked mode: UnboundLocalError where the read is unassigned -------------


@pytest.mark.parametrize("kernel, needle, var", [
    (after_loop, "out[i] = v", "v"),
    (branch_only, "out[i] = v", "v"),
    (nested_while_else, "t += w", "w"),
])
def test_checked_mode_raises(backend, kernel, needle, var):
    k = cuda.jit(debug=True)(kernel)
    if kernel is nested_while_else:
        args = (np.array([2]), np.array([0]), np.zeros(1, np.int64))
    elif kernel is after_loop:
        args = (np.ones(1), np.array([0]), np.zeros(1))
    else:
        args = (np.ones(1, np.float32), np.array([0]), np.zeros(1, np.float32))
    with pytest.raises(errors.KernelUnboundLocalError) as info:
        k[1, 1](*args)
    assert isinstance(info.value, UnboundLocalError)
    msg = str(info.value)
    assert f"local variable '{var}'" in msg, msg
    assert f"{__file__}:{line_of(kernel, needle)}" in msg, msg


def test_checked_mode_in_device_function(backend):
    k = cuda.jit(debug=True)(calls_device)
    with pytest.raises(errors.KernelUnboundLocalError, match="local variable 'v'"):
        k[1, 1](-np.ones((1, 3)), np.zeros(1))


@cuda.jit(device=True)
def plus_one(x):
    return x + 1.0


def device_function_value(a, c, out):
    i = cuda.grid(1)
    if i < out.size:
        if c[i] > 0:
            f = plus_one
        out[i] = f(a[i])


def test_device_function_value(backend, rng):
    a = rng.uniform(-1, 1, 20)
    c = np.ones(20, np.int64)
    out = poisoned(20, np.float64)
    cuda.jit(device_function_value)[1, 32](a, c, out)
    np.testing.assert_array_equal(out, a + 1.0)
    c[5] = 0
    with pytest.raises(errors.KernelUnboundLocalError, match="local variable 'f'"):
        cuda.jit(debug=True)(device_function_value)[1, 32](a, c, out)


def test_checked_unbound_leaves_the_context_usable(backend):
    # On a GPU the failing thread exits through the error record: no trap,
    # and the same process launches again.
    k = cuda.jit(debug=True)(after_loop)
    out = poisoned(1, np.float64)
    with pytest.raises(errors.KernelUnboundLocalError) as info:
        k[1, 1](np.ones(1), np.array([0]), out)
    assert "thread (0, 0, 0) block (0, 0, 0)" in str(info.value)
    a = np.arange(1.0, 5.0)
    k[1, 1](a, np.array([4]), out)
    assert out[0] == 3.0  # a[0] * 3


# ---- compile errors ---------------------------------------------------------------


def never_assigned(out):
    out[0] = w
    w = 1


def assigned_after_read(out, n):
    i = 0
    while i < n:
        x = x + 1
        i += 1
    out[0] = i


@pytest.mark.parametrize("func, name, needle", [
    (never_assigned, "w", "out[0] = w"),
    (assigned_after_read, "x", "x = x + 1"),
])
def test_never_assigned_is_a_compile_error(func, name, needle):
    with pytest.raises(errors.NameResolutionError) as info:
        cuda.compile_ptx(func, "void(int64[:], int64)" if func is assigned_after_read
                         else "void(int64[:])")
    assert f"'{name}'" in info.value.message
    assert info.value.line == line_of(func, needle)
    assert info.value.file == __file__
