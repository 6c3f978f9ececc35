"""Host API: devices and contexts (numba-cuda names).

Device attributes are read in C++ (runtime/Device.cpp, through
pycuda_jit/_core_src/HostApi.cpp).  On the CPU executor there are
PYCUDA_JIT_CPU_DEVICES (default 1) virtual devices, each "pycuda_jit CPU
executor", whose attributes are the launch limits it enforces (those of
current NVIDIA GPUs) and whose multiprocessors are its worker threads.  The
current device is per thread (`with cuda.gpus[i]:`, select_device).
"""
import collections
import threading

from . import _module_callbacks
from ._lazy import core

__all__ = [
    "gpus", "Device", "Context", "MemoryInfo", "select_device", "get_current_device",
    "current_context", "get_context", "require_context", "reset", "is_float16_supported", "is_bfloat16_supported", "is_fp8_supported", "list_devices", "close", "detect", "is_available", "synchronize",
]

MemoryInfo = collections.namedtuple("MemoryInfo", ["free", "total"])


def _core():
    from . import cuda
    cuda.backend()
    return core()


class Device:
    """A CUDA device: ``id``, ``name``, ``compute_capability``, and every
    CU_DEVICE_ATTRIBUTE_* as an attribute (``dev.MAX_THREADS_PER_BLOCK``).
    ``with dev:`` makes it the current device for the block."""

    def __init__(self, ordinal):
        info = _core().device_info(ordinal)
        self.id = ordinal
        self.name = info["name"]
        self.compute_capability = tuple(info["compute_capability"])
        self.total_memory = info["total_memory"]
        # Per thread: the devices current before each `with self:` entered
        # (device selection is per thread, and threads share Device objects).
        self._previous = threading.local()

    def _stack(self):
        stack = getattr(self._previous, "stack", None)
        if stack is None:
            stack = self._previous.stack = []
        return stack

    def __getattr__(self, name):
        if name.startswith("_") or not name.isupper():
            raise AttributeError(name)
        return core().device_attribute(self.id, name)

    @property
    def supports_float16(self):
        """Whether kernels can compute in float16: every GPU pycuda_jit
        supports (compute capability 5.3 and later) and the CPU executor."""
        return self.compute_capability >= (5, 3)

    @property
    def supports_bfloat16(self):
        """Whether kernels can compute in bfloat16 (cuda.bf16): compute
        capability 8.0 and later, as numba-cuda, and the CPU executor (which
        rounds exactly as the GPU)."""
        return self.compute_capability >= (8, 0)

    @property
    def supports_fp8(self):
        """Whether kernels can use the fp8 types (cuda.fp8): compute
        capability 8.9 and later, as numba-cuda, and the CPU executor.  The
        conversions are integer code (the same bits on every target), so
        they also compile for older GPUs, as numba-cuda's do."""
        return self.compute_capability >= (8, 9)

    def get_primary_context(self):
        return Context(self)

    def reset(self):
        """Destroy this device's context (like cuda.close() for one device)."""
        _module_callbacks.unload(self.id)
        core().reset_device(self.id)
        for hook in _close_hooks:
            hook()

    def __enter__(self):
        self._stack().append(core().current_device())
        select_device(self.id)
        return self

    def __exit__(self, *exc):
        core().select_device(self._stack().pop())
        return False

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(("pycuda_jit.Device", self.id))

    def __repr__(self):
        return f"<CUDA device {self.id} '{self.name}'>"


class Context:
    """A device's (primary) context."""

    def __init__(self, device):
        self.device = device

    @property
    def memory_manager(self):
        """The device's memory manager: pycuda_jit's allocator, or the
        plug-in of cuda.set_memory_manager (memory_manager.py)."""
        from .memory_manager import manager_for
        return manager_for(self)

    def get_memory_info(self):
        """MemoryInfo(free, total) bytes of the context's device (as the
        memory manager reports them)."""
        return self.memory_manager.get_memory_info()

    def get_ipc_handle(self, memory):
        """An IpcHandle for device memory (a MemoryPointer, or an array's
        ``gpu_data``) that another process opens (CUDA IPC; GPU only)."""
        return self.memory_manager.get_ipc_handle(memory)

    def synchronize(self):
        with self.device:
            core().synchronize()

    def reset(self):
        self.device.reset()

    # numba-cuda's Context methods (its driver API), each on this context's
    # device.

    def memalloc(self, bytesize):
        """``bytesize`` bytes of device memory: a MemoryPointer."""
        with self.device:
            return self.memory_manager.memalloc(int(bytesize))

    def memallocmanaged(self, bytesize, attach_global=True):
        """Managed (unified) memory: a uint8 numpy array over it (a buffer
        the host reads and writes, and kernels use in place)."""
        import numpy as np
        with self.device:
            return np.asarray(core().HostAllocation(int(bytesize), "managed",
                                                    attach_global=bool(attach_global)))

    def memhostalloc(self, bytesize, mapped=False, portable=False, wc=False):
        """Page-locked host memory (mapped into the device's address space
        with ``mapped=True``): a uint8 numpy array over it."""
        import numpy as np
        with self.device:
            if mapped:
                mem = core().HostAllocation(int(bytesize), "mapped",
                                            portable=bool(portable), wc=bool(wc))
            else:
                mem = core().HostAllocation(int(bytesize), "pinned")
            return np.asarray(mem)  # the array keeps the allocation alive

    def create_stream(self):
        from .streams import stream
        with self.device:
            return stream()

    def create_event(self, timing=True):
        from .streams import event
        with self.device:
            return event(timing)

    @property
    def deallocations(self):
        """The queue of device memory waiting to be freed (Deallocations)."""
        queue = getattr(self.memory_manager, "deallocations", None)
        return Deallocations() if queue is None else queue

    def defer_cleanup(self):
        """A context manager postponing the release of freed memory."""
        return self.memory_manager.defer_cleanup()

    def __repr__(self):
        return f"<CUDA context of device {self.device.id}>"


class Deallocations:
    """Device memory that Python no longer references waits in a queue and
    is freed in batches (runtime/Memory.h: more than 64 allocations or a
    fifth of the device's memory pending, an out-of-memory retry, or
    ``clear()``); ``len()`` is the number of allocations waiting.  On the
    CPU executor memory is freed at once and the queue stays empty."""

    def __len__(self):
        return core().memory_stats()["pending_frees"]

    @property
    def pending_bytes(self):
        return core().memory_stats()["pending_bytes"]

    def clear(self):
        """Free every queued allocation now."""
        core().flush_deallocations()


class _DeviceList:
    """``cuda.gpus``: the devices, indexable (a slice gives a list) and
    iterable; ``.current``."""

    def __init__(self):
        self._devices = {}

    def __len__(self):
        return _core().device_count()

    def __getitem__(self, i):
        n = len(self)
        if isinstance(i, slice):  # a list of devices, as numba-cuda gives
            return [self[k] for k in range(*i.indices(n))]
        if not isinstance(i, int) or not -n <= i < n:
            raise IndexError(f"device {i} does not exist; there are {n}")
        i %= n
        if i not in self._devices:
            self._devices[i] = Device(i)
        return self._devices[i]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    @property
    def current(self):
        return get_current_device()

    def __repr__(self):
        return f"<pycuda_jit devices: {list(self)}>"


gpus = _DeviceList()


def select_device(device_id):
    """Make device ``device_id`` current on this thread; returns the Device."""
    _core().select_device(int(device_id))
    return gpus[int(device_id)]


def get_current_device():
    return gpus[_core().current_device()]


def current_context():
    return Context(get_current_device())


def get_context(devnum=None):
    """numba-cuda's ``cuda.devices.get_context``: the context of device
    ``devnum`` (made current on this thread), or the current one."""
    if devnum is not None:
        select_device(devnum)
    return current_context()


def require_context(fn):
    """numba-cuda's decorator: ``fn`` runs with a context current (ours make
    one on first use, so it returns ``fn`` as it is)."""
    return fn


def reset():
    """numba-cuda's ``cuda.devices.reset()``: the same as ``cuda.close()``."""
    close()


def is_float16_supported():
    """Whether the current device computes in float16 (Device.supports_float16)."""
    return get_current_device().supports_float16


def is_bfloat16_supported():
    """Whether the current device computes in bfloat16 (Device.supports_bfloat16)."""
    return get_current_device().supports_bfloat16


def is_fp8_supported():
    """Whether the current device can use the fp8 types (Device.supports_fp8)."""
    return get_current_device().supports_fp8


def list_devices():
    return list(gpus)


# Callables run by close() and Device.reset() after contexts are gone:
# caches of device buffers (cuda.reduce's scratch arrays) drop what the
# reset invalidated.
_close_hooks = []


def close():
    """Destroy the CUDA contexts pycuda_jit created; the next call starts in a
    fresh context (kernels are loaded again).  Arrays, streams and events made
    before are invalid afterwards and say so when used.  A sticky error (e.g.
    an illegal address) is not cleared by this: the driver keeps it for the
    rest of the process."""
    _module_callbacks.unload()
    _core().close()
    for hook in _close_hooks:
        hook()


def synchronize():
    """Wait for all work on the current device; then release the memory of
    collected arrays."""
    _core().synchronize()


def is_available():
    """True when a CUDA GPU can be used (False when the backend cannot come
    up, e.g. with PYCUDA_JIT_DISABLE_CUDA=1)."""
    try:
        core().backend()
        return core().cuda_device_count() > 0
    except Exception:
        return False


def detect():
    """Print the CUDA devices found; return True if there is at least one."""
    n = core().cuda_device_count()
    print(f"Found {n} CUDA device{'s' if n != 1 else ''}")
    for i in range(n):
        info = core().device_info(i, True)
        cc = info["compute_capability"]
        print(f"id {i} {info['name']:>30} cc {cc[0]}.{cc[1]}")
    if n == 0:
        print("kernels run on the CPU executor")
    return n > 0
