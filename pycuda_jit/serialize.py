"""Pickling kernels, device functions and device arrays, so that they can be
shipped to other processes: multiprocessing (spawn or fork), Dask/distributed
workers, Ray tasks, mpi4py's ``comm.bcast`` / ``send``.

* A kernel or device function defined at module level in an importable
  module (not ``__main__``) pickles **by reference**: ``(module, qualname)``;
  the receiver imports the module and gets its own object, whose compiled
  specializations are its own (or come from its disk cache).
* Any other one (defined in ``__main__``, in a function, a closure, a
  lambda) pickles **by value**: the Python function, with its bytecode,
  constants, the globals it uses and its closure cells, serialized by
  ``cloudpickle`` (which must be installed on both sides), plus the
  ``@cuda.jit`` options and explicit signatures.  The receiver builds a new
  kernel with the same options; the function pickles into the same bytes
  every time, so a process that receives the same kernel many times (one
  Dask task after another) keeps one kernel and compiles it once.  Without
  cloudpickle a ``__main__`` kernel still pickles by reference (what
  ``multiprocessing`` needs: its workers import the main module), and
  anything else raises ``pickle.PicklingError`` saying so.
* A device array pickles as a host copy of its contents (numba-cuda's
  behaviour): unpickling makes a new device array on the receiver's current
  device with the same shape, dtype and values; the two arrays are
  independent afterwards.  To share device memory between processes of one
  node without copying, use CUDA IPC (``DeviceNDArray.get_ipc_handle()``).

Compiled code is never pickled: the receiver compiles, or finds the kernel
in its disk cache (``cache=True`` / ``PYCUDA_JIT_CACHE=1``), where N
processes starting together compile it once (docs/scaling.md).
"""
import hashlib
import importlib
import pickle
import sys
import threading

__all__ = ["reduce_kernel", "reduce_device_function", "reduce_device_array"]


def _lookup(module_name, qualname):
    """The object module.qualname names, or None."""
    obj = sys.modules.get(module_name)
    for part in qualname.split("."):
        if obj is None or part == "<locals>":
            return None
        obj = getattr(obj, part, None)
    return obj


def _reference(obj, func):
    """(module, qualname) when that name resolves to ``obj`` here, else None."""
    module = getattr(func, "__module__", None)
    qualname = getattr(func, "__qualname__", None)
    if not module or not qualname or "<locals>" in qualname:
        return None
    return (module, qualname) if _lookup(module, qualname) is obj else None


def _cloudpickle():
    try:
        import cloudpickle
    except ImportError:
        return None
    return cloudpickle


def _frozen(value):
    """A hashable, order-independent form of an option value."""
    if isinstance(value, (set, frozenset)):
        return ("set",) + tuple(sorted(map(repr, value)))
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


# Kernels rebuilt from the same bytes and options are one kernel per process
# (bounded: the oldest is forgotten first).
_rebuilt = {}
_rebuilt_lock = threading.Lock()
_REBUILT_MAX = 256


def reduce_kernel(kernel):
    """The ``__reduce__`` of a @cuda.jit kernel."""
    func = kernel.py_func
    ref = _reference(kernel, func)
    if ref is not None and ref[0] != "__main__":
        return (_kernel_by_reference, ref)
    cp = _cloudpickle()
    options = getattr(kernel, "_pcj_options", None)
    if cp is not None and options is not None:
        payload = cp.dumps(func, protocol=pickle.HIGHEST_PROTOCOL)
        return (_kernel_by_value,
                (payload, dict(options), tuple(kernel._pcj_signature_strings),
                 getattr(kernel, "_pcj_inline_", "never")))
    if ref is not None:
        return (_kernel_by_reference, ref)
    if options is None:
        raise pickle.PicklingError(
            f"kernel '{func.__qualname__}' was not made by @cuda.jit and is not a "
            "module-level name of an importable module, so it cannot be pickled")
    raise pickle.PicklingError(
        f"kernel '{func.__qualname__}' is not a module-level function of an importable "
        "module, so it can only be pickled by value, which needs cloudpickle "
        "(pip install cloudpickle)")


def _kernel_by_reference(module, qualname):
    importlib.import_module(module)
    obj = _lookup(module, qualname)
    if obj is None:
        raise pickle.UnpicklingError(f"no kernel {module}.{qualname} in this process")
    return obj


def _kernel_by_value(payload, options, signatures, inline="never"):
    key = (hashlib.sha256(payload).hexdigest(),
           tuple(sorted((k, _frozen(v)) for k, v in options.items())),
           tuple(signatures), inline)
    with _rebuilt_lock:
        kernel = _rebuilt.get(key)
    if kernel is not None:
        return kernel
    func = pickle.loads(payload)
    from . import cuda
    kernel = cuda._build_kernel(func, options, signatures, inline)
    with _rebuilt_lock:
        kernel = _rebuilt.setdefault(key, kernel)
        while len(_rebuilt) > _REBUILT_MAX:
            del _rebuilt[next(iter(_rebuilt))]
    return kernel


def reduce_device_function(devfunc):
    """The ``__reduce__`` of a ``@cuda.jit(device=True)`` function.  By value
    it passes the Python function to the pickler at hand, so a device
    function that calls itself pickles (cloudpickle records the function
    before the globals that name it)."""
    func = devfunc.py_func
    ref = _reference(devfunc, func)
    if ref is not None and ref[0] != "__main__":
        return (_kernel_by_reference, ref)
    return (_device_function_by_value,
            (func, devfunc._pcj_inline_, tuple(devfunc._pcj_signatures_)))


def _device_function_by_value(func, inline, signatures):
    from . import cuda
    return cuda.DeviceFunction(func, inline, signatures)


def reduce_device_array(array):
    """The ``__reduce__`` of a device array: its contents as a host copy."""
    return (_device_array_from_host, (array.copy_to_host(),))


def _device_array_from_host(host):
    from . import cuda
    return cuda.to_device(host)
