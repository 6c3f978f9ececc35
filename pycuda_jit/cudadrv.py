"""numba-cuda's driver-level memory functions (``numba.cuda.cudadrv.driver``,
reached as ``cuda.driver``): copies and memset between raw memory objects.

``dst`` / ``src`` of the device side: a MemoryPointer (``memalloc``, an
array's ``gpu_data``, an opened IPC handle), anything with
``__cuda_array_interface__``, mapped or managed host memory
(``Context.memhostalloc(..., mapped=True)``, ``cuda.mapped_array``), or an
int address.  The host side: a NumPy array or any buffer.  ``size`` is in
bytes and may not exceed either side's extent where it is known.  The
functions return when the copy is done (after the work queued on ``stream``
before it, if one is given).
"""
from ._lazy import core

__all__ = ["host_to_device", "device_to_host", "device_to_device", "device_memset",
           "device_pointer", "host_pointer"]


def _np():
    import numpy  # on first use: the package imports without NumPy
    return numpy


def _host_allocation(arr):
    """The HostAllocation (of pycuda_jit) an array views, or None."""
    base = arr
    while base is not None:
        if hasattr(base, "device_ptr") and hasattr(base, "ptr"):
            return base
        base = getattr(base, "base", None)
    return None


def device_pointer(obj):
    """The device address of ``obj`` (see the module doc); TypeError for
    host memory the device cannot use in place."""
    np = _np()
    if isinstance(obj, (int, np.integer)) and not isinstance(obj, bool):
        return int(obj)
    value = getattr(obj, "device_pointer_value", None)
    if value is not None:
        return int(value)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return int(cai["data"][0] or 0)
    if hasattr(obj, "__array_interface__") or isinstance(obj, (bytearray, memoryview)):
        arr = np.asarray(obj)
        alloc = _host_allocation(arr)
        if alloc is not None and alloc.device_ptr:
            return int(alloc.device_ptr) + (arr.__array_interface__["data"][0] - int(alloc.ptr))
        raise TypeError("host memory that is not mapped or managed is not device memory: "
                        "copy it with host_to_device, or allocate it with "
                        "memhostalloc(..., mapped=True) / cuda.mapped_array")
    raise TypeError(f"not device memory: {type(obj).__name__} (a MemoryPointer, an array "
                    "with __cuda_array_interface__, mapped host memory or an int address)")


def _device_extent(obj):
    size = getattr(obj, "size", None) if hasattr(obj, "device_pointer_value") else None
    if size is None and hasattr(obj, "nbytes") and not isinstance(obj, int):
        size = obj.nbytes
    return size


def host_pointer(obj, writable=False):
    """The address of a host buffer (a NumPy array or any buffer)."""
    np = _np()
    arr = obj if isinstance(obj, np.ndarray) else np.frombuffer(obj, np.uint8)
    if writable and not arr.flags.writeable:
        raise ValueError("the destination host buffer is read-only")
    return arr.__array_interface__["data"][0], arr.nbytes


def _check_size(size, *extents):
    size = int(size)
    if size < 0:
        raise ValueError(f"size must be >= 0, not {size}")
    for what, extent in extents:
        if extent is not None and size > extent:
            raise ValueError(f"size {size} is larger than the {what} ({extent} bytes)")
    return size


def _after(stream):
    if stream:
        sync = getattr(stream, "synchronize", None)
        if sync is not None:
            sync()


def host_to_device(dst, src, size, stream=0):
    """Copy ``size`` bytes from the host buffer ``src`` to device memory ``dst``."""
    ptr, extent = host_pointer(src)
    size = _check_size(size, ("source", extent), ("destination", _device_extent(dst)))
    _after(stream)
    if size:
        core().memcpy_htod(device_pointer(dst), ptr, size)


def device_to_host(dst, src, size, stream=0):
    """Copy ``size`` bytes from device memory ``src`` to the host buffer ``dst``."""
    ptr, extent = host_pointer(dst, writable=True)
    size = _check_size(size, ("destination", extent), ("source", _device_extent(src)))
    _after(stream)
    if size:
        core().memcpy_dtoh(ptr, device_pointer(src), size)


def device_to_device(dst, src, size, stream=0):
    """Copy ``size`` bytes between two device memories."""
    size = _check_size(size, ("source", _device_extent(src)),
                       ("destination", _device_extent(dst)))
    _after(stream)
    if size:
        core().memcpy_dtod(device_pointer(dst), device_pointer(src), size)


def device_memset(dst, val, size, stream=0):
    """Set ``size`` bytes of device memory ``dst`` to the byte ``val``."""
    size = _check_size(size, ("destination", _device_extent(dst)))
    if not 0 <= int(val) <= 255:
        raise ValueError(f"device_memset sets bytes: val must be 0..255, not {val}")
    _after(stream)
    if size:
        core().memset(device_pointer(dst), int(val), size)
