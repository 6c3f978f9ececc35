"""Fixed-width string dtypes in kernels: 'S<n>' (bytes) and 'U<n>' (UCS4)
arrays and record fields as arguments, copies between arrays and records
(truncated or zero-padded to the destination's width, as NumPy assigns),
str/bytes constants stored into elements and fields, == and != (trailing
zero characters do not count, as in NumPy), and refusals of everything
else.  Every result is compared with NumPy's."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned

N = 200
ALPHABET = np.array(list("abcXYZ019 é€"))


def words(rng, n, width, kind):
    """n random strings of 0..width characters as dtype kind+width."""
    lens = rng.integers(0, width + 1, n)
    chars = ALPHABET if kind == "U" else ALPHABET[:10]
    text = ["".join(rng.choice(chars, k)) for k in lens]
    return np.array([t if kind == "U" else t.encode() for t in text], f"{kind}{width}")


@pytest.mark.parametrize("kind", ["S", "U"])
@pytest.mark.parametrize("src_w,dst_w", [(7, 7), (9, 4), (3, 8)])
def test_copy_elements(rng, kind, src_w, dst_w):
    @cuda.jit
    def k(src, dst):
        i = cuda.grid(1)
        if i < src.size:
            dst[i] = src[i]

    src = words(rng, N, src_w, kind)
    dst = poisoned(N, f"{kind}{dst_w}")
    k[2, 128](src, dst)
    want = np.zeros(N, f"{kind}{dst_w}")
    want[:] = src  # NumPy truncates / pads
    np.testing.assert_array_equal(dst, want)


def test_assign_constants():
    @cuda.jit
    def k(u, s, short_u, short_s):
        i = cuda.grid(1)
        if i < u.size:
            u[i] = "XYZé€"
            s[i] = b"XYZ"
            short_u[i] = "truncated"
            short_s[i] = b"truncated"

    u, s = poisoned(N, "U12"), poisoned(N, "S12")
    short_u, short_s = poisoned(N, "U4"), poisoned(N, "S4")
    k[2, 128](u, s, short_u, short_s)
    np.testing.assert_array_equal(u, np.full(N, "XYZé€", "U12"))
    np.testing.assert_array_equal(s, np.full(N, b"XYZ", "S12"))
    np.testing.assert_array_equal(short_u, np.full(N, "trun", "U4"))
    np.testing.assert_array_equal(short_s, np.full(N, b"trun", "S4"))
    # the padding is zeros (not left over from the poison)
    assert (u.view(np.uint32).reshape(N, 12)[:, 5:] == 0).all()


@pytest.mark.parametrize("kind", ["S", "U"])
def test_records(rng, kind):
    dt = np.dtype([("x", np.int32), ("name", f"{kind}6"), ("y", np.float64)],
                  align=True)

    @cuda.jit
    def k(recs, names, out):
        i = cuda.grid(1)
        if i < recs.size:
            out[i] = recs[i].name          # field -> array element
            recs[i].name = names[i]        # array element -> field
            recs[i]["x"] = i

    recs = np.zeros(N, dt)
    recs["name"] = words(rng, N, 6, kind)
    recs["y"] = rng.random(N)
    before = recs.copy()
    names = words(rng, N, 8, kind)
    out = poisoned(N, f"{kind}6")
    k[2, 128](recs, names, out)
    np.testing.assert_array_equal(out, before["name"])
    want = before.copy()
    want["name"] = names
    want["x"] = np.arange(N)
    np.testing.assert_array_equal(recs, want)


def test_record_constant_fields():
    # numba-cuda's test_const_string: constants into record fields
    dt = np.dtype([("x", np.int32), ("u", "<U12"), ("s", "S12")])

    @cuda.jit
    def k(a):
        a[0]["x"] = 1
        a[0]["u"] = "ABC"
        a[0]["s"] = b"abc"
        a[1]["x"] = 2
        a[1]["u"] = "XYZ"
        a[1]["s"] = b"xyz"

    a = np.zeros(2, dt)
    a["u"] = "poison poison"
    a["s"] = b"poison poison"
    k[1, 1](a)
    np.testing.assert_array_equal(a, np.array([(1, "ABC", b"abc"), (2, "XYZ", b"xyz")], dt))


@pytest.mark.parametrize("kind", ["S", "U"])
def test_equality(rng, kind):
    @cuda.jit
    def k(a, b, c, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i, 0] = a[i] == b[i]
            out[i, 1] = a[i] != b[i]
            out[i, 2] = a[i] == c[i]     # another width
            out[i, 3] = c[i] != a[i]

    a = words(rng, N, 5, kind)
    b = a.copy()
    b[::3] = words(rng, N, 5, kind)[::3]
    c = np.zeros(N, f"{kind}9")
    c[:] = a
    c[1::4] = words(rng, N, 9, kind)[1::4]
    out = poisoned((N, 4), np.bool_)
    k[2, 128](a, b, c, out)
    np.testing.assert_array_equal(out, np.stack([a == b, a != b, a == c, c != a], axis=1))


def test_equality_with_constants():
    @cuda.jit
    def k(u, s, out):
        i = cuda.grid(1)
        if i < u.size:
            out[i, 0] = u[i] == "ab"
            out[i, 1] = "ab" != u[i]
            out[i, 2] = s[i] == b"ab"

    u = np.array(["ab", "abc", "", "a", "ab"], "U4")
    s = np.array([b"ab", b"abc", b"", b"a", b"ab"], "S4")
    out = poisoned((5, 3), np.bool_)
    k[1, 8](u, s, out)
    np.testing.assert_array_equal(out, np.stack([u == "ab", u != "ab", s == b"ab"], axis=1))


def test_device_arrays_of_records_with_strings():
    # numba-cuda's test_cuda_devicerecord: a record with a 'U5' field on
    # the device, written and read from the host
    dt = np.dtype([("a", np.float64), ("b", np.int32), ("d", (np.str_, 5))], align=True)
    src = np.array([(i / 2, i, str(i) * 5) for i in range(3)], dt)
    d = cuda.device_array(3, dtype=dt)
    d.copy_to_device(src)
    d[1] = src[2]
    want = src.copy()
    want[1] = src[2]
    np.testing.assert_array_equal(d.copy_to_host(), want)
    # d[i] is a record on the device: its fields are written in place
    for i in range(3):
        d[i]["d"] = str(i + 5) * 7  # truncated to 5 characters
        d[i]["b"] = 10 * i
    want["d"] = [str(i + 5) * 5 for i in range(3)]
    want["b"] = [0, 10, 20]
    np.testing.assert_array_equal(d.copy_to_host(), want)
    assert d[2]["d"] == "77777" and d[2] == want[2]


def test_device_record_nested_views():
    inner = np.dtype([("i", np.int32), ("j", np.float32, (3, 3))])
    dt = np.dtype([("x", np.int32), ("y", inner)])
    d = cuda.to_device(np.zeros(2, dt))
    d[1]["y"]["i"] = 7
    d[1]["y"]["j"][2, 1] = 2.5
    d[0]["y"]["j"][:] = np.arange(9, dtype=np.float32).reshape(3, 3)
    host = d.copy_to_host()
    want = np.zeros(2, dt)
    want[1]["y"]["i"] = 7
    want[1]["y"]["j"][2, 1] = 2.5
    want[0]["y"]["j"] = np.arange(9).reshape(3, 3)
    np.testing.assert_array_equal(host, want)
    assert d[1]["y"]["j"][2, 1] == 2.5


def _launch(k, *args):
    k[1, 1](*args)


def test_refusals():
    u = np.zeros(4, "U5")
    s = np.zeros(4, "S5")

    @cuda.jit
    def concat(a):
        a[0] = a[1] + a[2]

    with pytest.raises(errors.TypingError, match="unsupported operand"):
        _launch(concat, u)

    @cuda.jit
    def str_into_bytes(a):
        a[0] = "abc"

    with pytest.raises(errors.TypingError, match="bytes constant"):
        _launch(str_into_bytes, s)

    @cuda.jit
    def unicode_into_bytes(a, b):
        b[0] = a[0]

    with pytest.raises(errors.TypingError, match="cannot store"):
        _launch(unicode_into_bytes, u, s)

    @cuda.jit
    def ordered(a, out):
        out[0] = a[0] < a[1]

    with pytest.raises(errors.TypingError, match="== and !="):
        _launch(ordered, u, np.zeros(1, np.bool_))

    @cuda.jit
    def into_number(a, out):
        out[0] = a[0]

    with pytest.raises(errors.TypingError, match="cannot store"):
        _launch(into_number, u, np.zeros(1, np.int32))

    @cuda.jit
    def method(a, out):
        out[0] = len(a[0].strip())

    with pytest.raises((errors.TypingError, errors.NameResolutionError),
                       match="has no attribute 'strip'"):
        _launch(method, u, np.zeros(1, np.int32))
