"""Nested functions and lambdas that capture variables of the enclosing
function (read-only), called where they are defined."""
from harness import case

OFFSET = 5


@case("i8", "f8")
def lambda_captures_args(a, b):
    f = lambda x: x * a + b  # noqa: E731
    return f(2) + f(b) * 0.5


@case("i8", "i8")
def nested_def_captures_local(a, b):
    c = a * 3 - b

    def g(x, y):
        if x > c:
            return x - y + OFFSET
        return y * c

    return g(a, b) + g(b, y=a)


@case("i8")
def nested_in_loop(a):
    acc = 0
    for i in range(4):
        k = i + a

        def step(v):
            return v * 2 + k

        acc = step(acc)
    return acc


@case("f8", "f8")
def nested_calls_nested(a, b):
    scale = a + 1.0

    def outer(x):
        def inner(y):  # captures a variable `outer` itself captured
            return y * scale

        return inner(x) + inner(b)

    return outer(a) - outer(2.0)


@case("i8")
def lambda_no_capture(a):
    sq = lambda v: v * v  # noqa: E731
    return sq(a) + sq(a + 1)


@case("i8", "i8")
def nested_returns_tuple(a, b):
    def qr(x):
        return x // b if b else 0, x % 7

    q, r = qr(a)
    return q * 100 + r


@case("i8", "f8")
def nested_default_values(a, b):
    def f(x, y=2, z=0.5):
        return x * y + z + a

    g = lambda v, w=(1, 2.5): v * w[0] + w[1]  # noqa: E731
    return f(b) + f(b, 3) + f(x=a, z=b) + g(a) + g(b, (2, 0.0))
