"""r[()] of a record: a 0-d structured array argument (np.ndarray((),
dtype=rec)) is typed as its record, and r[()] reads or assigns the whole
record, as NumPy's r[()] does (numba-cuda's cache_usecases record_return).
Packed and aligned dtypes; values checked field by field."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned

PACKED = np.dtype([("a", np.int8), ("b", np.float64), ("c", np.int32, (3,))])
ALIGNED = np.dtype([("a", np.int8), ("b", np.float64), ("c", np.int32, (3,))], align=True)


def random_records(rng, n, dtype):
    a = np.empty(n, dtype)
    a["a"] = rng.integers(-128, 128, n)
    a["b"] = rng.standard_normal(n)
    a["c"] = rng.integers(-10**6, 10**6, (n, 3))
    return a


@cuda.jit
def record_return(r, ary, i):
    r[()] = ary[i]


@cuda.jit
def record_read(r, out):
    x = r[()]
    out[0] = x.a + x.b
    out[1] = x["b"] - r[()]["a"]


@pytest.mark.parametrize("dtype", [PACKED, ALIGNED], ids=["packed", "aligned"])
def test_whole_record_store_and_read(backend, rng, dtype):
    ary = random_records(rng, 9, dtype)
    for i in (0, 4, 8):
        r = np.ndarray((), dtype=dtype)
        r.reshape(1).view(np.uint8)[:] = 0xA5  # poisoned bytes
        record_return[1, 1](r, ary, i)
        assert r[()] == ary[i]
        out = poisoned(2, np.float64)
        record_read[1, 1](r, out)
        np.testing.assert_array_equal(out, [ary[i]["a"] + ary[i]["b"], ary[i]["b"] - ary[i]["a"]])


def _store_other_dtype(r, ary):
    x = r[0]
    x[()] = ary[0]


def test_whole_record_of_another_dtype_is_a_typing_error():
    from pycuda_jit import from_dtype
    sig = (from_dtype(PACKED)[::1], from_dtype(ALIGNED)[::1])
    with pytest.raises(errors.TypingError, match=r"r\[\(\)\] = v stores a whole record") as e:
        cuda.compile_ptx(_store_other_dtype, sig)
    assert "test_record_whole_index.py" in str(e.value)
