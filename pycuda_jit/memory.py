"""Host API: device and host memory (numba-cuda names).

Thin wrappers: the work is done in C++ (pycuda_jit/_core_src/DeviceArray.cpp,
PyExecutor.cpp, DLPack.cpp, runtime/Memory.cpp).  Importing this module does not
load the extension; each function does, on first use.
"""
import contextlib

from ._lazy import core

__all__ = [
    "to_device", "device_array", "device_array_like", "pinned_array",
    "pinned_array_like", "mapped_array", "mapped_array_like", "managed_array",
    "pinned", "mapped", "as_cuda_array", "is_cuda_array", "from_cuda_array_interface",
    "from_dlpack", "defer_cleanup",
]


def _da():
    from . import cuda, devicearray
    cuda.backend()  # resolves the backend once (and warns about a fallback)
    return devicearray


def to_device(obj, stream=0, copy=True, to=None):
    """Copy a numpy array (or anything numpy.asarray takes) to a new device
    array (or into ``to``); asynchronous on ``stream`` where the memory allows."""
    return _da().to_device(obj, stream=stream, copy=copy, to=to)


def device_array(shape, dtype=None, strides=None, order="C", stream=0):
    """An uninitialized device array (like numpy.empty)."""
    return _da().device_array(shape, dtype, strides=strides, order=order, stream=stream)


def device_array_like(ary, stream=0):
    return _da().device_array_like(ary, stream=stream)


def pinned_array(shape, dtype=None, strides=None, order="C"):
    """A numpy array in page-locked host memory (fast, asynchronous copies)."""
    return _da().pinned_array(shape, dtype, strides, order)


def pinned_array_like(ary):
    return _da().pinned_array_like(ary)


def mapped_array(shape, dtype=None, strides=None, order="C", stream=0, portable=False,
                 wc=False):
    """A numpy array in pinned host memory mapped into the device's address
    space: kernels use it in place (no copies)."""
    return _da().mapped_array(shape, dtype, strides, order, stream, portable, wc)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    return _da().mapped_array_like(ary, stream, portable, wc)


def managed_array(shape, dtype=None, strides=None, order="C", stream=0, attach_global=True):
    """A numpy array in managed (unified) memory: kernels use it in place;
    synchronize before reading what a kernel wrote."""
    return _da().managed_array(shape, dtype, strides, order, stream, attach_global)


@contextlib.contextmanager
def pinned(*arylist):
    """Page-lock the memory of the given numpy arrays for the duration of the
    ``with`` block."""
    _da()
    handles = []
    try:
        for ary in arylist:
            handles.append(core().host_register(ary))
        yield
    finally:
        for h in reversed(handles):
            core().host_unregister(h)


@contextlib.contextmanager
def mapped(*arylist, stream=0):
    """Page-lock the given numpy arrays and map them into the device's
    address space for the ``with`` block, which gets device arrays over the
    same memory (one array, or a list for several): kernels read and write
    the host arrays in place, zero-copy.  Unregistered when the block ends
    (also inside ``defer_cleanup``).  On the GPU this needs unified
    addressing with host pointers usable by the device
    (CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, every 64-bit Linux system)."""
    import numpy as np
    da = _da()
    if da._core.backend()[0] == "cuda":
        from .devices import get_current_device
        if not get_current_device().CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM:
            raise NotImplementedError("cuda.mapped needs a device that uses host pointers "
                                      "of registered memory; use cuda.mapped_array")
    handles, arrays = [], []
    try:
        for ary in arylist:
            if not isinstance(ary, np.ndarray):
                raise TypeError(f"cuda.mapped takes numpy arrays, not {type(ary).__name__}")
            handles.append(core().host_register(ary))
            arrays.append(da.DeviceNDArray(ary.shape, ary.strides, ary.dtype, ary,
                                           ary.__array_interface__["data"][0], stream))
        yield arrays[0] if len(arrays) == 1 else arrays
    finally:
        for h in reversed(handles):
            core().host_unregister(h)


def as_cuda_array(obj, sync=True):
    """A device array viewing ``obj``'s memory (any __cuda_array_interface__
    object), zero-copy; with ``sync``, waits for the stream it names."""
    return _da().as_cuda_array(obj, sync=sync)


def is_cuda_array(obj):
    """True if ``obj`` has a __cuda_array_interface__."""
    return hasattr(obj, "__cuda_array_interface__")


def from_cuda_array_interface(desc, owner=None, sync=True):
    return _da().from_cuda_array_interface(desc, owner=owner, sync=sync)


def from_dlpack(obj):
    """A device array viewing a DLPack producer's memory, zero-copy (CUDA
    tensors; host tensors on the CPU executor)."""
    return _da().from_dlpack(obj)


@contextlib.contextmanager
def defer_cleanup():
    """Postpone the release of collected device memory (not on out-of-memory)."""
    from .memory_manager import external_manager
    mgr = external_manager()
    core().defer_cleanup(True)
    try:
        if mgr is None:
            yield
        else:
            with mgr.defer_cleanup():
                yield
    finally:
        core().defer_cleanup(False)


from .memory_manager import MemoryPointer  # noqa: E402,F401  (Context.memalloc's)
