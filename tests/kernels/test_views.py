"""Array views inside kernels: partial indexing and slicing, with Python's
slice semantics (negative bounds, steps, clamping)."""
import numpy as np
import pytest

from pycuda_jit import cuda
from gpu_util import poisoned


@cuda.jit
def row_sums(m, out):
    i = cuda.grid(1)
    if i < m.shape[0]:
        row = m[i]                  # a 1-d view of row i
        s = 0.0
        for j in range(row.size):
            s += row[j]
        out[i] = s


def test_row_view(backend, rng):
    m = rng.random((37, 11))
    out = poisoned(37, np.float64)
    row_sums[1, 64](m, out)
    np.testing.assert_allclose(out, m.sum(axis=1))


@cuda.jit
def slice_stats(x, out):
    if cuda.grid(1) == 0:
        a = x[2:9]
        b = x[::-3]
        c = x[-4:]
        d = x[5:1:-2]
        e = x[100:]
        out[0] = a.size
        out[1] = b.size
        out[2] = c.size
        out[3] = d.size
        out[4] = e.size
        s = 0.0
        for v in b:
            s = s * 10 + v
        out[5] = s
        out[6] = d[0] + d[1] * 100
        out[7] = c[-1]


def test_slice_semantics(backend):
    x = np.arange(12, dtype=np.float64)
    out = poisoned(8, np.float64)
    slice_stats[1, 32](x, out)
    b = x[::-3]
    s = 0.0
    for v in b:
        s = s * 10 + v
    d = x[5:1:-2]
    assert list(out) == [7, 4, 4, 2, 0, s, d[0] + d[1] * 100, x[-4:][-1]]


@cuda.jit
def column_scale(m, out, j, f):
    i = cuda.grid(1)
    col = m[:, j]                   # strided column view
    sub = m[1:, ::2]                # 2-d view with a step
    if i < col.size:
        out[i, 0] = col[i] * f
    if i < sub.shape[0]:
        out[i, 1] = sub[i, sub.shape[1] - 1]


def test_column_and_strided_views(backend, rng):
    m = rng.random((9, 7))
    out = poisoned((9, 2), np.float64)
    out[8, 1] = -1.0
    column_scale[1, 32](m, out, 3, 2.0)
    np.testing.assert_allclose(out[:, 0], m[:, 3] * 2.0)
    sub = m[1:, ::2]
    np.testing.assert_allclose(out[:8, 1], sub[:, -1])
    assert out[8, 1] == -1.0


@cuda.jit
def shared_rows(x, out):
    sm = cuda.shared.array((4, 32), np.float32)
    t = cuda.threadIdx.x
    for r in range(4):
        sm[r, t] = x[r, t] * (r + 1)
    cuda.syncthreads()
    row = sm[t % 4]                 # a view into shared memory
    out[t] = row[(t + 1) % 32]


def test_view_of_shared_memory(backend, rng):
    x = rng.random((4, 32)).astype(np.float32)
    out = poisoned(32, np.float32)
    shared_rows[1, 32](x, out)
    expect = [x[t % 4, (t + 1) % 32] * (t % 4 + 1) for t in range(32)]
    np.testing.assert_allclose(out, expect, rtol=1e-6)


def test_view_layouts_in_typed_ir():
    def k(m, out):
        a = m[3]
        b = m[1:4]
        c = m[:, 2]
        d = m[::2]
        out[0] = a[0] + b[0, 0] + c[0] + d[0, 0]
    typed = cuda.compile_stages(k, "void(float32[:, ::1], float32[::1])", stages=["typed"])["typed"]
    assert "= getitem %0, %" in typed
    assert typed.count("array(float32, 1d, C)") >= 2  # m[3] stays C-contiguous
    assert "array(float32, 2d, C)" in typed            # m[1:4] too
    assert "array(float32, 1d, A)" in typed            # m[:, 2] is strided
    assert "array(float32, 2d, A)" in typed            # m[::2] has a step


@cuda.jit
def new_axes_and_ellipsis(m, out):
    i = cuda.grid(1)
    if i < m.shape[0]:
        last = m[..., 2]          # column 2 of every row: shape (rows,)
        row = m[i, ...]           # row i
        col = m[:, None, 1]       # shape (rows, 1)
        e = m[None, ..., None]    # shape (1, rows, cols, 1)
        out[i, 0] = last[i]
        out[i, 1] = row[m.shape[1] - 1]
        out[i, 2] = col[i, 0]
        out[i, 3] = e[0, i, 0, 0] + e.ndim * 100 + e.shape[0] * 1000 + col.shape[1] * 10000


def test_none_and_ellipsis_indices(backend, rng):
    m = rng.standard_normal((37, 5))
    out = poisoned((37, 4), np.float64)
    new_axes_and_ellipsis[1, 64](m, out)
    np.testing.assert_array_equal(out[:, 0], m[..., 2])
    np.testing.assert_array_equal(out[:, 1], m[:, -1])
    np.testing.assert_array_equal(out[:, 2], m[:, None, 1][:, 0])
    np.testing.assert_allclose(out[:, 3], m[:, 0] + 4 * 100 + 1000 + 10000)


@pytest.mark.parametrize("index, message", [
    ("m[..., ...]", "single ellipsis"),
    ("m[1, 2, 3]", "too many indices for a 2-d array: 3"),
    ("m[1, ..., 2]", "selects a single element"),
    ("m[1.5]", "not float64"),
])
def test_bad_indices_are_clear_errors(index, message):
    from pycuda_jit import errors
    src = f"def k(m, out):\n    out[0] = {index}[0]\n"
    ns = {}
    exec(compile(src, "<views-test>", "exec"), ns)
    with pytest.raises(errors.CompileError, match=message) as e:
        cuda.compile_ptx(ns["k"], "void(float32[:, ::1], float32[::1])")
    assert e.value.line == 2
