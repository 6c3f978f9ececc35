"""Exceptions raised by pycuda_jit.

Compile errors name the user's file and line and show the source with a
caret under the offending expression; they are raised from C++
(pycuda_jit/_core_src/Errors.cpp) with the positional arguments
``(message, file, line, col, end_col, hint)``.
"""
import builtins
import linecache
import pickle
import sys

__all__ = [
    "CompileError", "UnsupportedError", "TypingError", "NameResolutionError",
    "SignatureError", "BytecodeError", "BackendError", "InternalCompilerError",
    "CudaDriverError", "CudaOutOfMemoryError", "CudaStickyError",
    "LaunchConfigError", "DeviceMismatchError", "KernelError", "KernelIndexError",
    "KernelZeroDivisionError", "KernelValueError", "KernelUnboundLocalError",
    "KernelDeadlockError", "KernelTimeoutError", "KernelRecursionError",
    "ConstantIndexError", "ConstantValueError",
    "CudaSupportError", "ToolNotFoundError", "KernelSyncError", "KernelSanitizerError",
    "KernelRaceError", "KernelUninitializedReadError", "KernelUseAfterFreeError",
    "SanitizerAccess", "SanitizerFinding", "kernel_exception_class",
    "UncacheableKernelError", "LinkerError", "NvrtcError",
    "PycudaJitWarning", "PerformanceWarning", "InvalidConfigWarning", "DebugInfoWarning",
]


class CompileError(Exception):
    """A kernel could not be compiled."""

    def __init__(self, message, file="", line=-1, col=-1, end_col=-1, hint=""):
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        self.end_col = end_col
        self.hint = hint
        super().__init__(self._format())

    def source_line(self):
        if not self.file or self.line is None or self.line < 1:
            return ""
        return linecache.getline(self.file, self.line).rstrip("\n")

    def _format(self):
        parts = [self.message]
        if self.file and self.line and self.line > 0:
            parts.append(f'  File "{self.file}", line {self.line}')
            src = self.source_line()
            if src:
                stripped = src.lstrip()
                indent = len(src) - len(stripped)
                parts.append("    " + stripped)
                if self.col is not None and self.col >= indent:
                    end = self.end_col if self.end_col and self.end_col > self.col else self.col + 1
                    end = min(end, len(src))
                    parts.append("    " + " " * (self.col - indent) + "^" * max(1, end - self.col))
        if self.hint:
            parts.append(f"  hint: {self.hint}")
        return "\n".join(parts)

    def __reduce__(self):
        return (type(self), (self.message, self.file, self.line, self.col, self.end_col, self.hint))


class UnsupportedError(CompileError):
    """The kernel uses a Python construct the kernel language does not have."""


class TypingError(CompileError, TypeError):
    """Types do not fit (operands, arguments, assignments)."""


class ConstantIndexError(TypingError, IndexError):
    """A constant index out of range, found at compile time (``t[3]`` of a
    3-tuple)."""


class ConstantValueError(CompileError, ValueError):
    """A constant has a value the operation rejects, found at compile time
    (``range(0, n, 0)``)."""


class NameResolutionError(CompileError, NameError):
    """A name (global, attribute, local) cannot be resolved."""


class SignatureError(CompileError, TypeError):
    """A signature string or the kernel's parameters are invalid."""


class BytecodeError(CompileError):
    """The function's bytecode cannot be decoded."""


class BackendError(CompileError):
    """LLVM, libdevice or nvJitLink failed."""


class UncacheableKernelError(CompileError, pickle.PicklingError):
    """cache=True on a kernel whose code cannot be stored: it captures global
    device arrays by address.  Also a pickle.PicklingError, as numba-cuda
    raises one there."""


class LinkerError(BackendError):
    """Code linked with ``link=`` (or ``cuda.declare_device(..., link=)``)
    did not link with the kernel: nvJitLink's log says why (an undefined
    name, a mismatched signature, bad PTX)."""


class NvrtcError(LinkerError):
    """CUDA C++ linked with ``link=`` (a ``.cu`` file or ``cuda.CUSource``)
    did not compile: NVRTC's log follows the message."""


class InternalCompilerError(CompileError):
    """A bug in pycuda_jit."""


class CudaSupportError(RuntimeError):
    """No usable CUDA driver or device."""

    @property
    def msg(self):
        """The message (numba-cuda's attribute)."""
        return str(self)


class ToolNotFoundError(CudaSupportError, FileNotFoundError):
    """A CUDA toolkit program pycuda_jit runs (nvdisasm or cuobjdump for
    ``inspect_sass``) is not installed; the message says what to install.
    A RuntimeError, as numba-cuda raises, and a FileNotFoundError."""


# cuda-python's driver-error class, which numba-cuda raises: a driver error
# is also an instance of it once the process has imported it (never imported
# here).
_CUDA_CORE_ERRORS = "cuda.core._utils.cuda_utils"
_with_cuda_core = {}


def _cuda_core_class(cls):
    """``cls``, or a subclass of it and cuda.core's CUDAError when that
    module is loaded (one per class, made once)."""
    other = getattr(sys.modules.get(_CUDA_CORE_ERRORS), "CUDAError", None)
    if not isinstance(other, type) or not issubclass(other, Exception) or issubclass(cls, other):
        return cls
    key = (cls, other)
    if key not in _with_cuda_core:
        _with_cuda_core[key] = type(cls.__name__, (cls, other), {
            "__module__": cls.__module__, "__qualname__": cls.__qualname__,
            "__doc__": cls.__doc__, "_pcj_class": cls})
    return _with_cuda_core[key]


class CudaDriverError(RuntimeError):
    """A CUDA driver API call failed: ``code``, ``name`` (``CUDA_ERROR_...``), ``call``.
    When the process has imported cuda-python's ``cuda.core``, it is also an
    instance of its ``CUDAError`` (the class numba-cuda raises)."""

    def __new__(cls, *args, **kwargs):
        return super().__new__(_cuda_core_class(cls), *args, **kwargs)

    def __init__(self, message, code=0, name="", call=""):
        self.code = code
        self.name = name
        self.call = call
        super().__init__(message)

    def __reduce__(self):
        cls = getattr(type(self), "_pcj_class", type(self))
        return (cls, (self.args[0] if self.args else "", self.code, self.name, self.call))


class CudaOutOfMemoryError(CudaDriverError, MemoryError):
    """Device memory is exhausted."""


class CudaStickyError(CudaDriverError):
    """The context is unusable (e.g. an illegal address).  The CUDA driver
    keeps such an error for the rest of the process (cuda.close() releases
    the dead context but cannot clear it): restart the process."""


class PycudaJitWarning(Warning):
    """Base class of pycuda_jit's warnings (numba's NumbaWarning)."""


class PerformanceWarning(PycudaJitWarning):
    """Code that works but runs slower than it could: a grid too small to
    fill the GPU, a host array copied to and from the device at every launch
    (numba's NumbaPerformanceWarning)."""


class InvalidConfigWarning(PycudaJitWarning):
    """Options that do not go together and were adjusted or may misbehave:
    ``debug=True`` with optimization on, ``debug=True`` with
    ``lineinfo=True`` (numba's NumbaInvalidConfigWarning)."""


class DebugInfoWarning(PycudaJitWarning):
    """Debug information could not be made as asked: e.g. the function's
    source is not available (numba's NumbaDebugInfoWarning)."""


class LaunchConfigError(ValueError):
    """The launch configuration exceeds the device's limits."""


class DeviceMismatchError(ValueError):
    """A launch got an array that lives on another device than the current
    one (``with cuda.gpus[i]:`` / ``select_device``); the message names both
    devices."""


class KernelError(RuntimeError):
    """A kernel failed (on the CPU executor, or a GPU kernel's raise, assert
    or checked error, reported by a synchronizing call).  ``file`` and ``line`` give the
    kernel source line where it happened, when known; the message then shows
    that line.  In a sanitized launch (``sanitize=``), ``findings`` lists
    every :class:`SanitizerFinding` of the launch (else it is empty)."""

    def __init__(self, message, file="", line=-1, findings=()):
        self.message = message
        self.file = file
        self.line = line
        self.findings = list(findings)
        text = message
        src = linecache.getline(file, line).strip() if file and line and line > 0 else ""
        if src:
            text += f'\n  File "{file}", line {line}\n    {src}'
        super().__init__(text)

    def __reduce__(self):
        return (type(self), (self.message, self.file, self.line, self.findings))


class KernelIndexError(KernelError, IndexError):
    """An out-of-bounds array or tuple index.  Array bounds are checked by
    default on the CPU executor (``boundscheck=False`` or
    ``PYCUDA_JIT_BOUNDSCHECK=0`` turn the checks off), on the GPU with
    ``debug=True`` or ``boundscheck=True``; tuple indices in checked mode
    (debug=True)."""


class KernelZeroDivisionError(KernelError, ZeroDivisionError):
    """Division or modulo by zero detected in checked mode (debug=True)."""


class KernelValueError(KernelError, ValueError):
    """A value an operation rejects, detected in checked mode (debug=True):
    ``range(a, b, step)`` with a step of 0."""


class KernelUnboundLocalError(KernelError, UnboundLocalError):
    """A local variable read on a path where it was never assigned, detected
    in checked mode (debug=True)."""


class KernelDeadlockError(KernelError):
    """A barrier that part of a block never reaches."""


class KernelRecursionError(KernelError, RecursionError):
    """A recursive device function ran out of stack on the CPU executor
    (each CUDA thread has PYCUDA_JIT_CPU_STACK_KB, 64 KiB by default, in
    kernels with barriers or warp operations; the host thread's stack
    otherwise).  The launch stops; the process stays usable."""


class KernelSyncError(KernelDeadlockError):
    """A barrier or warp operation used against its contract: threads of a
    block at different ``syncthreads`` calls (a barrier in divergent code),
    a ``*_sync`` mask naming a lane that exited or waits in another
    operation, or a mask without the calling lane; a grid sync that a block
    returned without reaching.  A hang or undefined behaviour on the GPU
    (compute-sanitizer's synccheck)."""


class SanitizerAccess:
    """One access of a :class:`SanitizerFinding`: ``op`` ("read", "write",
    "atomic", "index", "sync"), the kernel source position (``file``,
    ``line``, ``col``, ``end_col``; columns -1 when unknown) and the CUDA
    ``thread`` and ``block`` (tuples; ``block`` None when unknown)."""

    __slots__ = ("op", "file", "line", "col", "end_col", "thread", "block")

    def __init__(self, op, file, line, col=-1, end_col=-1, thread=(0, 0, 0), block=None):
        self.op, self.file, self.line = op, file, line
        self.col, self.end_col = col, end_col
        self.thread, self.block = tuple(thread), None if block is None else tuple(block)

    def source(self):
        """The source line of the access ("" when unavailable)."""
        if not self.file or not self.line or self.line < 1:
            return ""
        return linecache.getline(self.file, self.line).rstrip("\n")

    def expression(self):
        """The accessed expression as written (``sm[t + 1]``), when columns
        are known (Python 3.11+), else the whole source line."""
        src = self.source()
        if src and 0 <= self.col < self.end_col <= len(src):
            return src[self.col:self.end_col]
        return src.strip()

    def _key(self):
        return (self.op, self.file, self.line, self.col, self.end_col, self.thread, self.block)

    def __eq__(self, other):
        return isinstance(other, SanitizerAccess) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __reduce__(self):
        return (SanitizerAccess, self._key())

    def __repr__(self):
        return (f"SanitizerAccess({self.op!r}, {self.file!r}, {self.line}, thread={self.thread}, "
                f"block={self.block})")


class SanitizerFinding:
    """A finding of the CPU executor's sanitizer (``sanitize=`` /
    ``PYCUDA_JIT_SANITIZE``): ``kind`` is "race", "uninitialized",
    "use-after-free", "bounds" or "sync"; ``kernel`` the kernel's symbol;
    ``array`` the array's name when known; ``index`` the element's offset
    from the array's first element (-1: unknown); ``message`` one line;
    ``accesses`` the accesses involved (a race: the earlier one first).
    ``lines`` gives their source lines; str() shows them."""

    __slots__ = ("kind", "kernel", "array", "index", "message", "accesses")

    def __init__(self, kind, kernel, array, index, message, accesses):
        self.kind, self.kernel, self.array = kind, kernel, array
        self.index, self.message, self.accesses = index, message, tuple(accesses)

    @property
    def lines(self):
        return tuple(a.line for a in self.accesses)

    def __str__(self):
        parts = [self.message]
        for a in self.accesses:
            if a.file and a.line and a.line > 0:
                parts.append(f'  File "{a.file}", line {a.line} ({a.op}, thread {a.thread}'
                             + (f" block {a.block})" if a.block is not None else ")"))
                src = a.source().strip()
                if src:
                    parts.append(f"    {src}")
        return "\n".join(parts)

    def _key(self):
        return (self.kind, self.kernel, self.array, self.index, self.message, self.accesses)

    def __eq__(self, other):
        return isinstance(other, SanitizerFinding) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __reduce__(self):
        return (SanitizerFinding, self._key())

    def __repr__(self):
        return f"<SanitizerFinding {self.kind} lines {self.lines}: {self.message}>"


class KernelSanitizerError(KernelError):
    """A sanitized launch on the CPU executor (``sanitize=`` or
    ``PYCUDA_JIT_SANITIZE``) found a bug: ``finding`` is the first
    :class:`SanitizerFinding` (use-after-free, race, uninitialized read,
    then by source line), ``findings`` all of the launch's; the message
    shows the source line of every access involved.
    ``cuda.sanitizer_report()`` keeps the findings of every launch."""

    def __init__(self, message, file="", line=-1, findings=()):
        super().__init__(message, file, line, findings)
        self.finding = self.findings[0] if self.findings else None
        if self.finding is not None:
            self.args = (str(self.finding),)

    def __str__(self):
        return str(self.finding) if self.finding is not None else super().__str__()


class KernelRaceError(KernelSanitizerError):
    """Two accesses to one shared- or global-memory element from different
    threads, at least one a write, not ordered by a barrier, a warp
    synchronization, a grid sync or an atomic."""


class KernelUninitializedReadError(KernelSanitizerError):
    """A read of shared memory no thread of the block wrote, of a local
    array element its thread did not write, or of a ``device_array``
    element neither the host nor a kernel wrote."""


class KernelUseAfterFreeError(KernelSanitizerError):
    """An access to a device array's memory after the array was freed."""


class KernelTimeoutError(KernelError, TimeoutError):
    """A CPU-executor launch ran past its time limit (``cpu_timeout=`` or
    ``PYCUDA_JIT_CPU_TIMEOUT``) and was stopped; the process stays usable."""


# The classes of exceptions kernels raise (`raise E(...)`, `assert`): the
# builtin class combined with KernelError, one per builtin, made on first
# use.  IndexError, ZeroDivisionError and ValueError reuse the checked-mode
# classes above.
_KERNEL_EXCEPTIONS = {
    "IndexError": KernelIndexError,
    "ZeroDivisionError": KernelZeroDivisionError,
    "ValueError": KernelValueError,
}


# User-defined exception classes kernels raise, by key ("module.Qualname",
# what register_kernel_exception returned when the kernel was compiled):
# the class combined with KernelError.
_USER_EXCEPTIONS = {}


def register_kernel_exception(cls):
    """Called by the compiler when a kernel raises the user-defined exception
    class ``cls`` (a module global deriving from Exception): returns the key
    the compiled kernel names it by, or None when no class can derive from
    both it and KernelError (its metaclass or layout refuses)."""
    key = f"{cls.__module__}.{cls.__qualname__}"
    known = _USER_EXCEPTIONS.get(key)
    if known is not None and cls in known.__bases__:
        return key
    try:
        combined = type("Kernel" + cls.__name__, (KernelError, cls), {
            "__module__": cls.__module__,
            "__qualname__": "Kernel" + cls.__qualname__,
            "__doc__": f"A kernel raised {cls.__qualname__} (raise in the kernel).",
            "__reduce__": _reduce_user_kernel_exception,
        })
    except TypeError:
        return None
    _USER_EXCEPTIONS[key] = combined
    return key


def _reduce_user_kernel_exception(self):
    # Pickles as the user's class (the combined class is not importable).
    base = next(b for b in type(self).__bases__ if b is not KernelError)
    return (base, (str(self),))


def kernel_exception_class(name):
    """The class of the exception a kernel's ``raise name(...)`` or
    ``assert`` (name ``"AssertionError"``) raises: a subclass of both
    :class:`KernelError` and the exception class (a builtin, or a
    user-defined class by its register_kernel_exception key), so ``except
    AssertionError`` and ``except KernelError`` both catch it."""
    user = _USER_EXCEPTIONS.get(name)
    if user is not None:
        return user
    cls = _KERNEL_EXCEPTIONS.get(name)
    if cls is None:
        base = getattr(builtins, name)
        if not (isinstance(base, type) and issubclass(base, Exception)):
            raise ValueError(f"{name!r} is not a builtin exception class")
        cls = type("Kernel" + name, (KernelError, base), {
            "__module__": __name__,
            "__doc__": f"A kernel raised {name} (raise or assert in the kernel).",
        })
        _KERNEL_EXCEPTIONS[name] = cls
        globals()[cls.__name__] = cls  # so that pickle finds it
    return cls


def __getattr__(name):
    # Kernel<Builtin> classes made by kernel_exception_class, looked up
    # before they exist (unpickling in a fresh process).
    if name.startswith("Kernel") and isinstance(getattr(builtins, name[6:], None), type):
        return kernel_exception_class(name[6:])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
