"""``pycuda_jit.cuda.fp8``: the fp8 storage types and conversion functions
numba-cuda's ``numba.cuda._internal.cuda_fp8`` binds from CUDA's cuda_fp8.h:
the types ``fp8_e4m3``, ``fp8_e5m2``, ``fp8_e8m0`` (kernels convert with
``fp8_e4m3(x)`` and ``float32(f)``), the ``cvt_*`` functions on uint8 codes
(``cvt_float_to_fp8(x, saturation_t.SATFINITE, fp8_interpretation_t.E4M3)``)
and the enums they take.  ``cudaRoundMode`` stands for cuda.bindings'
enum of that name (same values) for users without that package.

The functions are declared once, in the C++ registry
(stdlib/registry/fp8.def); this module only names them.  They are
kernel-side: calling one on the host raises RuntimeError.  Semantics:
docs/language.md, "fp8".
"""
from enum import IntEnum

from pycuda_jit.cuda import _Intrinsic, _intrinsic_keys
from pycuda_jit.types import fp8_e4m3, fp8_e5m2, fp8_e8m0

# numba-cuda's names of the numba types (the same objects here)
_type_fp8_e4m3, _type_fp8_e5m2, _type_fp8_e8m0 = fp8_e4m3, fp8_e5m2, fp8_e8m0


class saturation_t(IntEnum):
    """What a conversion does with values beyond the format's range."""
    NOSAT = 0       # infinity (e5m2), NaN (e4m3, e8m0)
    SATFINITE = 1   # the largest finite value


class fp8_interpretation_t(IntEnum):
    """Which 8-bit format a code holds."""
    E4M3 = 0
    E5M2 = 1


class cudaRoundMode(IntEnum):
    """cuda_runtime's rounding modes (cuda.bindings.runtime.cudaRoundMode);
    the e8m0 conversions take cudaRoundZero or cudaRoundPosInf."""
    cudaRoundNearest = 0
    cudaRoundZero = 1
    cudaRoundPosInf = 2
    cudaRoundMinInf = 3


_PREFIX = "cuda.fp8."


def __getattr__(name):
    key = _PREFIX + name
    if not name.startswith("_") and key in _intrinsic_keys():
        return _Intrinsic(key)
    raise AttributeError(f"module 'pycuda_jit.cuda.fp8' has no attribute '{name}'")


def __dir__():
    return sorted(["fp8_e4m3", "fp8_e5m2", "fp8_e8m0", "saturation_t",
                   "fp8_interpretation_t", "cudaRoundMode"] +
                  [k[len(_PREFIX):] for k in _intrinsic_keys() if k.startswith(_PREFIX)])
