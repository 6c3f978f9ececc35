"""A field of a whole structured array (a.x, NumPy's recarray attribute) is
a view of that field of every record: read, written, sliced."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned

REC = np.dtype([("value1", np.int64), ("value2", np.float64), ("c", np.complex64)],
               align=True)


@cuda.jit
def read_fields(x, out1, out2, out3):
    i = cuda.grid(1)
    if i < x.size:
        out1[i] = x.value1[i]
        out2[i] = x.value2[i]
        out3[i] = x.c[i]


def _records(rng, shape):
    a = np.zeros(shape, REC)
    a["value1"] = rng.integers(-1000, 1000, shape)
    a["value2"] = rng.standard_normal(shape)
    a["c"] = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return a


def test_read_fields_of_a_record_array(backend, rng):
    a = _records(rng, 16).view(np.recarray)
    out1, out2 = poisoned(16, np.int64), poisoned(16, np.float64)
    out3 = poisoned(16, np.complex64)
    read_fields[1, 32](a, out1, out2, out3)
    np.testing.assert_array_equal(out1, a.value1)
    np.testing.assert_array_equal(out2, a.value2)
    np.testing.assert_array_equal(out3, a.c)


@cuda.jit
def write_fields(x):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        v = x.value2
        v[i, j] = x.value1[i, j] * 0.5
        if i % 2 == 0:  # this thread's own record, through a strided view
            x[::2, :].value1[i // 2, j] = -1


def test_write_through_field_views_of_2d_records(backend, rng):
    a = _records(rng, (5, 3))
    want = a.copy()
    want["value2"] = want["value1"] * 0.5
    want["value1"][::2, :] = -1
    write_fields[(1, 1), (8, 4)](a)
    np.testing.assert_array_equal(a["value2"], want["value2"])
    np.testing.assert_array_equal(a["value1"], want["value1"])
    np.testing.assert_array_equal(a["c"], want["c"])


def test_misaligned_field_is_a_typing_error(backend):
    packed = np.dtype([("a", np.int8), ("b", np.float64)])  # b at byte 1

    @cuda.jit
    def k(x, out):
        out[0] = x.b[0]

    with pytest.raises(errors.TypingError, match="not aligned"):
        k[1, 1](np.zeros(2, packed), np.zeros(1))


def test_array_attributes_come_before_fields(backend):
    rec = np.dtype([("size", np.float64), ("shape", np.float64)])

    @cuda.jit
    def k(x, out):
        out[0] = x.size
        out[1] = x[0].shape

    a = np.zeros(3, rec)
    a["shape"] = 2.5
    out = poisoned(2, np.float64)
    k[1, 1](a, out)
    np.testing.assert_array_equal(out, [3.0, 2.5])
