"""Corpus: functions outside the kernel language (nested functions,
lambdas, closures that assign, global writes, *args/**kwargs, recursion
across functions, calls of plain Python functions and unsupported
builtins)."""
import math

from pycuda_jit import cuda
from pycuda_jit.errors import (NameResolutionError, SignatureError, TypingError,
                               UnsupportedError)

from tests.conformance.harness import HostArray
from tests.corpus.cases import lang


def f32(n=8):
    return HostArray("f4", [0.0] * n)


def i64(n=8):
    return HostArray("i8", [0] * n)


# ---- nested functions and lambdas: what stays refused ---------------------------------
# (a nested function reading its enclosing function's variables, called there,
# compiles: tests/kernels/test_closures.py)

@lang(UnsupportedError, match="assigned after the function is defined")
def capture_assigned_later(x):
    f = lambda: s  # noqa: E731
    s = x[0]  # <- error
    x[1] = f()


@lang(UnsupportedError, match="refers to itself")
def nested_recursion(x):
    def fact(n):  # <- error
        return 1 if n <= 1 else n * fact(n - 1)
    x[0] = fact(4)


@lang(UnsupportedError, match="must be constants")
def lambda_runtime_default(x):
    f = lambda v, w=x[1]: v * w  # noqa: E731  # <- error
    x[0] = f(1.0)


@lang(UnsupportedError, match="keyword-only parameters")
def lambda_keyword_only(x):
    f = lambda v, *, w=2.0: v * w  # noqa: E731  # <- error
    x[0] = f(1.0)


@cuda.jit(device=True)
def _apply(fn, v):
    return fn(v)


@lang(TypingError, match="which is not a constant")
def closure_passed_on(x):
    s = x[1]
    x[0] = _apply(lambda v: v + s, 1.0)  # <- error


@lang(TypingError, match="cannot return a function")
def nested_returns_lambda(x):
    def make():
        return lambda v: v  # <- error
    x[0] = make()(1.0)


@lang(UnsupportedError)
def nested_decorated_def(x):
    @cuda.jit(device=True)  # <- error (cuda.jit is not a kernel-language name)
    def helper(v):
        return v
    x[0] = helper(1.0)


@lang(UnsupportedError)
def nested_class(x):
    class Point:  # <- error
        pass
    x[0] = 1


# ---- closures that assign (nonlocal) ------------------------------------------------------

def make_nonlocal_assign():
    count = 0

    @lang(UnsupportedError, match="closure", marker_in=[make_nonlocal_assign])
    def nonlocal_assign(x):
        nonlocal count
        x[0] = 1
        count = 2  # <- error
    return nonlocal_assign


def make_nonlocal_branches():
    total = 0

    @lang(UnsupportedError, match="closure", marker_in=[make_nonlocal_branches])
    def nonlocal_branches(x):
        nonlocal total
        x[0] = total
        if x[1] > 0:
            total = 3  # <- error
        else:
            total = 4
    return nonlocal_branches


def make_nonlocal_augmented():
    total = 0

    @lang(UnsupportedError, match="closure", marker_in=[make_nonlocal_augmented])
    def nonlocal_augmented(x):
        nonlocal total
        for i in range(3):
            total += i  # <- error
        x[0] = 1
    return nonlocal_augmented


def make_nonlocal_in_loop_else():
    seen = 0

    @lang(UnsupportedError, match="closure", marker_in=[make_nonlocal_in_loop_else])
    def nonlocal_in_loop(x):
        nonlocal seen
        i = 0
        while i < 3:
            if x[i] > 0:
                break
            i += 1
        else:
            seen = 1  # <- error
        if i == 0:
            seen = 2
    return nonlocal_in_loop


def make_nonlocal_after_loop():
    last = 0

    @lang(UnsupportedError, match="closure", marker_in=[make_nonlocal_after_loop])
    def nonlocal_after_loop(x):
        nonlocal last
        for i in range(4):
            if x[i] < 0:
                continue
            x[i] = 1
        last = 5  # <- error
    return nonlocal_after_loop


make_nonlocal_assign()
make_nonlocal_branches()
make_nonlocal_augmented()
make_nonlocal_in_loop_else()
make_nonlocal_after_loop()


# ---- globals ------------------------------------------------------------------------------

COUNTER = 0
TABLE = [1, 2, 3]
SETTINGS = {"scale": 2}


@lang(UnsupportedError, match="global")
def global_assign(x):
    global COUNTER
    x[0] = 1
    COUNTER = 5  # <- error


@lang(UnsupportedError, match="global")
def global_augmented(x):
    global COUNTER
    COUNTER += 1  # <- error
    x[0] = COUNTER


@lang(UnsupportedError, match="global")
def global_assign_in_branch(x):
    global COUNTER
    if x[0] > 0:
        x[1] = 1
    else:
        COUNTER = 3  # <- error


@lang((TypingError, UnsupportedError), match="list")
def global_list_read(x):
    x[0] = TABLE[0]  # <- error


@lang((TypingError, UnsupportedError), match="dict")
def global_dict_read(x):
    x[0] = SETTINGS["scale"]  # <- error


# ---- *args, **kwargs ----------------------------------------------------------------------

@cuda.jit(device=True)
def add3(a, b, c):
    return a + b + c


@lang(UnsupportedError, match=r"before a \*tuple")
def star_args_call(x):
    t = (2.0, 3.0)
    x[0] = add3(1.0, *t)  # <- error (f(*t) alone works)


KW = {"b": 2.0, "c": 3.0}


@lang(UnsupportedError, match=r"\*\*kwargs|\*args")
def double_star_call(x):
    x[0] = add3(1.0, **KW)  # <- error


@lang(UnsupportedError)
def double_star_dict_display(x):
    x[0] = add3(1.0, **{"b": 2.0, "c": 3.0})  # <- error


@lang(UnsupportedError, match=r"before a \*tuple")
def star_args_builtin(x):
    t = (1.0, 2.0)
    x[0] = max(x[0], *t)  # <- error


@lang(UnsupportedError, match=r"before a \*tuple")
def star_print(x):
    t = (1, 2)
    print(x[0], *t)  # <- error


@lang(SignatureError, match=r"\*args")
def star_parameter(*args):  # <- error
    args[0][0] = 1


@lang(SignatureError, match=r"\*\*kwargs")
def kwargs_parameter(x, **kw):  # <- error
    x[0] = 1


@lang(SignatureError, match="keyword-only")
def keyword_only_parameter(x, *, scale=2):  # <- error
    x[0] = scale


@lang(UnsupportedError)
def star_unpack_assign(x):
    t = (1.0, 2.0, 3.0)
    a, *rest = t  # <- error
    x[0] = a


# ---- device functions: bad calls ------------------------------------------------------------

@cuda.jit(device=True)
def scale(v, k=2.0):
    return v * k


@lang(TypingError, match="argument")
def device_too_many_args(x):
    x[0] = scale(1.0, 2.0, 3.0)  # <- error


@lang(TypingError, match="missing")
def device_missing_arg(x):
    x[0] = add3(1.0, 2.0)  # <- error


@lang(TypingError, match="keyword")
def device_unknown_keyword(x):
    x[0] = scale(1.0, factor=3.0)  # <- error


@lang(TypingError, match="multiple values|twice|already")
def device_argument_twice(x):
    x[0] = scale(1.0, v=2.0)  # <- error


@cuda.jit(device=True)
def bad_body(v):
    return v + "text"  # <- error


@lang(TypingError, marker_in=[bad_body])
def device_body_error(x):
    x[0] = bad_body(1.0)


@cuda.jit(device=True)
def uses_try(v):
    try:  # <- error
        return v
    finally:
        pass


@lang(UnsupportedError, marker_in=[uses_try])
def device_uses_try(x):
    x[0] = uses_try(1.0)


@cuda.jit(device=True)
def ping(n):
    if n <= 0:
        return 0
    return pong(n - 1)  # <- error


@cuda.jit(device=True)
def pong(n):
    if n <= 0:
        return 1
    return ping(n - 1)


# ping(3) is specialized on the constant 3; pong(n - 1) and the ping it calls
# take a run-time int64, so the cycle closes at ping's call to pong.
@lang((TypingError, UnsupportedError), match="recurs", marker_in=[ping])
def mutual_recursion(x):
    x[0] = ping(3)


@cuda.jit(device=True)
def rec_retyped(n):
    if n <= 0:
        return 0
    return rec_retyped(n * 0.5)  # <- error


@lang((TypingError, UnsupportedError), match="recurs", marker_in=[rec_retyped])
def recursion_other_types(x):
    x[0] = rec_retyped(4)


@lang(TypingError, match="must have void return type")
def kernel_returns_value(x):
    x[0] = 1
    return x[0]  # <- error


# ---- calling Python functions and builtins ------------------------------------------------------

def plain_python(v):
    return v + 1


@lang((TypingError, UnsupportedError), match="plain_python|device function")
def call_plain_function(x):
    x[0] = plain_python(1.0)  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_sorted(x):
    x[0] = sorted((3, 1, 2))[0]  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_sum_builtin(x):
    x[0] = sum((1, 2, 3))  # <- error


@lang(TypingError, match="isinstance")
def call_isinstance(x):
    if isinstance(x[0], x):  # <- error (classes: int, float, bool, complex, dtypes)
        x[0] = 1


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_open(x):
    f = open("/dev/null")  # <- error
    x[0] = 1


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_input(x):
    x[0] = input()  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_type(x):
    t = type(x[0])  # <- error
    x[1] = 1


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_id(x):
    x[0] = id(x)  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_hash(x):
    x[0] = hash(x[1])  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_getattr(x):
    x[0] = getattr(x, "size")  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_eval(x):
    x[0] = eval("1 + 1")  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_iter_next(x):
    it = iter(x)  # <- error
    x[0] = next(it)


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_map(x):
    x[0] = map(abs, x)  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_str(x):
    s = str(x[0])  # <- error
    x[1] = 1


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_repr(x):
    s = repr(x[0])  # <- error
    x[1] = 1


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_list(x):
    v = list(x)  # <- error
    x[1] = 1


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_math_unknown(x):
    x[0] = math.not_there(1.0)  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_math_non_scalar(x):
    x[0] = math.factorial(3)  # <- error


@lang(TypingError, match="math")
def math_on_array(x):
    x[0] = math.sin(x)  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def call_cuda_unknown(x):
    cuda.not_an_intrinsic()  # <- error
    x[0] = 1


@lang((TypingError, NameResolutionError))
def cuda_grid_bad_dims(x):
    i = cuda.grid(4)  # <- error
    x[0] = 1


@lang(TypingError)
def syncthreads_with_arg(x):
    cuda.syncthreads(1)  # <- error
    x[0] = 1


@lang(TypingError)
def atomic_on_scalar(x):
    v = x[0]
    cuda.atomic.add(v, 0, 1.0)  # <- error


@lang(TypingError)
def shared_array_runtime_shape(x):
    n = int(x[0])
    s = cuda.shared.array(n, 4)  # <- error
    x[0] = s[0]


@lang(TypingError)
def local_array_bad_dtype(x):
    s = cuda.local.array(4, "not a dtype")  # <- error
    x[0] = s[0]


@lang(TypingError, match="print")
def print_keyword(x):
    print(x[0], end="")  # <- error


@lang((TypingError, UnsupportedError))
def print_array(x):
    print(x)  # <- error


@lang(TypingError)
def range_float(x):
    for i in range(2.5):  # <- error
        x[0] = i


@lang(TypingError)
def range_four_args(x):
    for i in range(0, 4, 1, 1):  # <- error
        x[0] = i


@lang(TypingError)
def len_of_number(x):
    x[0] = len(x[1])  # <- error


@lang(TypingError)
def min_one_argument(x):
    x[0] = min(x[1])  # <- error


@lang(TypingError)
def abs_of_array(x):
    x[0] = abs(x)  # <- error


@lang(TypingError)
def round_complex(x):
    x[0] = round(1j * x[0])  # <- error


@lang(TypingError)
def int_of_complex(x):
    x[0] = int(x[0] + 1j)  # <- error


@lang(TypingError)
def complex_ordering(x):
    if (x[0] + 1j) < (x[1] + 2j):  # <- error
        x[0] = 1


@lang(TypingError)
def floordiv_complex(x):
    x[0] = ((x[0] + 1j) // 2).real  # <- error


@lang(TypingError)
def bitwise_on_float(x):
    x[0] = x[1] & 3  # <- error


@lang(TypingError)
def invert_float(x):
    x[0] = ~x[1]  # <- error


@lang(TypingError, args=lambda: (i64(),))
def shift_by_float(x):
    x[0] = x[1] << 1.5  # <- error


@lang(TypingError, args=lambda: (HostArray("u8", [0] * 8), HostArray("i8", [0] * 8)))
def shift_uint64_by_int64(x, y):
    x[0] = x[1] << y[0]  # <- error
