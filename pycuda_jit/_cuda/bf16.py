"""``pycuda_jit.cuda.bf16``: the bfloat16 type and its kernel functions, as
numba-cuda's ``numba.cuda.bf16`` names them (``bfloat16``, ``hadd``,
``float32_to_bfloat16_rz``...), with the C-style aliases of CUDA's
cuda_bf16.h (``float2bfloat16_rz``, ``__hadd``, ``nv_bfloat16``) that
numba-cuda's bindings module also exports.

The functions are declared once, in the C++ registry
(stdlib/registry/bf16.def); this module only names them.  They are
kernel-side: calling one on the host raises RuntimeError.  Semantics:
docs/language.md, "bfloat16".
"""
import re

from pycuda_jit.cuda import _Intrinsic, _intrinsic_keys
from pycuda_jit.types import bfloat16

nv_bfloat16 = bfloat16

_PREFIX = "cuda.bf16."

# C type names of cuda_bf16.h -> the NumPy-style names of the registry.
_C_TYPES = {"float": "float32", "double": "float64", "char": "int8",
            "uchar": "uint8", "short": "int16", "ushort": "uint16",
            "int": "int32", "uint": "uint32", "ll": "int64", "ull": "uint64"}


def _canonical(name):
    """The registry name of ``name``: itself, or what its C spelling means."""
    name = name[2:] if name.startswith("__") else name
    m = re.fullmatch(r"bfloat162(\w+?)(_r[nzdu])?", name)
    if m and m.group(1) in _C_TYPES:
        return f"bfloat16_to_{_C_TYPES[m.group(1)]}{m.group(2) or ''}"
    m = re.fullmatch(r"(\w+?)2bfloat16(_r[nzdu])?", name)
    if m and m.group(1) in _C_TYPES:
        return f"{_C_TYPES[m.group(1)]}_to_bfloat16{m.group(2) or ''}"
    m = re.fullmatch(r"bfloat16_as_(short|ushort)", name)
    if m:
        return f"bfloat16_as_{_C_TYPES[m.group(1)]}"
    m = re.fullmatch(r"(short|ushort)_as_bfloat16", name)
    if m:
        return f"{_C_TYPES[m.group(1)]}_as_bfloat16"
    return name


def __getattr__(name):
    if name != "__" and not name.startswith("___"):
        key = _PREFIX + _canonical(name)
        if not name.endswith("__") and key in _intrinsic_keys():
            return _Intrinsic(key)
    raise AttributeError(f"module 'pycuda_jit.cuda.bf16' has no attribute '{name}'")


def __dir__():
    return sorted(["bfloat16", "nv_bfloat16"] +
                  [k[len(_PREFIX):] for k in _intrinsic_keys() if k.startswith(_PREFIX)])
