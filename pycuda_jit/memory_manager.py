"""External Memory Management (EMM): numba-cuda's plug-in interface through
which a library such as RMM supplies device memory.

``cuda.set_memory_manager(cls)`` installs a subclass of
:class:`BaseCUDAMemoryManager`; each device's context then gets one
instance (``Context.memory_manager``), made on first use and
``initialize()``-d.  With a plug-in installed, the device arrays pycuda_jit
makes for the user (``device_array``, ``to_device``, ``device_array_like``,
``DeviceNDArray(shape, strides, dtype)``, ``Context.memalloc``) take their
memory from its ``memalloc`` (a :class:`MemoryPointer`, kept alive by the
array), ``Context.get_memory_info`` asks it, and ``cuda.defer_cleanup()``
enters its ``defer_cleanup()`` as well.  Memory the runtime itself needs
during a launch (the device copies of host-array arguments, library scratch
buffers) still comes from pycuda_jit's own allocator.

Without a plug-in the default manager is pycuda_jit's allocator: freed
memory waits in a queue (``memory_manager.deallocations``) and is released
in batches (runtime/Memory.h); on the CPU executor it is freed at once.
"""
import abc
import contextlib
import ctypes

from ._lazy import core

__all__ = [
    "BaseCUDAMemoryManager", "HostOnlyCUDAMemoryManager", "GetIpcHandleMixin",
    "MemoryPointer", "MemoryInfo", "set_memory_manager",
]

from .devices import MemoryInfo  # noqa: E402  (free, total) in bytes


class MemoryPointer:
    """Device memory (numba-cuda's MemoryPointer): ``pointer`` bytes long
    ``size``; ``owner`` is kept alive with it and ``finalizer`` (if given)
    is called once when the pointer is freed (``free()`` or garbage
    collection)."""

    __cuda_memory__ = True

    def __init__(self, context, pointer, size, owner=None, finalizer=None):
        self.context = context
        if isinstance(pointer, ctypes.c_void_p):
            pointer = pointer.value or 0
        self._ptr = int(pointer)
        self.size = int(size)
        self._owner = owner
        self._finalizer = finalizer
        self.handle = ctypes.c_void_p(self._ptr or None)

    @property
    def device_pointer_value(self):
        return self._ptr

    @property
    def device_pointer(self):
        """The device address, an int (numba-cuda gives a ``CUdeviceptr``,
        which ``int()`` also converts)."""
        return self._ptr

    @property
    def device_ctypes_pointer(self):
        return ctypes.c_void_p(self._ptr or None)

    @property
    def owner(self):
        return self if self._owner is None else self._owner

    def free(self):
        """Release the memory now (calls the finalizer once)."""
        finalizer, self._finalizer = self._finalizer, None
        self._owner = None
        if finalizer is not None:
            finalizer()

    def __del__(self):
        try:
            self.free()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass

    # Two pointers to the same bytes are equal (a view's gpu_data equals its
    # base's, as numba-cuda's tests compare them).
    def __eq__(self, other):
        if not isinstance(other, MemoryPointer):
            return NotImplemented
        return (self._ptr, self.size) == (other._ptr, other.size)

    def __hash__(self):
        return hash((self._ptr, self.size))

    def __repr__(self):
        return f"<MemoryPointer 0x{self._ptr:x}, {self.size} bytes>"


class BaseCUDAMemoryManager(abc.ABC):
    """The interface a memory-manager plug-in implements (version 1):
    ``memalloc``, ``memhostalloc``, ``mempin``, ``initialize``,
    ``get_ipc_handle``, ``get_memory_info``, ``reset``, ``defer_cleanup``
    and the ``interface_version`` property."""

    def __init__(self, *args, **kwargs):
        if "context" not in kwargs:
            raise RuntimeError("Memory manager requires a context")
        self.context = kwargs.pop("context")

    @abc.abstractmethod
    def memalloc(self, size):
        """``size`` bytes of device memory: a MemoryPointer."""

    @abc.abstractmethod
    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        """``size`` bytes of page-locked host memory."""

    @abc.abstractmethod
    def mempin(self, owner, pointer, size, mapped=False):
        """Page-lock ``size`` bytes of host memory at ``pointer``."""

    @abc.abstractmethod
    def initialize(self):
        """Called once, before the first allocation."""

    @abc.abstractmethod
    def get_ipc_handle(self, memory):
        """An IPC handle for a MemoryPointer from ``memalloc``."""

    @abc.abstractmethod
    def get_memory_info(self):
        """MemoryInfo(free, total) in bytes."""

    @abc.abstractmethod
    def reset(self):
        """Free everything this manager allocated (the context resets)."""

    @abc.abstractmethod
    def defer_cleanup(self):
        """A context manager during which freed memory is not released."""

    @property
    @abc.abstractmethod
    def interface_version(self):
        """The EMM interface version the plug-in implements (1)."""


class HostOnlyCUDAMemoryManager(BaseCUDAMemoryManager):
    """A base for plug-ins that manage device memory only: host memory
    (``memhostalloc``, ``mempin``) comes from pycuda_jit, and ``reset`` /
    ``defer_cleanup`` handle its deallocation queue."""

    def memhostalloc(self, size, mapped=False, portable=False, wc=False):
        import numpy as np
        kind = "mapped" if mapped else "pinned"
        flags = {"portable": bool(portable), "wc": bool(wc)} if mapped else {}
        return np.asarray(core().HostAllocation(int(size), kind, **flags))

    def mempin(self, owner, pointer, size, mapped=False):
        raise NotImplementedError("mempin: page-lock host arrays with cuda.pinned(array)")

    def reset(self):
        self.deallocations.clear()

    @contextlib.contextmanager
    def defer_cleanup(self):
        core().defer_cleanup(True)
        try:
            yield
        finally:
            core().defer_cleanup(False)

    @property
    def deallocations(self):
        from .devices import Deallocations
        return Deallocations()


class GetIpcHandleMixin:
    """``get_ipc_handle`` for plug-ins whose memory is ordinary cuMemAlloc
    memory (the CUDA IPC handle of the allocation that holds it)."""

    def get_ipc_handle(self, memory):
        from .ipc import memory_handle
        return memory_handle(memory)


class _DefaultMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """pycuda_jit's own allocator (runtime/Memory.h)."""

    def memalloc(self, size):
        alloc = core().Allocation(int(size))
        return MemoryPointer(self.context, alloc.ptr, alloc.nbytes, owner=alloc)

    def initialize(self):
        pass

    def get_memory_info(self):
        with self.context.device:
            return MemoryInfo(*core().mem_info())

    @property
    def interface_version(self):
        return 1


_manager_class = _DefaultMemoryManager
_managers = {}  # device id -> manager instance


def set_memory_manager(mm_plugin):
    """Use ``mm_plugin`` (a BaseCUDAMemoryManager subclass implementing
    interface version 1) for device memory from now on; contexts' managers
    made before are dropped (call it before allocating, as numba-cuda
    asks)."""
    global _manager_class
    if not (isinstance(mm_plugin, type) and issubclass(mm_plugin, BaseCUDAMemoryManager)):
        raise TypeError("set_memory_manager expects a subclass of "
                        f"BaseCUDAMemoryManager, not {mm_plugin!r}")
    from .devices import current_context
    probe = mm_plugin(context=current_context())
    if probe.interface_version != 1:
        raise RuntimeError(f"EMM plugin {mm_plugin.__name__} has interface version "
                           f"{probe.interface_version}; pycuda_jit supports version 1")
    _manager_class = mm_plugin
    _managers.clear()


def manager_for(context):
    """The memory manager of ``context``'s device (made on first use)."""
    mgr = _managers.get(context.device.id)
    if mgr is None:
        mgr = _manager_class(context=context)
        mgr.initialize()
        mgr = _managers.setdefault(context.device.id, mgr)
    return mgr


def external_manager():
    """The current device's plug-in manager, or None with the default one."""
    if _manager_class is _DefaultMemoryManager:
        return None
    from .devices import current_context
    return manager_for(current_context())


def device_memory(nbytes):
    """(owner, pointer) of ``nbytes`` of new device memory for an array:
    from the plug-in when one is installed."""
    mgr = external_manager()
    if mgr is None:
        alloc = core().Allocation(int(nbytes))
        return alloc, alloc.ptr
    mem = mgr.memalloc(int(nbytes))
    return mem, mem.device_pointer_value
