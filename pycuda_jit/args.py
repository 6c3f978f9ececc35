"""Launch-argument hints and kernel extensions (numba-cuda's ``numba.cuda.args``
and ``Kernel.extensions``).

``cuda.In(a)``, ``cuda.Out(a)`` and ``cuda.InOut(a)`` say which way a host
array passed to a kernel travels: ``In`` is copied to the device before the
launch and never back (the kernel's writes are dropped), ``Out`` is not copied
in (the kernel sees uninitialized memory) and is copied back after, ``InOut``
both (what a plain host array gets).  On the CPU executor too: a hinted array
goes through a device-array copy, so ``In`` keeps the host array unchanged.

``kernel.extensions`` is a list of objects with a method
``prepare_args(ty, val, stream=, retr=)``: at each launch every argument goes
through each extension in order; it returns the (type, value) to launch with
and may append callables to ``retr``, called after the launch (the
copy-backs).  ``ty`` is the argument's type as ``typeof`` gives it.

Where this runs: ordinary launches (no hint, no extension) stay in C++.  A
launch whose argument is a hint is taken over by :func:`launch_with_hints`
(called from the C++ launch path when it meets a hint); a kernel whose
``extensions`` attribute was read becomes an :class:`ExtendedKernel`, whose
``kernel[config]`` launches through :func:`launch_with_hints` while the list
is not empty.
"""
from . import types as _types

__all__ = ["ArgHint", "In", "Out", "InOut", "wrap_arg"]


class ArgHint:
    """A host value with a transfer direction for one launch."""

    _pcj_arg_hint_ = True  # what the C++ launch path looks for

    def __init__(self, value):
        self.value = value

    def to_device(self, retr, stream=0):
        """The device array to launch with; copy-backs appended to ``retr``."""
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({self.value!r})"


def _memory():
    from . import memory
    return memory


class In(ArgHint):
    """Copied to the device before the launch, not back."""

    def to_device(self, retr, stream=0):
        return _memory().to_device(self.value, stream=stream)


class Out(ArgHint):
    """Not copied in; copied back to the host array after the launch."""

    def to_device(self, retr, stream=0):
        devary = _memory().device_array_like(self.value, stream=stream)
        retr.append(lambda: devary.copy_to_host(self.value, stream=stream))
        return devary


class InOut(ArgHint):
    """Copied in before the launch and back after."""

    def to_device(self, retr, stream=0):
        devary = _memory().to_device(self.value, stream=stream)
        retr.append(lambda: devary.copy_to_host(self.value, stream=stream))
        return devary


def wrap_arg(value, default=InOut):
    """``value`` as it is if it is a hint, else ``default(value)``."""
    return value if isinstance(value, ArgHint) else default(value)


def _argument_type(value):
    try:
        return _types.typeof(value)
    except (TypeError, ValueError):
        return None  # not a kernel argument until an extension converts it


def launch_with_hints(launcher, stream, args, extensions=()):
    """Launch ``launcher`` (a C++ launcher: kernel[config]) with ``args``
    after the extensions' prepare_args and the hints' copies; then run the
    copy-backs in order."""
    stream = 0 if stream is None else stream
    retr = []
    ready = []
    for value in args:
        ty = _argument_type(value.value if isinstance(value, ArgHint) else value)
        for ext in extensions:
            ty, value = ext.prepare_args(ty, value, stream=stream, retr=retr)
        if isinstance(value, ArgHint):
            value = value.to_device(retr, stream=stream)
        ready.append(value)
    launcher(*ready)
    for writeback in retr:
        writeback()


def _config_stream(config):
    return config[2] if isinstance(config, tuple) and len(config) > 2 else 0


class _ExtendedLaunch:
    """kernel[config] of a kernel with extensions."""

    __slots__ = ("launcher", "stream", "extensions")

    def __init__(self, launcher, stream, extensions):
        self.launcher, self.stream, self.extensions = launcher, stream, extensions

    def __call__(self, *args):
        return launch_with_hints(self.launcher, self.stream, args, tuple(self.extensions))


_extended_classes = {}


def extensions_of(kernel):
    """``kernel.extensions``: the kernel's list, made on first use; the
    kernel then launches through Python (ExtendedKernel)."""
    exts = kernel.__dict__.get("_pcj_extensions")
    if exts is None:
        exts = kernel.__dict__["_pcj_extensions"] = []
        cls = type(kernel)
        if not getattr(cls, "_pcj_extended_", False):
            if cls not in _extended_classes:
                _extended_classes[cls] = type(cls.__name__, (cls,), {
                    "__getitem__": _extended_getitem, "_pcj_extended_": True,
                    "__module__": cls.__module__, "__qualname__": cls.__qualname__})
            kernel.__class__ = _extended_classes[cls]
    return exts


def _extended_getitem(self, config):
    launcher = super(type(self), self).__getitem__(config)
    exts = self.__dict__.get("_pcj_extensions")
    if not exts:
        return launcher
    return _ExtendedLaunch(launcher, _config_stream(config), exts)
