"""Structured dtypes are specialized by their layout: field names, types,
offsets and itemsize.  Dtypes with one layout share a specialization
(np.dtype(..., align=True) whose offsets equal the packed ones: the machine
code would be the same; numba-cuda makes two, docs/migration.md); any
difference in offsets or size is a new one, so each reads its own bytes."""
import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda

FIELDS = [("x", np.int8), ("y", np.float64), ("z", np.int16)]
LAYOUTS = {
    "packed": np.dtype(FIELDS),
    "aligned": np.dtype(FIELDS, align=True),
    "offsets": np.dtype({"names": ["x", "y", "z"], "formats": [np.int8, np.float64, np.int16],
                         "offsets": [2, 8, 20], "itemsize": 32}),
}


def _records(dtype, rng, n):
    a = np.zeros(n, dtype)
    a["x"] = rng.integers(-100, 100, n)
    a["y"] = rng.standard_normal(n)
    a["z"] = rng.integers(-30000, 30000, n)
    return a


def test_each_layout_reads_its_own_fields(rng):
    @cuda.jit
    def k(r, a):
        i = cuda.grid(1)
        if i < a.size:
            r[i] = a[i].x * 1000.0 + a[i].y + a[i].z * 0.5

    for name, dtype in LAYOUTS.items():
        a = _records(dtype, rng, 200)
        r = poisoned(200, np.float64)
        k[2, 128](r, a)
        expect = a["x"] * 1000.0 + a["y"] + a["z"] * 0.5
        np.testing.assert_array_equal(r, expect, err_msg=name)
    # packed, aligned (offsets 0, 8, 16) and explicit offsets: three layouts.
    assert len(k.signatures) == 3


@pytest.mark.parametrize("fields", [[("x", np.float16), ("y", np.float16)],
                                    [("a", np.int32), ("b", np.float32)]])
def test_align_true_with_the_same_layout_shares_a_specialization(fields, rng):
    packed, aligned = np.dtype(fields), np.dtype(fields, align=True)
    assert packed.descr == aligned.descr and packed.itemsize == aligned.itemsize
    assert aligned.isalignedstruct and not packed.isalignedstruct
    @cuda.jit
    def k(r, a):
        i = cuda.grid(1)
        if i < a.size:
            r[i] = a[i][0] * 2 + a[i][1]

    names = [f[0] for f in fields]
    for dtype in (packed, aligned):
        a = np.zeros(100, dtype)
        a[names[0]] = rng.integers(-50, 50, 100)
        a[names[1]] = rng.integers(-50, 50, 100)
        r = poisoned(100, np.float64)
        k[1, 128](r, a)
        np.testing.assert_array_equal(
            r, a[names[0]].astype(np.float64) * 2 + a[names[1]].astype(np.float64))
    assert len(k.signatures) == 1
