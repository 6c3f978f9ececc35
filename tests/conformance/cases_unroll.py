"""literal_unroll: a for loop over a heterogeneous tuple, its body compiled
once per element (CPython runs the same loop over the tuple)."""
from harness import case

from pycuda_jit import literal_unroll

MIXED = (3, 2.5, True, -7)


@case("i8", "f8")
def unroll_built_tuple(a, b):
    acc = 0.0
    for x in literal_unroll((a, b, a * 2, b > 1.0)):
        acc = acc * 3 + x
    return acc


@case("i8")
def unroll_global_tuple(a):
    acc = a
    for x in literal_unroll(MIXED):
        acc = acc * 2 - x
    return acc


@case("i8", "f8")
def unroll_local_tuple_break(a, b):
    t = (a, b, a - 5, b * b)
    acc = 0.0
    n = 0
    for x in literal_unroll(t):
        if x < 0:
            break
        acc += x
        n += 1
    return acc * 10 + n


@case("i8", "f8")
def unroll_continue_else(a, b):
    acc = 0.0
    for x in literal_unroll((b, a, 1.5, a % 3)):
        if x == a:
            continue
        acc = acc - x
    else:
        acc = acc * 2
    return acc


@case("i8", "f8")
def unroll_return_inside(a, b):
    for x in literal_unroll((b, a, 0.25)):
        if x > 100:
            return x
    return a + b


@case("i8")
def unroll_homogeneous(a):
    acc = 0
    for x in literal_unroll((a, a + 1, a + 2)):
        acc = acc * 7 + x
    return acc


@case("i8", "f8")
def unroll_nested_loops(a, b):
    acc = 0.0
    for x in literal_unroll((a, b)):
        for y in literal_unroll((1, 0.5, b)):
            acc = acc + x * y
        for k in range(2):
            acc = acc - k
    return acc


@case("i8")
def unroll_empty(a):
    acc = a
    for x in literal_unroll(()):
        acc = acc + x
    return acc
