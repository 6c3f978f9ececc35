"""Enum classes in kernels: IntEnum members are ints (compared, computed
with, converted like any int constant); members of plain Enum classes are
refused with the line that uses them."""
import enum

import numpy as np
import pytest

from pycuda_jit import cuda, errors, int16

from gpu_util import poisoned


class Status(enum.IntEnum):
    ok = 200
    not_found = 404
    server_error = 500


class Color(enum.Enum):
    red = 1
    green = 2


@cuda.jit
def classify(codes, out):
    i = cuda.grid(1)
    if i < codes.size:
        c = codes[i]
        if c >= Status.server_error:
            out[i] = c - Status.server_error
        elif c == Status.not_found:
            out[i] = -1
        else:
            out[i] = c + int16(Status.ok)


def test_intenum_members_are_ints(rng):
    codes = rng.choice([200, 404, 500, 503, 17], size=300).astype(np.int64)
    out = poisoned(codes.size, np.int64)
    classify[2, 256](codes, out)
    want = np.where(codes >= 500, codes - 500, np.where(codes == 404, -1, codes + 200))
    np.testing.assert_array_equal(out, want)


def test_plain_enum_members_are_refused():
    @cuda.jit
    def k(out):
        out[0] = Color.red == Color.green

    with pytest.raises(errors.UnsupportedError, match="member of the Enum class Color") as e:
        k[1, 1](np.zeros(1, np.bool_))
    assert e.value.line > 0 and "Color.red" in e.value.source_line()


@cuda.jit
def by_name(codes, out):
    # Status["not_found"] is Status.not_found (numba-cuda's getitem on an
    # Enum class), in a membership test and an `is` between IntEnum values
    i = cuda.grid(1)
    if i < codes.size:
        c = codes[i]
        r = Status["ok"] if c != Status["not_found"] else Status["server_error"]
        if c in (Status.ok, Status["server_error"]):
            r += 1
        out[i] = r


def test_intenum_members_by_name(rng):
    codes = rng.choice([200, 404, 500, 3], size=300).astype(np.int64)
    out = poisoned(codes.size, np.int64)
    by_name[2, 256](codes, out)
    want = np.where(codes != 404, 200, 500) + np.isin(codes, [200, 500])
    np.testing.assert_array_equal(out, want)


def test_plain_enum_member_by_name_is_refused():
    @cuda.jit
    def k(out):
        out[0] = Color["red"] == Color["green"]

    with pytest.raises(errors.UnsupportedError, match="member of the Enum class Color") as e:
        k[1, 1](np.zeros(1, np.bool_))
    assert 'Color["red"]' in e.value.source_line()
