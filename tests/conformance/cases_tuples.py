"""Tuples and namedtuples: building, unpacking, indexing, swapping, fields."""
from collections import namedtuple

from harness import case

Pair = namedtuple("Pair", "first second")
Vec3 = namedtuple("Vec3", ["x", "y", "z"])
Seg = namedtuple("Seg", "a b")
UNIT = Vec3(1.0, 0.5, -2.0)
STEPS = (1, 4, 9, 16)


@case("i8", "i8")
def swap(a, b):
    a, b = b, a
    return a * 10 + b


@case("i8", "i8", "i8")
def rotate(a, b, c):
    a, b, c = c, a, b
    return (a, b, c)


@case("i8", "f8")
def hetero_tuple(a, b):
    t = (a, b, a + 1)
    return t[0] + t[1] * t[2]


@case("i8")
def nested_tuple(a):
    t = ((a, a + 1), (a * 2, (a * 3, a * 4)))
    return t[1][1][0] + t[0][1] - t[1][0]


@case("i8")
def tuple_negative_index(a):
    t = (a, a + 1, a + 2)
    return t[-1] - t[-3]


@case("i8", inputs=[0, 1, 2])
def tuple_dynamic_index(i):
    t = (10, 20, 30)
    return t[i]


@case("i8", "i8")
def unpack_nested(a, b):
    (x, y), z = (a, b), a - b
    return x * 100 + y * 10 + z


@case("f8", "f8")
def return_tuple(a, b):
    return (a + b, a - b)


@case("i8", "f8")
def namedtuple_fields(a, b):
    p = Pair(a, b)
    return p.first * 2 + p.second


@case("f8", "f8")
def namedtuple_keywords(a, b):
    v = Vec3(a, z=b, y=a - b)
    return v.x + v.y * 10 + v.z * 100


@case("i8", "i8")
def namedtuple_index_and_unpack(a, b):
    p = Pair(a, b)
    x, y = p
    return p[0] * 1000 + p[-1] * 10 + x - y


@case("f8", "f8", "f8")
def namedtuple_returned(a, b, c):
    v = Vec3(a, b, c)
    return Vec3(v.z, v.x, v.y)


@case("f8", "f8")
def namedtuple_nested(a, b):
    s = Seg(Pair(a, b), Pair(b, a))
    return (s.b.first - s.a.first) * s.a.second + len(s)


@case("f8")
def global_namedtuple(a):
    return a * UNIT.x + UNIT.y - UNIT[2] * a


@case("i8", inputs=[0, 1, 2, 3, -1, -4])
def global_tuple_dynamic_index(i):
    return STEPS[i] * 3


@case("i8")
def loop_over_global_tuple(a):
    s = 0
    for v in STEPS:
        s += v * a
    return s


@case("i8", "b1")
def namedtuple_mixed_types(a, flag):
    p = Pair(a, flag)
    if p.second:
        return p.first + 1
    return p.first - 1


@case("f8", "f8")
def namedtuple_in_loop(a, b):
    acc = Pair(0.0, 0.0)
    for k in range(4):
        acc = Pair(acc.first + a * k, acc.second - b)
    return acc.first + acc.second


@case("i8", "i8")
def tuple_compare_elements(a, b):
    t = (a, b)
    u = (b, a)
    return (t[0] < u[0]) + 2 * (t[1] == u[0]) + 4 * (len(t) == 2)


@case("i8", "i8", "i8")
def tuple_min_max_of_elements(a, b, c):
    t = (a, b, c)
    return max(t[0], t[1], t[2]) * 100 + min(t[0], t[1], t[2])
