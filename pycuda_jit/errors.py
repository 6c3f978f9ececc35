"""Exceptions raised by pycuda_jit.

Compile errors name the user's file and line and show the source with a
caret under the offending expression; they are raised from C++
(pycuda_jit/_core_src/Errors.cpp) with the positional arguments
``(message, file, line, col, end_col, hint)``.
"""
import linecache

__all__ = [
    "CompileError", "UnsupportedError", "TypingError", "NameResolutionError",
    "SignatureError", "BytecodeError", "BackendError", "InternalCompilerError",
    "CudaDriverError", "CudaOutOfMemoryError", "CudaStickyError",
    "LaunchConfigError", "DeviceMismatchError", "KernelError", "KernelIndexError",
    "KernelZeroDivisionError", "KernelValueError", "KernelUnboundLocalError",
    "KernelDeadlockError", "KernelTimeoutError", "KernelRecursionError",
    "ConstantIndexError", "ConstantValueError",
    "CudaSupportError",
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


class InternalCompilerError(CompileError):
    """A bug in pycuda_jit."""


class CudaSupportError(RuntimeError):
    """No usable CUDA driver or device."""


class CudaDriverError(RuntimeError):
    """A CUDA driver API call failed: ``code``, ``name`` (``CUDA_ERROR_...``), ``call``."""

    def __init__(self, message, code=0, name="", call=""):
        self.code = code
        self.name = name
        self.call = call
        super().__init__(message)


class CudaOutOfMemoryError(CudaDriverError, MemoryError):
    """Device memory is exhausted."""


class CudaStickyError(CudaDriverError):
    """The context is unusable (e.g. an illegal address).  The CUDA driver
    keeps such an error for the rest of the process (cuda.close() releases
    the dead context but cannot clear it): restart the process."""


class LaunchConfigError(ValueError):
    """The launch configuration exceeds the device's limits."""


class DeviceMismatchError(ValueError):
    """A launch got an array that lives on another device than the current
    one (``with cuda.gpus[i]:`` / ``select_device``); the message names both
    devices."""


class KernelError(RuntimeError):
    """A kernel failed on the CPU executor.  ``file`` and ``line`` give the
    kernel source line where it happened, when known; the message then shows
    that line."""

    def __init__(self, message, file="", line=-1):
        self.message = message
        self.file = file
        self.line = line
        text = message
        src = linecache.getline(file, line).strip() if file and line and line > 0 else ""
        if src:
            text += f'\n  File "{file}", line {line}\n    {src}'
        super().__init__(text)

    def __reduce__(self):
        return (type(self), (self.message, self.file, self.line))


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


class KernelTimeoutError(KernelError, TimeoutError):
    """A CPU-executor launch ran past its time limit (``cpu_timeout=`` or
    ``PYCUDA_JIT_CPU_TIMEOUT``) and was stopped; the process stays usable."""
