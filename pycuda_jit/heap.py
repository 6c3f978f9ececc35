"""The device heap: where arrays made in kernels live (``np.empty``,
``np.zeros``, ``np.arange``, ``a.copy()``, ... inside ``@cuda.jit``
functions; docs/language.md, "Arrays made in kernels").

On a GPU it is the CUDA context's malloc heap (``cuCtxSetLimit`` with
``CU_LIMIT_MALLOC_HEAP_SIZE``), 8 MiB unless changed; CUDA accepts a new
size only before the context's first launch of a kernel that allocates.
The CPU executor keeps the same limit (one for the process).  A kernel
whose allocation does not fit raises ``MemoryError``.
"""
from ._lazy import core

__all__ = ["set_malloc_heap_size", "get_malloc_heap_size"]


def set_malloc_heap_size(nbytes):
    """Set the size of the current device's heap for arrays made in kernels
    (bytes).  On a GPU call it before the first kernel that allocates: the
    driver refuses a change afterwards (a CudaDriverError)."""
    from . import cuda
    if isinstance(nbytes, bool) or not isinstance(nbytes, int):
        raise TypeError(f"set_malloc_heap_size() takes an int, not {type(nbytes).__name__}")
    if nbytes < 0:
        raise ValueError("the heap size must be >= 0")
    cuda.backend()
    core().set_malloc_heap_size(nbytes)


def get_malloc_heap_size():
    """The current device's heap size for arrays made in kernels (bytes)."""
    from . import cuda
    cuda.backend()
    return core().malloc_heap_size()
