"""``cuda.is_supported_version()`` and ``cuda.cuda_error()``: whether the
CUDA pieces pycuda_jit found can be used (numba-cuda's names).

* ``is_supported_version()``: True when the nvJitLink that links GPU code
  (the toolkit's version, as numba-cuda asks of the CUDA runtime) is a
  major version pycuda_jit supports (:data:`SUPPORTED_MAJORS`), and the
  driver, when one is loaded, is at least CUDA 12.0.  False when nvJitLink
  is missing or older/newer than supported; kernels can still run on the
  CPU executor then.
* ``cuda_error()``: the error that keeps kernels off the GPU, as a
  :class:`~pycuda_jit.errors.CudaSupportError` -- None when the backend in
  use came up (a GPU, or the CPU executor asked for with
  ``PYCUDA_JIT_BACKEND=cpu``).  With ``PYCUDA_JIT_BACKEND=auto`` on a
  machine without a usable GPU it says why (no driver, no device ...).
"""
from . import errors
from ._lazy import core

SUPPORTED_MAJORS = (12, 13)  # nvJitLink majors (docs/setup.md)
MIN_DRIVER_VERSION = 12000   # cuDriverGetVersion's encoding of 12.0


def _nvjitlink_major(pieces):
    for piece in pieces:
        if piece.get("piece") == "nvJitLink":
            version = piece.get("version") or ""
            head = version.split(".")[0]
            return int(head) if head.isdigit() else None
    return None


def is_supported_version():
    """True when the CUDA toolkit and driver pycuda_jit uses are versions it
    supports (module doc)."""
    c = core()
    if _nvjitlink_major(c.toolkit_report()) not in SUPPORTED_MAJORS:
        return False
    driver = c.driver_report()
    return not driver["loaded"] or driver["version"] >= MIN_DRIVER_VERSION


def cuda_error():
    """The CudaSupportError that keeps kernels off the GPU, or None (module
    doc)."""
    try:
        _name, reason = core().backend()
    except errors.CudaSupportError as e:
        return e
    except RuntimeError as e:
        return errors.CudaSupportError(str(e))
    return errors.CudaSupportError(reason) if reason else None
