"""pycuda_jit: compile Python functions into CUDA kernels.

    from pycuda_jit import cuda

    @cuda.jit
    def saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]

    saxpy[blocks, threads](2.0, d_x, d_y, d_out)

Type objects (``from pycuda_jit import float32, void, types``) spell
signatures as numba does: ``@cuda.jit(void(float32[:], float32))``.
"""
from . import errors
from .errors import *  # noqa: F401,F403
from . import types
from .types import (  # noqa: F401  type objects, as `from numba import float32, void`
    typeof, from_dtype, boolean, bool_, b1, int8, int16, int32, int64, uint8, uint16,
    uint32, uint64, i1, i2, i4, i8, u1, u2, u4, u8, intp, uintp, intc, uintc, ssize_t,
    size_t, char, uchar, byte, short, ushort, int_, uint, long_, ulong, longlong,
    ulonglong, float16, float32, float64, f2, f4, f8, float_, double, complex64,
    complex128, c8, c16, none, void)
from . import cuda

__version__ = "0.1.0"


class _LiteralUnroll(cuda._Intrinsic):
    """``for x in literal_unroll(tup):`` in a kernel compiles the loop body
    once per element of the tuple (numba's literal_unroll); called from
    Python it returns its argument."""

    __slots__ = ()

    def __call__(self, container):
        return container


literal_unroll = _LiteralUnroll("literal_unroll")


class _PointerArray(cuda._Intrinsic):
    """``carray(ptr, shape, dtype=None)`` / ``farray(...)`` in a kernel: a C-
    (F-) ordered array view of the memory a ``CPointer`` parameter points
    to (numba.carray / numba.farray); kernels only."""

    __slots__ = ()


carray = _PointerArray("carray")
farray = _PointerArray("farray")


def __getattr__(name):
    # GPU ufuncs (numba's numba.vectorize / numba.guvectorize with
    # target="cuda"), imported on first use.
    if name in ("vectorize", "guvectorize"):
        from . import ufunc
        return getattr(ufunc, name)
    raise AttributeError(f"module 'pycuda_jit' has no attribute '{name}'")

