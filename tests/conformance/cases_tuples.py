"""Tuples: building, unpacking, indexing, swapping."""
from harness import case


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
