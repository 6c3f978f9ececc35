"""Control flow: if/elif/else, loops, break/continue, early return."""
from harness import case


@case("i8")
def if_elif(a):
    if a > 100:
        return 3
    elif a > 0:
        return 2
    elif a == 0:
        return 1
    else:
        return 0


@case("i8")
def ternary(a):
    return a * 2 if a > 0 else -a if a < -5 else 7


@case("i8", inputs=[0, 1, 5, 17, 100])
def for_range1(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


@case("i8", "i8", inputs=[(0, 5), (3, 17), (-5, 5), (10, 2)])
def for_range2(a, b):
    s = 0
    for i in range(a, b):
        s += i
    return s


@case("i8", "i8", inputs=[(0, 20), (20, 0), (-7, 9), (5, 5)])
def for_range3(a, b):
    s = 0
    for i in range(a, b, 3):
        s += i
    for i in range(b, a, -2):
        s -= i
    return s


@case("i8", "i8", inputs=[(1, 0), (3, 2), (-2, 1), (0, -3), (20, 7)])
def for_runtime_step(a, step):
    s = 0
    if step != 0:
        for i in range(0, 30, step) if step > 0 else range(30, 0, step):
            s += i
    return s + a


@case("i8", inputs=[0, 1, 2, 7, 30])
def while_loop(n):
    i = 0
    s = 0
    while i < n:
        s += i
        i += 1
    return s


@case("i8", inputs=[0, 3, 10, 50, 200])
def break_continue(n):
    s = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        if i > 40:
            break
        s += i
    return s


@case("i8", inputs=[0, 5, 12, 99])
def while_else(n):
    i = 0
    while i < n:
        if i == 10:
            break
        i += 1
    else:
        i = -1
    return i


@case("i8", inputs=[0, 5, 12, 99])
def for_else(n):
    r = 0
    for i in range(n):
        if i == 10:
            r = 1
            break
    else:
        r = 2
    return r


@case("i8", inputs=[1, 4, 9, 16])
def nested_loops(n):
    s = 0
    for i in range(n):
        for j in range(i):
            if (i + j) % 4 == 0:
                continue
            s += i * j
    return s


@case("i8", inputs=[0, 1, 5, 40])
def nested_break(n):
    s = 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            s += 1
    return s


@case("i8", inputs=[-3, 0, 4, 8, 100])
def early_return_in_loop(n):
    for i in range(100):
        if i * i >= n:
            return i
    return -1


@case("i8", inputs=[1, 7, 27, 97])
def collatz(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@case("i8", "i8", inputs=[(12, 18), (7, 13), (100, 75), (0, 5)])
def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


@case("f8", inputs=[0.5, 1.0, 2.0, 10.0])
def newton_sqrt(x):
    g = x
    for _ in range(30):
        g = 0.5 * (g + x / g)
    return g


@case("i8")
def variable_type_unifies(a):
    x = 0
    if a > 0:
        x = 1.5
    return x * 2


@case("i8", inputs=[0, 1, 2, 3])
def loop_carried_float(n):
    acc = 0
    for i in range(n + 2):
        acc = acc + 0.5 * i
    return acc


@case("f8", "f8")
def min_max_abs(a, b):
    return (min(a, b), max(a, b), abs(a - b), max(a, b, 0.5), min(a, b, -1.0))


@case("i8", inputs=[0, 1, 3, 7])
def iterate_tuple(a):
    s = 0
    for v in (a, a * 2, 5, -a):
        s = s * 3 + v
    return s


@case("i8", inputs=[0, 2, 9])
def enumerate_range(n):
    s = 0
    for k, v in enumerate(range(3, 3 + n * 2, 2)):
        s += k * v
    return s


@case("i8", inputs=[0, 4, 11])
def enumerate_start(n):
    s = 0
    for k, v in enumerate(range(n), 10):
        s += k - v
    return s


@case("i8", inputs=[0, 3, 8])
def zip_ranges(n):
    s = 0
    for a, b in zip(range(n), range(10, 0, -3)):
        s += a * b
    return s


@case("f8", "f8")
def zip_tuples(x, y):
    s = 0.0
    for a, b, c in zip((x, y, 1.5), (2, 3, 4), range(5)):
        s += a * b + c
    return s


@case("i8", inputs=[1, 5, 20])
def nested_enumerate_zip(n):
    s = 0
    for i, (a, b) in enumerate(zip(range(n), range(n, 0, -1))):
        s += i * a - b
    return s


@case("i8", inputs=[-3, 0, 4, 9, 10])
def optional_result(a):
    # A function returning None on some paths (falling off its end, a bare
    # return): an OptionalType result, tested with `is None` and truth.
    def half_if_even(x):
        if x % 2 == 0:
            return x // 2

    def positive(x):
        if x <= 0:
            return
        return x

    r = half_if_even(a)
    p = positive(a)
    s = -1 if r is None else r + 100
    if p is not None and p:
        s += p * 1000
    np_ = not p  # `not` of an optional, stored (UNARY_NOT before 3.13): None is false
    nr = not r
    if np_:
        s += 7
    if nr:
        s += 70000
    return s
