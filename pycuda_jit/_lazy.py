"""Lazy access to the C++ extension, so that ``import pycuda_jit`` does not
load LLVM or the CUDA driver."""
_core = None


def core():
    global _core
    if _core is None:
        from . import _core as mod
        _core = mod
    return _core
