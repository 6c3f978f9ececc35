"""Corpus: bad launches (configurations, argument counts and types,
unsupported dtypes, explicit signatures).  The call marked `# <- error`
must raise the expected exception."""
import datetime

import numpy as np

from pycuda_jit import cuda, errors

from tests.corpus.cases import host


@cuda.jit
def triple(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * 3


@cuda.jit("void(float32[:], float32[:])")
def triple_f32(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * 3


@cuda.jit("void(float32[::1])")
def fill_contiguous(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = 1


@cuda.jit
def with_dyn_shared(x):
    s = cuda.shared.array(0, np.float32)
    s[0] = 1
    x[0] = s[0]


@cuda.jit
def takes_scalar(v, out):
    out[0] = v


def arrays(n=8, dtype=np.float32):
    return cuda.to_device(np.zeros(n, dtype)), cuda.to_device(np.zeros(n, dtype))


# ---- launch configurations ------------------------------------------------------------------

@host(ValueError, match="positive|zero")
def grid_zero():
    x, y = arrays()
    triple[0, 32](x, y)  # <- error


@host(ValueError, match="positive|zero")
def block_zero():
    x, y = arrays()
    triple[1, 0](x, y)  # <- error


@host(ValueError)
def grid_negative():
    x, y = arrays()
    triple[-1, 32](x, y)  # <- error


@host(ValueError)
def block_negative():
    x, y = arrays()
    triple[1, -32](x, y)  # <- error


@host(ValueError)
def block_tuple_with_zero():
    x, y = arrays()
    triple[1, (32, 0)](x, y)  # <- error


@host(errors.LaunchConfigError, match="1025")
def block_too_large():
    x, y = arrays()
    triple[1, 1025](x, y)  # <- error


@host(errors.LaunchConfigError)
def block_product_too_large():
    x, y = arrays()
    triple[1, (32, 32, 2)](x, y)  # <- error


@host(errors.LaunchConfigError, match="along z")
def block_z_too_large():
    x, y = arrays()
    triple[1, (1, 1, 65)](x, y)  # <- error


@host(errors.LaunchConfigError)
def grid_x_too_large():
    x, y = arrays()
    triple[2 ** 31, 1](x, y)  # <- error


@host(errors.LaunchConfigError)
def grid_y_too_large():
    x, y = arrays()
    triple[(1, 65536), 1](x, y)  # <- error


@host(ValueError, match="too large")
def grid_beyond_int64():
    x, y = arrays()
    triple[2 ** 70, 1](x, y)  # <- error


@host(ValueError, match="too large|at most")
def grid_beyond_uint32():
    x, y = arrays()
    triple[2 ** 32, 1](x, y)  # <- error


@host(ValueError, match="too large|at most")
def block_tuple_beyond_uint32():
    x, y = arrays()
    triple[1, (2 ** 32, 1)](x, y)  # <- error


@host(TypeError)
def block_tuple_with_float():
    x, y = arrays()
    triple[1, (32, 1.0)](x, y)  # <- error


@host(errors.LaunchConfigError, match="dynamic shared memory")
def dynamic_shared_over_limit():
    x, _ = arrays()
    with_dyn_shared[1, 32, 0, 1 << 20](x)  # <- error


@host(ValueError, match="shared memory")
def dynamic_shared_negative():
    x, _ = arrays()
    with_dyn_shared[1, 32, 0, -4](x)  # <- error


@host(ValueError, match="shared memory")
def dynamic_shared_wraps_around():
    # 2**32 + 16 bytes must not become 16 bytes
    x, _ = arrays()
    with_dyn_shared[1, 32, 0, 2 ** 32 + 16](x)  # <- error


@host(TypeError)
def grid_float():
    x, y = arrays()
    triple[1.5, 32](x, y)  # <- error


@host(TypeError)
def grid_string():
    x, y = arrays()
    triple["1", 32](x, y)  # <- error


@host(TypeError)
def grid_none():
    x, y = arrays()
    triple[None, 32](x, y)  # <- error


@host(TypeError, match="launch configuration")
def config_missing_block():
    x, y = arrays()
    triple[1](x, y)  # <- error


@host(TypeError, match="launch configuration")
def config_too_long():
    x, y = arrays()
    triple[1, 32, 0, 0, 5](x, y)  # <- error


@host((TypeError, ValueError))
def grid_four_dims():
    x, y = arrays()
    triple[(1, 1, 1, 1), 32](x, y)  # <- error


@host((TypeError, ValueError))
def block_empty_tuple():
    x, y = arrays()
    triple[1, ()](x, y)  # <- error


@host(TypeError, match="stream")
def stream_wrong_type():
    x, y = arrays()
    triple[1, 32, "stream"](x, y)  # <- error


@host(TypeError, match="stream")
def stream_float():
    x, y = arrays()
    triple[1, 32, 1.5](x, y)  # <- error


@host(TypeError)
def shared_memory_float():
    x, _ = arrays()
    with_dyn_shared[1, 32, 0, 16.5](x)  # <- error


# ---- arguments -----------------------------------------------------------------------------

@host(TypeError, match="takes 2 arguments but 1 was given")
def too_few_arguments():
    x, _ = arrays()
    triple[1, 32](x)  # <- error


@host(TypeError, match="takes 2 arguments but 3 were given")
def too_many_arguments():
    x, y = arrays()
    triple[1, 32](x, y, y)  # <- error


@host(TypeError)
def keyword_arguments():
    x, y = arrays()
    triple[1, 32](x, out=y)  # <- error


@host(TypeError, match="str")
def string_argument():
    x, _ = arrays()
    triple[1, 32](x, "text")  # <- error


@host(TypeError)
def list_argument():
    x, _ = arrays()
    triple[1, 32](x, [1.0, 2.0])  # <- error


@host(TypeError)
def dict_argument():
    x, _ = arrays()
    triple[1, 32](x, {"a": 1})  # <- error


@host(TypeError)
def none_argument():
    x, _ = arrays()
    triple[1, 32](x, None)  # <- error


@host(TypeError)
def object_argument():
    x, _ = arrays()
    triple[1, 32](x, object())  # <- error


@host(TypeError)
def function_argument():
    x, _ = arrays()
    triple[1, 32](x, len)  # <- error


@host(TypeError)
def datetime_argument():
    x, _ = arrays()
    triple[1, 32](x, datetime.datetime(2024, 1, 1))  # <- error


@host((TypeError, OverflowError))
def huge_python_int_argument():
    x, _ = arrays()
    takes_scalar[1, 1](2 ** 70, x)  # <- error


@host(TypeError, match="object|'\\|O'")
def object_array_argument():
    x, _ = arrays()
    triple[1, 32](x, np.array([object()] * 8))  # <- error


@host(TypeError, match="datetime64|M8")
def datetime64_array_argument():
    x, _ = arrays()
    triple[1, 32](x, np.zeros(8, "datetime64[s]"))  # <- error


@host(TypeError, match="timedelta64|m8")
def timedelta64_array_argument():
    x, _ = arrays()
    triple[1, 32](x, np.zeros(8, "timedelta64[s]"))  # <- error


@host(TypeError, match="<U|str|unicode")
def unicode_array_argument():
    x, _ = arrays()
    triple[1, 32](x, np.array(["a"] * 8))  # <- error


@host(TypeError, match="S|bytes")
def bytes_array_argument():
    x, _ = arrays()
    triple[1, 32](x, np.zeros(8, "S4"))  # <- error


@host(TypeError)
def float128_array_argument():
    x, _ = arrays()
    triple[1, 32](x, np.zeros(8, np.longdouble if np.dtype(np.longdouble).itemsize > 8 else "V16"))  # <- error


@host(TypeError)
def unaligned_dtype_argument():
    x, _ = arrays()
    triple[1, 32](x, np.zeros(8, np.dtype(">f4")))  # <- error


@host(TypeError)
def structured_object_field_argument():
    x, _ = arrays()
    triple[1, 32](x, np.zeros(8, [("a", "f4"), ("b", "O")]))  # <- error


@host(TypeError)
def void_array_argument():
    x, _ = arrays()
    triple[1, 32](x, np.zeros(8, "V4"))  # <- error


@host(TypeError, match="No matching definition")
def signature_dtype_mismatch():
    x = cuda.device_array(8, np.float64)
    triple_f32[1, 32](x, x)  # <- error


@host(TypeError, match="takes 2 arguments")
def signature_count_mismatch():
    x = cuda.device_array(8, np.float32)
    triple_f32[1, 32](x)  # <- error


@host(TypeError, match="No matching definition")
def signature_needs_contiguous():
    x = cuda.to_device(np.zeros(16, np.float32))[::2]
    fill_contiguous[1, 32](x)  # <- error


@host(TypeError, match="No matching definition")
def signature_wrong_ndim():
    x = cuda.device_array((2, 4), np.float32)
    fill_contiguous[1, 32](x)  # <- error


@host(TypeError)
def too_many_dimensions():
    x, _ = arrays()
    triple[1, 32](x, np.zeros((1,) * 9, np.float32))  # <- error


@host(ValueError, match="launch configuration was not specified")
def call_kernel_without_config():
    x, y = arrays()
    triple(x, y)  # <- error


@host((TypeError, RuntimeError))
def launch_device_function():
    dev = cuda.jit(device=True)(lambda v: v)
    dev[1, 1](1.0)  # <- error


@host(TypeError)
def jit_non_function():
    cuda.jit(42)  # <- error


@host(errors.SignatureError)
def jit_bad_signature_string():
    cuda.jit("void(floaty[:])")(lambda x: None)  # <- error


@host(errors.SignatureError)
def compile_ptx_bad_signature():
    cuda.compile_ptx(triple.py_func, "void(float32[:]")  # <- error


@host((TypeError, errors.SignatureError))
def compile_ptx_signature_count():
    cuda.compile_ptx(triple.py_func, "void(float32[:])")  # <- error


@host((ValueError, TypeError), match="read-only|writeable|readonly")
def kernel_writes_read_only_numpy_array():
    ro = np.zeros(8, np.float32)
    ro.flags.writeable = False
    triple[1, 32](np.ones(8, np.float32), ro)  # <- error
