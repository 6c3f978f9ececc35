"""Module-load callbacks of link= code (``LinkableCode(setup_callback=...,
teardown_callback=...)``): of the kernel's ``cuda.jit(link=[...])`` and of
the ``cuda.declare_device(..., link=[...])`` of each foreign function the
kernel calls (directly or through device functions); an item in several
of those lists runs its callbacks once per module.

A kernel is loaded as one module per specialization and device context.
Before a module's first launch the launcher (C++, ModuleCallbacks.cpp) calls
:func:`module_loaded` once; it runs the setup callbacks of the kernel's
link= code with a :class:`LoadedModule` and remembers the module, so that
:func:`unload` runs the teardown callbacks when the context is reset
(``cuda.close()``, ``Device.reset()``, ``Context.reset()``) and at
interpreter exit.  A lock makes concurrent first launches run a setup once.
"""
import atexit
import threading

__all__ = ["LoadedModule"]


class LoadedModule:
    """What setup/teardown callbacks receive.

    ``handle``: on a GPU, the ``CUlibrary`` (an int) that the driver loaded
    the kernel as, as numba-cuda's ``ObjectCode.handle``: pass it to
    ``cuLibraryGetGlobal`` & co. (a ``CUmodule`` for ``cuModuleGetGlobal``
    only where nvJitLink is missing and the driver JIT-compiled the PTX:
    ``kernel.stats`` says "driver-jit-ptx").  On the CPU
    executor there is no driver module: ``handle`` is a number unique to
    this load (per specialization, virtual device and context), nothing to
    pass to a driver.  ``device``: the device id; ``kernel``: the kernel's
    symbol; ``backend``: "cuda" or "cpu".
    """

    __slots__ = ("handle", "device", "kernel", "backend")

    def __init__(self, handle, device, kernel, backend):
        self.handle = handle
        self.device = device
        self.kernel = kernel
        self.backend = backend

    def __repr__(self):
        return (f"<LoadedModule {self.kernel} on {self.backend} device {self.device} "
                f"handle={self.handle:#x}>")


# Reentrant: a setup callback may launch kernels itself.
_lock = threading.RLock()
# load number -> (LoadedModule, teardown callbacks), in load order
_live = {}


def _backend():
    from ._lazy import core
    return core().backend()[0]


def module_loaded(link, device, module_id, handle, kernel, foreign=()):
    """Called by the launcher before the first launch of load ``module_id``
    of a kernel whose link= list is ``link`` (an ffi.LinkList, or None) and
    whose code calls the foreign functions ``foreign`` (ffi.ForeignFunction
    objects)."""
    from .ffi import link_callbacks
    lists = [link.items] if hasattr(link, "items") else []
    callbacks = link_callbacks(lists + [getattr(f, "link", ()) for f in foreign])
    if not callbacks:
        return
    with _lock:
        if module_id in _live:
            return
        mod = LoadedModule(handle, device, kernel, _backend())
        teardowns = [t for _, t in callbacks if t is not None]
        _live[module_id] = (mod, teardowns)
        try:
            for setup, _ in callbacks:
                if setup is not None:
                    setup(mod)
        except BaseException:
            del _live[module_id]
            raise


def unload(device=None):
    """Run the teardown callbacks of the modules on ``device`` (all devices:
    None), newest first, and forget them; before their context goes."""
    with _lock:
        gone = [k for k, (mod, _) in _live.items()
                if device is None or mod.device == device]
        entries = [_live.pop(k) for k in gone]
    for mod, teardowns in reversed(entries):
        for teardown in teardowns:
            teardown(mod)


def live_modules():
    """The modules set up and not yet torn down (for tests and tools)."""
    with _lock:
        return [mod for mod, _ in _live.values()]


atexit.register(unload)
