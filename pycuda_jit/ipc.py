"""CUDA IPC at the level of memory (numba-cuda's ``IpcHandle`` from
``Context.get_ipc_handle`` and ``cuda.open_ipc_array``); the array-level
handle (``DeviceNDArray.get_ipc_handle()``) is devicearray.IpcHandle.

The exporting process names device memory (a MemoryPointer, or an array's
``gpu_data``) with ``cuda.current_context().get_ipc_handle(mem)``: a
picklable :class:`IpcMemoryHandle` whose ``handle.reserved`` is the raw
64-byte CUDA handle and ``size`` the memory's length.  Another process of
the node maps it with ``handle.open(ctx)`` (a MemoryPointer),
``handle.open_array(ctx, shape, dtype)`` or, from the raw bytes alone,
``with cuda.open_ipc_array(raw, shape, dtype) as array:``.  GPU only: on
the CPU executor making a handle raises CudaSupportError.
"""
import contextlib
import os

from ._lazy import core

__all__ = ["IpcMemoryHandle", "open_ipc_array"]


class RawIpcHandle:
    """The 64 bytes of a CUDA IPC memory handle (``reserved``, numba-cuda's
    name for them)."""

    def __init__(self, reserved):
        self.reserved = bytes(reserved)

    def __eq__(self, other):
        return isinstance(other, RawIpcHandle) and other.reserved == self.reserved

    def __hash__(self):
        return hash(self.reserved)

    def __repr__(self):
        return f"<CUDA IPC handle {self.reserved[:8].hex()}...>"


class IpcMemoryHandle:
    """``size`` bytes of device memory of process ``source_info`` (its pid),
    ``offset`` bytes into the allocation that ``handle`` names.  ``base`` is
    the exported memory in the exporting process (None where unpickled).
    One ``open`` at a time; ``close()`` unmaps."""

    def __init__(self, base, handle, size, source_info=None, offset=0):
        self.base = base
        self.handle = handle if isinstance(handle, RawIpcHandle) else RawIpcHandle(handle)
        self.size = int(size)
        self.source_info = os.getpid() if source_info is None else source_info
        self.offset = int(offset)
        self._mapping = None

    def open(self, context=None):
        """Map the memory into this process (on ``context``'s device, or the
        current one): a MemoryPointer."""
        from .devicearray import _IpcMapping
        from .memory_manager import MemoryPointer
        if self.source_info == os.getpid():
            raise ValueError("an IPC handle is opened by another process; this one "
                             "exported the memory and can use it directly")
        if self._mapping is not None:
            raise ValueError("IpcHandle is already opened; close it first")
        if context is None:
            from .devices import current_context
            context = current_context()
        with context.device:
            self._mapping = _IpcMapping(self.handle.reserved)
        return MemoryPointer(context, self._mapping.ptr + self.offset, self.size,
                             owner=self._mapping)

    def open_staged(self, context=None):
        """numba-cuda's staged open: a copy of the memory in new device
        memory of ``context`` (or the current context), for a handle used on
        another device than the exporting one.  The IPC mapping is open only
        during the copy (open() checks the handle); the returned
        MemoryPointer owns the copy."""
        if context is None:
            from .devices import current_context
            context = current_context()
        src = self.open(context)
        try:
            dst = context.memalloc(self.size)
            with context.device:
                core().memcpy_dtod(dst.device_pointer_value, src.device_pointer_value,
                                   self.size)
        finally:
            self.close()
        return dst

    def open_array(self, context, shape, dtype, strides=None):
        """The memory as a DeviceNDArray of ``shape`` and ``dtype`` (C order
        unless ``strides``)."""
        from .devicearray import DeviceNDArray, _prepare
        shape, dtype, strides, nbytes = _prepare(shape, dtype, strides, "C")
        if nbytes > self.size:
            raise ValueError(f"an array of {nbytes} bytes does not fit in the "
                             f"{self.size} bytes of the IPC memory")
        mem = self.open(context)
        return DeviceNDArray(shape, strides, dtype, mem, mem.device_pointer_value)

    def close(self):
        if self._mapping is not None:
            self._mapping.close()
            self._mapping = None

    def __reduce__(self):
        return (IpcMemoryHandle, (None, self.handle.reserved, self.size, self.source_info,
                                  self.offset))

    def __repr__(self):
        return f"<IpcMemoryHandle {self.size} bytes from pid {self.source_info}>"


def memory_handle(memory):
    """An IpcMemoryHandle for a MemoryPointer (or anything with
    ``device_pointer_value`` and ``size``)."""
    ptr = memory.device_pointer_value
    raw, base = core().ipc_handle(ptr)  # the allocation that holds ptr
    return IpcMemoryHandle(memory, raw, memory.size, os.getpid(), ptr - base)


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """``with cuda.open_ipc_array(handle, shape, dtype) as array:``: another
    process's device memory as a DeviceNDArray for the block (``handle``:
    the raw handle bytes, ``handle.reserved`` of an exported handle, or
    the handle itself)."""
    if isinstance(handle, IpcMemoryHandle):
        raw, offset = handle.handle.reserved, handle.offset + offset
    else:
        raw = getattr(handle, "reserved", handle)
    from .devicearray import _prepare
    _shape, _dtype, _strides, nbytes = _prepare(shape, dtype, strides, "C")
    ipc = IpcMemoryHandle(None, raw, nbytes, source_info=-1, offset=offset)
    array = ipc.open_array(None, shape, dtype, strides)
    try:
        yield array
    finally:
        ipc.close()
