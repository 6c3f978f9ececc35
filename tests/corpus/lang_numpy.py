"""Corpus: NumPy outside the kernel language (array functions, array
creation, methods, global arrays that cannot become constant memory)."""
import numpy as np

from pycuda_jit import cuda
from pycuda_jit.errors import NameResolutionError, TypingError, UnsupportedError

from tests.corpus.cases import lang

ANY = (TypingError, UnsupportedError, NameResolutionError)
BIG = np.zeros(20000, np.float64)        # 160 KB: over the 64 KiB constant limit
OBJECTS = np.array([object(), object()])
STRINGS = np.array(["a", "bc"])


@lang(ANY, match="numpy.cumsum|np.cumsum")
def np_cumsum(x):
    x[0] = np.cumsum(x)[0]  # <- error


# ---- reductions (np.sum, a.max(), ...) in forms kernels do not take -------------

@lang(TypingError, match="along an axis")
def np_sum_along_an_axis(x):
    x[0] = np.sum(x, axis=0)  # <- error


@lang(TypingError, match="along an axis")
def array_max_along_an_axis(x):
    x[0] = x.max(0)  # <- error


@lang(TypingError, match="takes only the array .* not dtype=")
def array_sum_with_dtype(x):
    x[0] = x.sum(dtype=np.float64)  # <- error


@lang(TypingError, match="takes only the array .* not ddof=")
def np_var_with_ddof(x):
    x[0] = np.var(x, ddof=1)  # <- error


@lang(TypingError, match="takes an array, not float32")
def np_mean_of_a_scalar(x):
    x[0] = np.mean(x[0])  # <- error


@lang(TypingError, match="np.max.. of an array of complex64",
      args=lambda: (np.zeros(4, np.complex64),))
def np_max_of_complex(x):
    x[0] = np.max(x)  # <- error


@lang(TypingError, match="of an array of float16",
      args=lambda: (np.zeros(4, np.float16),))
def np_sum_of_float16(x):
    x[0] = np.sum(x)  # <- error


@lang(TypingError, match="shape must be an integer")
def np_zeros_of_a_float_shape(x):
    y = np.zeros(3.5)  # <- error
    x[0] = y[0]


@lang(TypingError, match="C-ordered")
def np_empty_in_fortran_order(x):
    y = np.empty(3, np.float32, order="F")  # <- error
    x[0] = y[0]


@lang(ANY)
def np_array(x):
    y = np.array((1.0, 2.0))  # <- error
    x[0] = y[0]


@lang(ANY)
def np_dot(x):
    x[0] = np.dot(x, x)  # <- error


@lang(ANY, match="numpy.linalg.norm|np.linalg.norm")
def np_linalg_norm(x):
    x[0] = np.linalg.norm(x)  # <- error


@lang(ANY)
def np_random(x):
    x[0] = np.random.rand()  # <- error


@lang(ANY)
def np_sort(x):
    np.sort(x)  # <- error


@lang(ANY)
def np_sqrt_of_array(x):
    y = np.sqrt(x)  # <- error
    x[0] = y[0]


@lang(TypingError, match="complex")
def np_arange_of_complex(x):
    for v in np.arange(3, dtype=np.complex64):  # <- error
        x[0] = v.real


@lang(ANY, match="C-contiguous")
def array_reshape_of_a_strided_view(x):
    y = x[::2].reshape(2, 2)  # <- error
    x[0] = y[0, 0]


@lang(ANY)
def array_astype(x):
    y = x.astype(np.float64)  # <- error
    x[0] = y[0]


@lang(ANY)
def np_dtype_call_with_two_args(x):
    x[0] = np.float32(1.0, 2.0)  # <- error


@lang(ANY)
def np_float32_of_string(x):
    x[0] = np.float32("1.5")  # <- error


@lang(ANY)
def np_datetime(x):
    d = np.datetime64("2024-01-01")  # <- error
    x[0] = 1


@lang(ANY)
def global_array_too_big(x):
    x[0] = BIG[0]  # <- error


@lang(ANY)
def global_object_array(x):
    y = OBJECTS[0]  # <- error
    x[0] = 1


@lang(ANY)
def global_string_array(x):
    x[0] = STRINGS[0]  # <- error


@lang(ANY)
def store_into_global_array(x):
    SMALL[0] = x[0]  # <- error


SMALL = np.zeros(4, np.float32)


@lang(ANY)
def shared_array_bad_dtype(x):
    s = cuda.shared.array(4, np.object_)  # <- error
    x[0] = 1


@lang(ANY)
def local_array_negative(x):
    s = cuda.local.array(-4, np.float32)  # <- error
    x[0] = s[0]


# ---- messages W5 fixed (they were misleading) ---------------------------------------------

@lang(ANY, match=r"^(?![\s\S]*device=True)[\s\S]*cumsum")
def np_cumsum_message_does_not_suggest_device_function(x):
    x[0] = np.cumsum(x)[0]  # <- error


@lang(ANY, match=r"^(?![\s\S]*'np\.linspace' is 'np\.linspace')")
def np_linspace_message_says_what_is_wrong(x):
    y = np.linspace(0, 1, 4)  # <- error
    x[0] = y[0]


def _months_and_days():
    return np.zeros(2, "m8[M]"), np.zeros(2, "m8[D]")


@lang(TypingError, args=_months_and_days, match=r"time units \[M\] and \[D\]")
def timedelta_months_plus_days(a, b):
    a[0] = a[1] + b[0]  # <- error


@lang(TypingError, args=lambda: (np.zeros(2, "M8[s]"),), match="unsupported operand")
def datetime_plus_datetime(a):
    a[0] = a[0] + a[1]  # <- error


@lang(TypingError, args=lambda: (np.zeros(2, "M8[s]"), np.zeros(2, np.int64)),
      match="cannot store")
def datetime_into_int_array(a, b):
    b[0] = a[0]  # <- error


@lang(TypingError, args=lambda: (np.zeros(2, "U4"),), match="unsupported operand")
def string_concatenation(a):
    a[0] = a[0] + a[1]  # <- error


@lang(TypingError, args=lambda: (np.zeros(2, "U4"), np.zeros(2, np.bool_)),
      match="== and !=")
def string_ordering(a, out):
    out[0] = a[0] < a[1]  # <- error


@lang(TypingError, args=lambda: (np.zeros(2, "S4"),), match="bytes constant")
def str_into_bytes_array(a):
    a[0] = "abc"  # <- error
