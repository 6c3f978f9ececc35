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
  ``cloudpickle`` when it is installed, else by this module's own
  function pickler (below), plus the ``@cuda.jit`` options and explicit
  signatures.  The receiver builds a new kernel with the same options; the
  function pickles into the same bytes every time, so a process that
  receives the same kernel many times (one Dask task after another) keeps
  one kernel and compiles it once.
* The own function pickler (what plain ``pickle`` gets, as numba-cuda's
  kernels pickle without installing anything): the code object as
  ``marshal`` bytes (so both sides run the same Python minor version), the
  globals the code names, the closure cells, defaults and ``__dict__``;
  modules among them travel as their names, functions that are not
  reachable by name travel by value the same way.  A function is first
  rebuilt empty and then filled, so functions that name each other
  (recursion) pickle.
* A device array pickles as a host copy of its contents (numba-cuda's
  behaviour): unpickling makes a new device array on the receiver's current
  device with the same shape, dtype and values; the two arrays are
  independent afterwards.  To share device memory between processes of one
  node without copying, use CUDA IPC (``DeviceNDArray.get_ipc_handle()``).

Compiled code is never pickled: the receiver compiles, or finds the kernel
in its disk cache (``cache=True`` / ``PYCUDA_JIT_CACHE=1``), where N
processes starting together compile it once (docs/scaling.md).
"""
import builtins
import hashlib
import importlib
import marshal
import pickle
import sys
import threading
import types
import weakref

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
    options = getattr(kernel, "_pcj_options", None)
    if options is None:
        if ref is not None:
            return (_kernel_by_reference, ref)
        raise pickle.PicklingError(
            f"kernel '{func.__qualname__}' was not made by @cuda.jit and is not a "
            "module-level name of an importable module, so it cannot be pickled")
    cp = _cloudpickle()
    if cp is not None:
        payload = cp.dumps(func, protocol=pickle.HIGHEST_PROTOCOL)
    else:
        payload = pickle.dumps(by_value(func), protocol=pickle.HIGHEST_PROTOCOL)
    return (_kernel_by_value,
            (payload, dict(options), tuple(kernel._pcj_signature_strings),
             getattr(kernel, "_pcj_inline_", "never")))


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
            (by_value(func), devfunc._pcj_inline_, tuple(devfunc._pcj_signatures_)))


def _device_function_by_value(func, inline, signatures):
    from . import cuda
    return cuda.DeviceFunction(func, inline, signatures)


def reduce_device_array(array):
    """The ``__reduce__`` of a device array: its contents as a host copy."""
    return (_device_array_from_host, (array.copy_to_host(),))


def _device_array_from_host(host):
    from . import cuda
    return cuda.to_device(host)


# ---- the own function pickler ----------------------------------------------------

class _FunctionValue:
    """Pickles the function it wraps by value (unpickles as the function).
    One wrapper per function (by_value), so that the pickler's memo sees a
    function named again inside its own globals as the object already
    being pickled."""

    def __init__(self, func):
        self.func = func

    def __reduce__(self):
        func = self.func
        code = func.__code__
        skeleton = (marshal.dumps(code), func.__name__, func.__qualname__,
                    func.__module__, len(code.co_freevars))
        names = _global_names(code)
        used = {n: _portable(v) for n, v in func.__globals__.items() if n in names}
        cells = func.__closure__ or ()
        empty = tuple(i for i, c in enumerate(cells) if _cell_is_empty(c))
        closure = tuple(None if i in empty else _portable(c.cell_contents)
                        for i, c in enumerate(cells))
        state = (used, func.__defaults__, func.__kwdefaults__, closure, empty,
                 {k: _portable(v) for k, v in func.__dict__.items()}, func.__doc__)
        return (_function_skeleton, skeleton, state, None, None, _function_fill)


class _ModuleName:
    """A module, pickled as its name."""

    def __init__(self, module):
        self.name = module.__name__

    def __reduce__(self):
        return (importlib.import_module, (self.name,))


_wrappers = weakref.WeakKeyDictionary()
_wrappers_lock = threading.Lock()


def by_value(func):
    """``func`` wrapped so that any pickler pickles it by value."""
    with _wrappers_lock:
        wrapper = _wrappers.get(func)
        if wrapper is None:
            wrapper = _wrappers[func] = _FunctionValue(func)
        return wrapper


def _portable(value):
    """What stands for ``value`` in a by-value function's state: modules by
    name, functions that cannot be found by name by value, the rest as is."""
    if isinstance(value, types.ModuleType):
        return _ModuleName(value)
    if isinstance(value, types.FunctionType):
        ref = _reference(value, value)
        if ref is None or ref[0] == "__main__":
            return by_value(value)
    return value


def _global_names(code):
    """The global names ``code`` and the code objects nested in it use."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _cell_is_empty(cell):
    try:
        cell.cell_contents
    except ValueError:
        return True
    return False


def _function_skeleton(code_bytes, name, qualname, module, nfree):
    """An empty function (globals and closure filled by _function_fill)."""
    code = marshal.loads(code_bytes)
    globs = {"__builtins__": builtins, "__name__": module}
    closure = tuple(types.CellType() for _ in range(nfree)) or None
    func = types.FunctionType(code, globs, name, None, closure)
    func.__qualname__ = qualname
    func.__module__ = module
    return func


def _function_fill(func, state):
    used, defaults, kwdefaults, closure, empty, attrs, doc = state
    func.__globals__.update(used)
    func.__defaults__ = defaults
    func.__kwdefaults__ = kwdefaults
    for i, (cell, value) in enumerate(zip(func.__closure__ or (), closure)):
        if i not in empty:
            cell.cell_contents = value
    func.__dict__.update(attrs)
    func.__doc__ = doc
