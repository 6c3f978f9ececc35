"""Members of plain enum.Enum classes in kernels: compile-time constants
(Color.red, Color["red"], .value), arguments, values of device functions
and phis, and members inside tuples.  They compare as Python's Enum does:
members of one class by identity (== / != / is agree), members of
different classes (or a member and a number) never equal.  IntEnum members
are ints (computed with and converted like any int constant).  Every
expected value comes from running the same Python code."""
from enum import Enum, IntEnum

import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda, errors, int16


class Color(Enum):
    red = 1
    green = 2
    blue = 3


class Flavor(Enum):
    vanilla = 7
    mint = 3  # Color.blue's value
    cocoa = 1.5


class Planet(Enum):
    MERCURY = (3.303e23, 2.4397e6)
    EARTH = (5.976e24, 6.37814e6)
    MARS = (6.421e23, 3.3972e6)


class Level(IntEnum):
    low = 2
    high = 500


COLORS = list(Color)


def compare_all(a, b, out):
    out[0] = a == b
    out[1] = a != b
    out[2] = a is b
    out[3] = a is not b


k_compare = cuda.jit(compare_all)


@pytest.mark.parametrize("a, b", [
    (Color.red, Color.red), (Color.red, Color.green), (Color.blue, Flavor.mint),
    (Planet.EARTH, Planet.EARTH), (Planet.EARTH, Planet.MARS),
    (Flavor.cocoa, Flavor.cocoa), (Flavor.cocoa, Flavor.vanilla),
    (Color.green, 2), (Level.low, Level.low), (Level.low, Level.high),
], ids=str)
def test_members_as_arguments(backend, a, b):
    got = poisoned(4, np.bool_)
    want = np.zeros(4, np.bool_)
    k_compare[1, 1](a, b, got)
    compare_all(a, b, want)
    np.testing.assert_array_equal(got, want)


def test_specializations_keep_the_class(backend):
    # (blue, blue) and (blue, mint) hold the same values: only the types
    # tell them apart, so each pair must compile (and answer) on its own.
    for a, b in [(Color.blue, Color.blue), (Color.blue, Flavor.mint),
                 (Flavor.mint, Flavor.mint), (Flavor.mint, Color.blue)]:
        got = poisoned(4, np.bool_)
        want = np.zeros(4, np.bool_)
        k_compare[1, 1](a, b, got)
        compare_all(a, b, want)
        np.testing.assert_array_equal(got, want, err_msg=f"{a} {b}")


def constants(out):
    out[0] = Color.red == Color.green
    out[1] = Color["red"] == Color["red"]
    out[2] = Color.blue == Flavor.mint
    out[3] = Color.blue != Flavor.mint
    out[4] = Color.green is Color.green
    out[5] = Color.green is not Color.blue
    out[6] = Color.red == 1
    out[7] = Level.low == 2
    out[8] = Planet.MARS == Planet["MARS"]


def test_constants(backend):
    got = poisoned(9, np.bool_)
    want = np.zeros(9, np.bool_)
    cuda.jit(constants)[1, 1](got)
    constants(want)
    np.testing.assert_array_equal(got, want)


@cuda.jit(device=True)
def pick(k):
    # a phi of members: one runtime value of the member type
    if k == 0:
        return Color.red
    elif k == 1:
        return Color.green
    return Color.blue


@cuda.jit(device=True)
def planet(k):
    return Planet.EARTH if k % 2 == 0 else Planet.MARS


@cuda.jit
def k_runtime_members(ks, js, eq, value, ident, pl):
    i = cuda.grid(1)
    if i < ks.shape[0]:
        a = pick(ks[i])
        b = pick(js[i])
        eq[i] = a == b
        ident[i] = (a is Color.green) + 2 * (b is not Color.red)
        value[i] = a.value * 10 + b.value
        p = planet(ks[i] + js[i])
        pl[i] = p.value[0] / p.value[1]


def test_runtime_members_from_device_functions(backend, rng):
    n = 200
    ks = rng.integers(0, 3, n)
    js = rng.integers(0, 3, n)
    eq = poisoned(n, np.bool_)
    value = poisoned(n, np.int64)
    ident = poisoned(n, np.int64)
    pl = poisoned(n, np.float64)
    k_runtime_members[2, 128](ks, js, eq, value, ident, pl)
    a = [COLORS[k] for k in ks]
    b = [COLORS[j] for j in js]
    np.testing.assert_array_equal(eq, [x == y for x, y in zip(a, b)])
    np.testing.assert_array_equal(value, [x.value * 10 + y.value for x, y in zip(a, b)])
    np.testing.assert_array_equal(
        ident, [(x is Color.green) + 2 * (y is not Color.red) for x, y in zip(a, b)])
    p = [Planet.EARTH if (k + j) % 2 == 0 else Planet.MARS for k, j in zip(ks, js)]
    np.testing.assert_array_equal(pl, [q.value[0] / q.value[1] for q in p])


def make_enum():
    class Local(Enum):
        a = 1
        b = 2
    return Local


LocalA, LocalB = make_enum(), make_enum()  # one name, two classes


@cuda.jit(device=True)
def same_member(x, y):
    return x == y


@cuda.jit
def k_same(x, y, out):
    out[0] = same_member(x, x)  # typed first: the specialization's key
    out[1] = same_member(x, y)
    out[2] = x is y


def test_classes_of_one_name_stay_apart(backend):
    # The device function's specialization for (LocalA, LocalA) must not
    # serve (LocalA, LocalB): their members are never equal.
    for x, y in [(LocalA.a, LocalA.a), (LocalA.a, LocalB.a), (LocalB.b, LocalB.b),
                 (LocalB.a, LocalA.a)]:
        got = poisoned(3, np.bool_)
        k_same[1, 1](x, y, got)
        np.testing.assert_array_equal(got, [True, x == y, x is y], err_msg=f"{x!r} {y!r}")


PALETTE = (Color.red, Color.blue, Flavor.cocoa)


@cuda.jit
def k_tuple_members(sel, out, vals):
    i = cuda.grid(1)
    if i < sel.shape[0]:
        t = (Color.green, sel[i])
        out[i, 0] = t[0] == Color.green
        out[i, 1] = PALETTE[1] == Color.blue
        out[i, 2] = PALETTE[2] == Flavor.cocoa
        out[i, 3] = PALETTE[0] == PALETTE[1]
        vals[i] = PALETTE[2].value * t[1]


def test_members_in_tuples(backend, rng):
    sel = rng.integers(-100, 100, 50)
    out = poisoned((50, 4), np.bool_)
    vals = poisoned(50, np.float64)
    k_tuple_members[1, 64](sel, out, vals)
    np.testing.assert_array_equal(out, [[True, True, True, False]] * 50)
    np.testing.assert_array_equal(vals, Flavor.cocoa.value * sel)


def test_member_tuple_argument(backend):
    got = poisoned(4, np.bool_)

    @cuda.jit
    def k(t, out):
        out[0] = t[0] == Color.red
        out[1] = t[1] == Color.red
        out[2] = t[1] is Flavor.mint
        out[3] = t[0] == t[1]

    k[1, 1]((Color.red, Flavor.mint), got)
    np.testing.assert_array_equal(got, [True, False, True, False])


class Named(Enum):
    a = "alpha"


def _ordered(out):
    out[0] = Color.red < Color.green


def _name_attr(out):
    out[0] = Color.red.name == "red"


def _str_value(out):
    out[0] = Named.a == Named.a


@pytest.mark.parametrize("fn, match", [
    (_ordered, "Enum members are not ordered"),
    (_name_attr, "has no attribute 'name'"),
    (_str_value, "whose value alpha kernels cannot hold"),
])
def test_refused_uses_are_errors_at_the_line(fn, match):
    with pytest.raises((errors.TypingError, errors.UnsupportedError, errors.NameResolutionError),
                       match=match) as info:
        cuda.compile_ptx(fn, "void(bool[::1])")
    assert "test_enums.py" in str(info.value)


def test_argument_with_unsupported_value(backend):
    with pytest.raises(TypeError, match="kernels cannot take the Enum member"):
        k_compare[1, 1](Named.a, Named.a, np.zeros(4, np.bool_))


# ---- IntEnum members are ints ------------------------------------------------------------

class Status(IntEnum):
    ok = 200
    not_found = 404
    server_error = 500


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


@cuda.jit
def value_across_a_widening_loop(out, n):
    v = Color.green.value  # typed before the loop's phi widens (a restart)
    acc = 0
    for k in range(n):
        acc = acc + k * 0.5  # int -> float: the phi is typed again
    out[0] = acc + v


def test_value_survives_a_typing_restart(backend):
    out = poisoned(1, np.float64)
    value_across_a_widening_loop[1, 1](out, 9)
    assert out[0] == sum(k * 0.5 for k in range(9)) + Color.green.value
