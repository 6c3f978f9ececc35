"""``pycuda_jit.cuda.vector_types``: CUDA's vector types (float32x4, int2,
...) as numba-cuda users reach them.

Each vector type has one constructor object, the same under its numba name
(``cuda.float32x4``) and its C aliases (``cuda.float4``); inside kernels it
builds the vector (the registry rows of stdlib/registry/vector.def), on the
host it cannot be called.  ``vector_types`` maps each numba name to a
description (name, base_type, num_elements, attr_names, user_facing_object).
"""
import numpy as np

from pycuda_jit import types as _types
from pycuda_jit.cuda import _Intrinsic

_BASES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64", "float32", "float64")
_FIELDS = ("x", "y", "z", "w")

# CUDA's C names for the element types, sized like the C types NumPy knows
# on this platform (long is 64 bits on Linux).
_C_NAMES = {
    "char": np.byte, "short": np.short, "int": np.intc, "long": np.int_,
    "longlong": np.longlong, "uchar": np.ubyte, "ushort": np.ushort,
    "uint": np.uintc, "ulong": np.uint, "ulonglong": np.ulonglong,
    "float": np.single, "double": np.double,
}


class VectorConstructor(_Intrinsic):
    """A vector type's constructor: ``cuda.float32x4(x, y, z, w)`` in a kernel."""

    __slots__ = ("aliases",)

    def __init__(self, name):
        super().__init__(f"cuda.{name}")
        self.aliases = []


class VectorType:
    """A CUDA vector type: `num_elements` values of `base_type`, fields
    x, y, z, w."""

    def __init__(self, base, count):
        self.name = f"{base}x{count}"
        self.base_type = getattr(_types, base)
        self.num_elements = count
        self.attr_names = _FIELDS[:count]
        self.user_facing_object = VectorConstructor(self.name)

    def __repr__(self):
        return self.name


vector_types = {}
for _base in _BASES:
    for _count in (1, 2, 3, 4):
        _vt = VectorType(_base, _count)
        vector_types[_vt.name] = _vt

# Every name the cuda module answers with a constructor: numba names and
# the C aliases.
constructors = {name: vt.user_facing_object for name, vt in vector_types.items()}
for _c, _np in _C_NAMES.items():
    _dt = np.dtype(_np)
    _base = f"{'float' if _dt.kind == 'f' else 'uint' if _dt.kind == 'u' else 'int'}{_dt.itemsize * 8}"
    for _count in (1, 2, 3, 4):
        _ctor = vector_types[f"{_base}x{_count}"].user_facing_object
        _ctor.aliases.append(f"{_c}{_count}")
        constructors[f"{_c}{_count}"] = _ctor
del _base, _count, _vt, _c, _np, _dt, _ctor
