"""Device-array host API errors in the words NumPy (and so numba-cuda's
tests) use: an assignment whose value does not broadcast, and
``np.array(d, copy=False)``, which cannot avoid a copy."""
import numpy as np
import pytest

from pycuda_jit import cuda


# Device-array assignment whose value does not broadcast: NumPy's message
# for the same assignment to a host array, word for word.
BAD_SETITEMS = [
    ((35,), (1, 2, 3)),
    ((5,), (2,)),
    ((35,), (2, 35)),
    ((4, 5), (4,)),
    ((4, 5), (1, 1, 3)),
    ((3, 1), (2, 1)),
]


@pytest.mark.parametrize("dst, src", BAD_SETITEMS, ids=[f"{d}<-{s}" for d, s in BAD_SETITEMS])
def test_setitem_broadcast_message_is_numpys(dst, src, rng):
    host = np.zeros(dst)
    value = rng.random(src)
    with pytest.raises(ValueError) as want:
        host[...] = value
    d = cuda.to_device(np.zeros(dst))
    with pytest.raises(ValueError) as got:
        d[...] = value
    assert str(got.value) == str(want.value)
    # A list too, as numba-cuda's test assigns one.
    with pytest.raises(ValueError) as got:
        d[...] = value.tolist()
    assert str(got.value) == str(want.value)
    assert np.array_equal(d.copy_to_host(), np.zeros(dst))  # nothing written


def test_setitem_that_broadcasts_still_copies(rng):
    d = cuda.to_device(np.zeros((4, 5)))
    row = rng.random(5)
    d[...] = row[None, None, :]  # leading length-1 axes are dropped
    assert np.array_equal(d.copy_to_host(), np.broadcast_to(row, (4, 5)))
    d[1:3] = [7.0]
    want = np.broadcast_to(row, (4, 5)).copy()
    want[1:3] = 7.0
    assert np.array_equal(d.copy_to_host(), want)


def test_np_array_of_device_array(rng):
    host = rng.random(7).astype(np.float32)
    d = cuda.to_device(host)
    got = np.array(d)
    assert type(got) is np.ndarray and got.dtype == np.float32
    assert np.array_equal(got, host)
    assert np.array_equal(np.asarray(d, dtype=np.float64), host.astype(np.float64))
    with pytest.raises(ValueError, match="`copy=False` is not possible for a device array"):
        d.__array__(copy=False)
