"""pycuda_jit: compile Python functions into CUDA kernels.

    from pycuda_jit import cuda

    @cuda.jit
    def saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]

    saxpy[blocks, threads](2.0, d_x, d_y, d_out)
"""
from . import errors
from .errors import *  # noqa: F401,F403
from . import cuda

__version__ = "0.1.0"


def __getattr__(name):
    # GPU ufuncs (numba's numba.vectorize / numba.guvectorize with
    # target="cuda"), imported on first use.
    if name in ("vectorize", "guvectorize"):
        from . import ufunc
        return getattr(ufunc, name)
    raise AttributeError(f"module 'pycuda_jit' has no attribute '{name}'")
