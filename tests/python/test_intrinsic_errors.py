"""Misused CUDA intrinsics are compile errors that name the user's line,
show the source and, where one helps, a hint (like test_diagnostics.py)."""
import inspect

import numpy as np
import pytest

from pycuda_jit import cuda, errors

HERE = __file__
FULL = 0xFFFFFFFF


def line_of(func, needle):
    lines, start = inspect.getsourcelines(func)
    for k, text in enumerate(lines):
        if needle in text:
            return start + k
    raise AssertionError(needle)


def k_shape_not_constant(x):
    sm = cuda.shared.array(x.size, np.float32)
    sm[0] = x[0]


def k_local_shape_not_constant(x):
    n = cuda.threadIdx.x + 1
    a = cuda.local.array(n, np.float32)
    a[0] = x[0]


def k_local_size_zero(x):
    a = cuda.local.array(0, np.float32)
    a[0] = x[0]


def k_dynamic_2d(x):
    sm = cuda.shared.array((0, 4), np.float32)
    sm[0, 0] = x[0]


def k_bad_dtype(x):
    sm = cuda.shared.array(4, "float33")
    sm[0] = x[0]


def k_atomic_int8(x):
    cuda.atomic.add(x, 0, 1)


def k_atomic_inc_signed(x):
    cuda.atomic.inc(x, 0, 10)


def k_atomic_and_float(x):
    cuda.atomic.and_(x, 0, 1)


def k_atomic_local(x):
    a = cuda.local.array(4, np.int32)
    cuda.atomic.add(a, 0, 1)
    x[0] = a[0]


def k_atomic_2d_int_index(x):
    cuda.atomic.add(x, 0, 1)


def k_cas_float(x):
    cuda.atomic.cas(x, 0, 1.0, 2.0)


def k_shfl_bool(x):
    x[0] = cuda.shfl_sync(FULL, x[0] > 0, 0)


def k_shfl_int8(x):
    x[0] = cuda.shfl_down_sync(FULL, x[0], 1)


def k_shfl_float16(x):
    x[0] = cuda.shfl_xor_sync(FULL, x[0], 1)


def k_match_complex(x):
    x[0] = cuda.match_any_sync(FULL, 1j)


def k_fp16_float32(x):
    x[0] = cuda.fp16.hadd(x[0], x[0])


def k_const_of_argument(x):
    c = cuda.const.array_like(x)
    x[0] = c[0]


BIG = np.zeros(20000, np.float32)


def k_const_too_big(x):
    c = cuda.const.array_like(BIG)
    x[0] = c[0]


def k_popc_float(x):
    x[0] = cuda.popc(x[0])


def k_grid_sync_args(x):
    cuda.cg.this_grid().sync(1)
    x[0] = 1


def k_vote_array(x):
    x[0] = cuda.all_sync(FULL, x)


def k_vote_float_mask(m, x):
    x[0] = cuda.all_sync(m[0], x[0])


def k_vote_bool_mask(m, x):
    x[0] = cuda.any_sync(m[0], x[0])


def k_vote_float_predicate(x):
    x[0] = cuda.ballot_sync(FULL, x[0])


def k_shfl_float_lane(x):
    x[0] = cuda.shfl_sync(FULL, x[0], x[1])


CASES = [
    (k_shape_not_constant, "void(float32[:])", "needs a shape known at compile time",
     "cuda.shared.array(x.size", "module-level constant"),
    (k_local_shape_not_constant, "void(float32[:])", "needs a shape known at compile time",
     "cuda.local.array(n,", "module-level constant"),
    (k_local_size_zero, "void(float32[:])", "local arrays need a positive size",
     "cuda.local.array(0,", None),
    (k_dynamic_2d, "void(float32[:])", "dynamic shared arrays are 1-D",
     "cuda.shared.array((0, 4)", "dynamic shared memory"),
    (k_bad_dtype, "void(float32[:])", "dtype must be a scalar type", '"float33"', "np.float32"),
    (k_atomic_int8, "void(int8[:])", "does not support arrays of int8; supported: int32, int64, "
     "uint32, uint64, float16, float32 and float64", "cuda.atomic.add(x, 0, 1)", "supported types"),
    (k_atomic_inc_signed, "void(int32[:])", "cuda.atomic.inc() does not support arrays of int32; "
     "supported: uint32 and uint64", "cuda.atomic.inc", None),
    (k_atomic_and_float, "void(float32[:])", "cuda.atomic.and_() does not support arrays of float32",
     "cuda.atomic.and_", None),
    (k_atomic_local, "void(int32[:])", "on a local array", "cuda.atomic.add(a, 0, 1)", "private"),
    (k_atomic_2d_int_index, "void(int32[:, :])", "needs a tuple of 2 indices",
     "cuda.atomic.add(x, 0, 1)", None),
    (k_cas_float, "void(float64[:])", "cuda.atomic.cas() does not support arrays of float64",
     "cuda.atomic.cas", None),
    (k_shfl_bool, "void(int32[:])", "cuda.shfl_sync() cannot shuffle values of type bool; supported: int32, "
     "int64, uint32, uint64, float32 and float64", "cuda.shfl_sync(", "np.int32(x)"),
    (k_shfl_int8, "void(int8[:])", "cannot shuffle values of type int8", "cuda.shfl_down_sync(", None),
    (k_shfl_float16, "void(float16[:])", "cannot shuffle values of type float16", "cuda.shfl_xor_sync(", None),
    (k_match_complex, "void(int32[:])", "cannot match values of type complex128", "cuda.match_any_sync(", None),
    (k_fp16_float32, "void(float32[:])", "cuda.fp16.hadd() takes float16 values, argument 1 is float32",
     "cuda.fp16.hadd(", "np.float16"),
    (k_const_of_argument, "void(float32[:])", "takes a NumPy array that is a module global",
     "cuda.const.array_like(x)", "constant memory"),
    (k_const_too_big, "void(float32[:])", "80000 bytes; constant memory holds at most 65536",
     "cuda.const.array_like(BIG)", None),
    (k_popc_float, "void(float32[:])", "cuda.popc() takes an integer, not float32", "cuda.popc(", None),
    (k_grid_sync_args, "void(int32[:])", "cuda.cg.grid_group.sync() takes 0 arguments, got 1",
     ".sync(1)", None),
    # numba-cuda's phrases ("Mask type must be an integer", "Predicate must
    # be an integer or boolean") lead ours: a float mask or predicate is
    # refused, as numba-cuda refuses it.
    (k_vote_array, "void(int32[:])",
     "cuda.all_sync(): Predicate must be an integer or boolean, not array(int32, 1d, A)",
     "cuda.all_sync(", None),
    (k_vote_float_mask, "void(float32[:], int32[:])",
     "cuda.all_sync(): Mask type must be an integer, not float32", "cuda.all_sync(", None),
    (k_vote_bool_mask, "void(boolean[:], int32[:])",
     "cuda.any_sync(): Mask type must be an integer, not bool", "cuda.any_sync(", None),
    (k_vote_float_predicate, "void(float64[:])",
     "cuda.ballot_sync(): Predicate must be an integer or boolean, not float64",
     "cuda.ballot_sync(", None),
    (k_shfl_float_lane, "void(float32[:])",
     "cuda.shfl_sync(): Source lane type must be an integer, not float32", "cuda.shfl_sync(", None),
]


@pytest.mark.parametrize("func, sig, message, source, hint", CASES, ids=[c[0].__name__ for c in CASES])
def test_intrinsic_misuse(func, sig, message, source, hint):
    with pytest.raises(errors.CompileError) as info:
        cuda.compile_ptx(func, sig)
    err = info.value
    text = str(err)
    assert isinstance(err, errors.TypingError), (type(err), text)
    assert message in text, text
    assert err.file == HERE
    assert err.line == line_of(func, source), text
    assert source.strip() in text  # the source line is shown
    if hint:
        assert hint in err.hint, err.hint
    for leak in (".cpp", "pcj::", "std::"):
        assert leak not in text


def test_errors_are_raised_at_launch_of_lazy_kernels():
    k = cuda.jit(k_shfl_int8)
    with pytest.raises(errors.TypingError, match="cannot shuffle values of type int8"):
        k[1, 32](np.zeros(32, np.int8))
