"""cuda.In / Out / InOut and kernel.extensions (pycuda_jit/args.py): which
way a host array travels at a launch, checked by the values the kernel
computes and what reaches the host array afterwards."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


@cuda.jit
def scale_into(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = 3 * x[i] + 1
        x[i] = -x[i]  # a write that only InOut brings back


@cuda.jit
def fill(out, v):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = v + i


REC = np.dtype([("a", np.int32), ("b", np.float64)], align=True)


@cuda.jit
def bump_records(r, k):
    i = cuda.grid(1)
    if i < r.size:
        r[i]["a"] += k
        r[i]["b"] = r[i]["b"] * 2


def _ints(rng, n):
    return rng.integers(-1000, 1000, n).astype(np.int64)


def test_in_copies_in_and_keeps_host_unchanged(rng):
    x = _ints(rng, 300)
    before = x.copy()
    out = poisoned(300, np.int64)
    scale_into[3, 128](cuda.InOut(out), cuda.In(x))
    np.testing.assert_array_equal(out, 3 * before + 1)
    np.testing.assert_array_equal(x, before)  # the kernel's negation is dropped


def test_inout_and_plain_host_array_copy_back(rng):
    x = _ints(rng, 300)
    before = x.copy()
    out = poisoned(300, np.int64)
    scale_into[3, 128](out, cuda.InOut(x))
    np.testing.assert_array_equal(out, 3 * before + 1)
    np.testing.assert_array_equal(x, -before)


def test_out_is_copied_back(rng):
    out = poisoned(257, np.int64)
    v = int(rng.integers(-50, 50))
    fill[3, 128](cuda.Out(out), v)
    np.testing.assert_array_equal(out, v + np.arange(257))


def test_hints_on_a_stream(rng):
    s = cuda.stream()
    x = _ints(rng, 100)
    before = x.copy()
    out = poisoned(100, np.int64)
    scale_into[1, 128, s](cuda.Out(out), cuda.In(x))
    s.synchronize()
    np.testing.assert_array_equal(out, 3 * before + 1)
    np.testing.assert_array_equal(x, before)


def test_hints_on_record_arrays(rng):
    recs = np.zeros(40, REC)
    recs["a"] = rng.integers(-100, 100, 40)
    recs["b"] = rng.standard_normal(40)
    before = recs.copy()
    bump_records[1, 64](cuda.In(recs), 5)
    np.testing.assert_array_equal(recs, before)
    bump_records[1, 64](cuda.InOut(recs), 5)
    np.testing.assert_array_equal(recs["a"], before["a"] + 5)
    np.testing.assert_array_equal(recs["b"], before["b"] * 2)


def test_wrap_arg():
    a = np.zeros(3)
    h = cuda.In(a)
    assert cuda.wrap_arg(h) is h
    w = cuda.wrap_arg(a)
    assert isinstance(w, cuda.InOut) and w.value is a
    assert isinstance(cuda.wrap_arg(a, default=cuda.Out), cuda.Out)


def test_a_non_kernel_argument_still_names_itself():
    with pytest.raises(TypeError, match="kernel argument 2"):
        fill[1, 1](np.zeros(4), object())


class _DefaultIn:
    def prepare_args(self, ty, val, **kwargs):
        return ty, cuda.wrap_arg(val, default=cuda.In)


class _Recorder:
    """Sees every argument's type and value; its copy-back runs after the
    launch."""

    def __init__(self):
        self.seen, self.after = [], []

    def prepare_args(self, ty, val, stream=0, retr=None):
        self.seen.append((ty, val))
        retr.append(lambda: self.after.append(len(self.seen)))
        return ty, val


class _Doubler:
    """Converts the scalar argument: the kernel sees 2 * v."""

    def prepare_args(self, ty, val, **kwargs):
        if isinstance(val, int):
            return ty, 2 * val
        return ty, val


def _fresh_kernel(fn):
    return cuda.jit(fn.py_func)


def test_extension_default_in_keeps_host_arrays(rng):
    k = _fresh_kernel(scale_into)
    k.extensions.append(_DefaultIn())
    x = _ints(rng, 200)
    before = x.copy()
    out = np.zeros(200, np.int64)
    k[2, 128](cuda.InOut(out), x)  # an explicit hint wins over the default
    np.testing.assert_array_equal(out, 3 * before + 1)
    np.testing.assert_array_equal(x, before)


def test_extensions_see_each_argument_in_order(rng):
    k = _fresh_kernel(fill)
    rec, dbl = _Recorder(), _Doubler()
    k.extensions.extend([rec, dbl])
    out = poisoned(130, np.int64)
    v = int(rng.integers(1, 50))
    k[3, 64](out, v)
    np.testing.assert_array_equal(out, 2 * v + np.arange(130))
    assert [val is out for _, val in rec.seen] == [True, False]
    assert rec.seen[1][1] == v and str(rec.seen[1][0]) == "int64"
    assert str(rec.seen[0][0]) == "array(int64, 1d, C)"
    assert rec.after == [2, 2]  # both copy-backs ran after both arguments were seen


def test_empty_extensions_launch_as_usual(rng):
    k = _fresh_kernel(fill)
    assert k.extensions == []
    out = poisoned(10, np.int64)
    k[1, 32](out, 4)
    np.testing.assert_array_equal(out, 4 + np.arange(10))
    assert isinstance(k, type(scale_into))  # still a Kernel


def test_extension_errors_propagate():
    class Broken:
        def prepare_args(self, ty, val, **kwargs):
            raise ValueError("broken extension")

    k = _fresh_kernel(fill)
    k.extensions.append(Broken())
    with pytest.raises(ValueError, match="broken extension"):
        k[1, 1](np.zeros(2, np.int64), 1)
