"""Corpus: data outside the kernel language (containers, comprehensions,
strings and f-strings, imports, classes and objects, attribute and slice
stores, unsupported iteration, globals of unsupported types)."""
import collections
import os

from pycuda_jit import cuda
from pycuda_jit.errors import NameResolutionError, TypingError, UnsupportedError

from tests.conformance.harness import HostArray
from tests.corpus.cases import lang

# ---- containers and comprehensions ------------------------------------------------------


@lang(UnsupportedError, match="list displays")
def list_display(x):
    x[0] = 1
    v = [1, 2, 3]  # <- error
    x[1] = v[0]


@lang(UnsupportedError, match="list displays")
def empty_list(x):
    v = []  # <- error
    x[0] = len(v)


@lang(UnsupportedError, match="dict displays")
def dict_display(x):
    d = {"a": 1}  # <- error
    x[0] = d["a"]


@lang(UnsupportedError, match="dict displays")
def empty_dict(x):
    d = {}  # <- error
    x[0] = 1


@lang(UnsupportedError, match="set displays")
def set_display(x):
    s = {1, 2}  # <- error
    x[0] = 1


@lang(UnsupportedError, match="list displays")
def list_repeat(x):
    v = [0] * 4  # <- error
    x[0] = v[0]


@lang(UnsupportedError, match="comprehension")
def list_comprehension(x):
    v = [i * 2 for i in range(4)]  # <- error
    x[0] = v[0]


@lang(UnsupportedError, match="comprehension")
def set_comprehension(x):
    v = {i for i in range(4)}  # <- error
    x[0] = 1


@lang(UnsupportedError, match="comprehension")
def dict_comprehension(x):
    v = {i: i for i in range(4)}  # <- error
    x[0] = 1


@lang(UnsupportedError, match="comprehension")
def comprehension_reading_local(x):
    k = 3
    v = [i + k for i in range(4)]  # <- error
    x[0] = v[0]


@lang(UnsupportedError, match="comprehension")
def comprehension_in_loop(x):
    for j in range(2):
        x[j] = [j for _ in range(2)][0]  # <- error


@lang(UnsupportedError, match="comprehension")
def walrus_in_comprehension(x):
    v = [(y := i) for i in range(3)]  # <- error
    x[0] = y


@lang(UnsupportedError, match="list displays")
def list_unpacking_display(x):
    t = (1, 2)
    v = [*t]  # <- error
    x[0] = v[0]


@lang(UnsupportedError)
def dict_unpacking_display(x):
    d = {**{}}  # <- error
    x[0] = 1


@lang(TypingError, match="'in' is not supported for array")
def in_operator(x):
    if 1 in x:  # <- error (tuples and ranges only)
        x[0] = 1


@lang(TypingError, match="'in' compares")
def not_in_operator(x):
    if x[0] not in (1.0, None):  # <- error (a tuple of numbers only)
        x[0] = 1


@lang(TypingError, match="'is' compares")
def is_with_number(x):
    if x[0] is 1.0:  # <- error (a literal's identity)  # noqa: F632
        x[0] = 1


# ---- strings, bytes, f-strings ------------------------------------------------------------

@lang(UnsupportedError, match="string formatting")
def fstring(x):
    s = f"{x[0]}"  # <- error
    x[1] = 1


@lang(UnsupportedError, match="string formatting")
def fstring_with_spec(x):
    s = f"{x[0]:.3f}"  # <- error
    x[1] = 1


@lang((TypingError, UnsupportedError))
def string_concat(x):
    s = "a" + "b" * int(x[0])  # <- error
    x[1] = 1


@lang(TypingError)
def string_plus_number(x):
    x[0] = "a" + x[1]  # <- error


@lang((TypingError, UnsupportedError))
def string_percent_format(x):
    s = "%d" % x[0]  # <- error
    x[1] = 1


@lang((TypingError, UnsupportedError, NameResolutionError))
def string_method(x):
    s = "abc".upper()  # <- error
    x[1] = 1


@lang((TypingError, UnsupportedError))
def string_index(x):
    c = "abc"[int(x[0])]  # <- error
    x[1] = 1


@lang((TypingError, UnsupportedError))
def string_len(x):
    x[0] = len("abc")  # <- error


@lang((TypingError, UnsupportedError))
def string_compare(x):
    # two constant strings compare when the kernel compiles; a string and a
    # number do not (a TypeError in Python)
    if "a" < x[0]:  # <- error
        x[0] = 1


@lang((TypingError, UnsupportedError))
def string_into_array(x):
    x[0] = "1.5"  # <- error


@lang((TypingError, UnsupportedError))
def bytes_literal_indexed(x):
    b = b"ab"
    x[0] = b[0]  # <- error


@lang((TypingError, UnsupportedError))
def iterate_string(x):
    for c in "abc":  # <- error
        x[0] = 1


# ---- imports ---------------------------------------------------------------------------------

@lang(UnsupportedError, match="import")
def import_module(x):
    import math  # <- error
    x[0] = math.pi


@lang(UnsupportedError, match="import")
def import_from(x):
    from math import pi  # <- error
    x[0] = pi


@lang(UnsupportedError, match="import")
def import_in_branch(x):
    if x[0] > 0:
        import os.path  # <- error
        x[0] = 1


@lang(UnsupportedError, match="import")
def import_relative(x):
    from . import cases  # <- error
    x[0] = 1


@lang((TypingError, UnsupportedError, NameResolutionError))
def dunder_import(x):
    m = __import__("math")  # <- error
    x[0] = 1


# ---- classes, objects, attributes ----------------------------------------------------------------

class Plain:
    scale = 2.0

    def method(self):
        return 1.0


OBJ = Plain()
Pair = collections.namedtuple("Pair", "a b")
PAIR = Pair(1.0, 2.0)


@lang((TypingError, UnsupportedError, NameResolutionError))
def object_attribute(x):
    x[0] = OBJ.scale  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def object_method(x):
    x[0] = OBJ.method()  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def instantiate_class(x):
    p = Plain()  # <- error
    x[0] = 1


@lang(UnsupportedError, match="attributes")
def store_array_attribute(x):
    x.shape = (2,)  # <- error


@lang(UnsupportedError, match="attributes|immutable|namedtuple")
def store_namedtuple_field(x):
    p = Pair(1.0, 2.0)
    p.a = 3.0  # <- error
    x[0] = p.a


@lang((TypingError, NameResolutionError))
def namedtuple_unknown_field(x):
    x[0] = PAIR.c  # <- error


@lang((TypingError, NameResolutionError))
def array_unknown_attribute(x):
    x[0] = x.not_an_attribute  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def array_method_cumsum(x):
    x[0] = x.cumsum()[0]  # <- error


@lang(TypingError, match="no keyword arguments")
def array_method_copy_with_order(x):
    y = x.copy(order="F")  # <- error
    x[0] = y[0]


@lang((TypingError, UnsupportedError, NameResolutionError))
def module_function_os(x):
    x[0] = os.getpid()  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def kernel_calls_kernel(x):
    list_display[1, 1](x)  # <- error


# ---- indexing -------------------------------------------------------------------------------------

@lang(TypingError, match="slice")
def store_tuple_to_slice(x):
    x[1:3] = (0.0, 1.0)  # <- error


@lang(TypingError, match="indices must be integers")
def float_index(x):
    x[1.5] = 2.0  # <- error


@lang(TypingError)
def too_many_indices(x):
    x[0, 1] = 2.0  # <- error


@lang(TypingError, match="out of range")
def tuple_index_out_of_range(x):
    t = (1.0, 2.0)
    x[0] = t[2]  # <- error


@lang(TypingError, match="unpack")
def unpack_mismatch(x):
    a, b, c = (1.0, 2.0)  # <- error
    x[0] = a


@lang(TypingError)
def index_scalar(x):
    v = x[0]
    x[1] = v[0]  # <- error


@lang(TypingError)
def tuple_item_assignment(x):
    t = (1.0, 2.0)
    t[0] = 3.0  # <- error


@lang(TypingError, match="incompatible types")
def array_or_number(x):
    if x[0] > 0:
        v = x
    else:
        v = 1.0
    x[0] = v  # <- error


@lang(TypingError, match="array expressions|unsupported operand")
def array_arithmetic(x):
    x[0] = (x + 1.0)[0]  # <- error


@lang(TypingError, match="dimension",
      args=lambda: (HostArray("f4", [(0.0, 0.0)] * 4, cols=2),))
def store_2d_into_a_row(x):
    x[0] = x  # <- error


@lang(TypingError)
def truth_of_array(x):
    if x:  # <- error
        x[0] = 1


@lang((TypingError, UnsupportedError))
def iterate_number(x):
    for v in x[0]:  # <- error
        x[1] = v


@lang(TypingError)
def enumerate_number(x):
    for i, v in enumerate(3):  # <- error
        x[i] = v


@lang(TypingError)
def zip_number(x):
    for a, b in zip(x, 2):  # <- error
        x[0] = a


# ---- globals of unsupported types -----------------------------------------------------------------

GLOBAL_SET = {1, 2}
GLOBAL_OBJECT = object()
GLOBAL_BYTES = b"abc"


@lang((TypingError, UnsupportedError, NameResolutionError))
def global_set(x):
    x[0] = len(GLOBAL_SET)  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def global_object(x):
    y = GLOBAL_OBJECT  # <- error
    x[0] = 1


@lang((TypingError, UnsupportedError, NameResolutionError))
def global_bytes(x):
    x[0] = GLOBAL_BYTES[0]  # <- error


@lang((TypingError, UnsupportedError, NameResolutionError))
def global_function_value(x):
    f = os.getcwd  # <- error
    x[0] = 1


@lang((TypingError, UnsupportedError))
def none_arithmetic(x):
    v = None
    x[0] = v + 1  # <- error


@lang((TypingError, UnsupportedError))
def ellipsis_value(x):
    x[0] = ...  # <- error


@lang((TypingError, UnsupportedError))
def cuda_module_as_value(x):
    x[0] = cuda  # <- error
