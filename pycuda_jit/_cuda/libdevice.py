"""``pycuda_jit.cuda.libdevice``: every function of CUDA's libdevice by its
name without the ``__nv_`` prefix, as numba-cuda's ``numba.cuda.libdevice``
(``libdevice.sinf(x)``, ``s, c = libdevice.sincos(x)``).

The functions are declared once, in the C++ registry
(stdlib/registry/libdevice.def, generated from libdevice.10.bc); this module
only names them.  They are kernel-side: calling one on the host raises
RuntimeError.  Semantics, types and the CPU executor's accuracy:
docs/language.md, "cuda.libdevice".
"""
from pycuda_jit.cuda import _Intrinsic, _intrinsic_keys

_PREFIX = "cuda.libdevice."


def __getattr__(name):
    if not name.startswith("_") and _PREFIX + name in _intrinsic_keys():
        return _Intrinsic(_PREFIX + name)
    raise AttributeError(f"module 'pycuda_jit.cuda.libdevice' has no attribute '{name}'")


def __dir__():
    return sorted(k[len(_PREFIX):] for k in _intrinsic_keys() if k.startswith(_PREFIX))
