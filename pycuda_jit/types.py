"""Type objects, as numba-cuda users spell them.

    from pycuda_jit import float32, int32, void, types

    @cuda.jit(void(float32[:, ::1], int32))          # a signature object
    @cuda.jit((types.Array(types.float32, 2, "C"), types.int32))   # argument types

Every object prints numba's spelling (``float32``, ``array(float32, 2d, C)``,
``UniTuple(int32 x 3)``), compares equal to the same type however it was
built, hashes, and renders to the signature text the compiler's parser reads
(``sig_text()``: ``float32[:, ::1]``).  Scalar types are also values inside
kernels: ``cuda.shared.array(n, float32)``, ``float32(x)``,
``cuda.local.array(3, dtype=types.int32)`` (the compiler resolves them like
``np.float32``).  On the host, ``float32(1.5)`` makes a NumPy scalar and
``float32(int32, int32)`` a signature.
"""
import ctypes
import re

# NumPy is imported where it is used: `import pycuda_jit` works without it
# (the conformance suite runs under interpreters that lack it).

__all__ = [
    "Type", "Number", "Boolean", "Integer", "Float", "Complex", "NoneType",
    "Array", "BaseTuple", "UniTuple", "Tuple", "NamedUniTuple", "NamedTuple",
    "NestedArray", "Record", "Signature", "signature", "typeof", "from_dtype", "as_dtype",
    "boolean", "bool_", "b1",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8",
    "intp", "uintp", "intc", "uintc", "ssize_t", "size_t",
    "char", "uchar", "byte", "short", "ushort", "int_", "uint", "long_", "ulong",
    "longlong", "ulonglong",
    "float16", "bfloat16", "float32", "float64", "f2", "f4", "f8", "float_", "double",
    "complex64", "complex128", "c8", "c16", "Fp8", "fp8_e4m3", "fp8_e5m2", "fp8_e8m0",
    "NPDatetime", "NPTimedelta", "CharSeq", "UnicodeCharSeq",
    "none", "void", "CPointer", "voidptr",
    "signed_domain", "unsigned_domain", "integer_domain", "real_domain",
    "complex_domain", "number_domain",
]


class Type:
    """Base class of the type objects.  ``key`` decides equality."""

    def __init__(self, name):
        self.name = name

    @property
    def key(self):
        return self.name

    def __eq__(self, other):
        return isinstance(other, Type) and _kind(self) == _kind(other) and self.key == other.key

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((_kind(self), self.key))

    def __repr__(self):
        return self.name

    __str__ = __repr__

    def __call__(self, *args):
        # float32(1.5): a value of this type; float32(int32, int32): a signature.
        if len(args) == 1 and not isinstance(args[0], Type):
            return self.cast_python_value(args[0])
        return Signature(self, args)

    def cast_python_value(self, value):
        raise TypeError(f"{self} cannot convert a Python value")

    def __getitem__(self, dims):
        """``float32[:]`` (layout A), ``float32[::1]`` (C), ``float32[:, ::1]``
        (C), ``float32[::1, :]`` (F): an array of this type."""
        ndim, layout = _array_spec(dims)
        return Array(self, ndim, layout)

    def sig_text(self):
        """The spelling the compiler's signature parser reads."""
        raise TypeError(f"the type {self} cannot be used in kernel signatures")


def _kind(t):
    # Tuple and UniTuple of the same elements are one type (numba builds a
    # UniTuple for homogeneous tuples; we compare them as equal too).
    return "tuple" if isinstance(t, BaseTuple) else type(t).__name__


def _array_spec(dims):
    def plain(s):
        return isinstance(s, slice) and s.start is None and s.stop is None and s.step in (None, 1)

    if isinstance(dims, (tuple, list)) and dims and all(map(plain, dims)):
        if dims[0].step == 1:
            return len(dims), "F" if len(dims) > 1 else "C"
        return len(dims), "C" if dims[-1].step == 1 else "A"
    if plain(dims):
        return 1, "C" if dims.step == 1 else "A"
    raise KeyError(f"array types are written with ':' and '::1' per dimension "
                   f"(float32[:, ::1]), not {dims!r}")


# ---- scalars ------------------------------------------------------------------------

class Number(Type):
    """A numeric scalar type; also a dtype value inside kernels."""

    def __init__(self, name):
        super().__init__(name)
        self._pcj_dtype_ = name  # read by the compiler's resolver
        self.bitwidth = int(re.search(r"\d+$", name).group())

    def cast_python_value(self, value):
        import numpy as np
        return np.dtype(self.name).type(value)

    def sig_text(self):
        return self.name


class Boolean(Number):
    def __init__(self, name="bool"):
        Type.__init__(self, name)
        self._pcj_dtype_ = "bool"
        self.bitwidth = 8

    def cast_python_value(self, value):
        import numpy as np
        return np.bool_(value)


class Integer(Number):
    def __init__(self, name):
        super().__init__(name)
        self.signed = not name.startswith("u")


class Float(Number):
    pass


class BFloat16(Float):
    """``bfloat16`` (cuda.bf16.bfloat16): 8 exponent and 7 fraction bits;
    kernels compute with it (docs/language.md, "bfloat16").  Its NumPy dtype
    is ml_dtypes.bfloat16 where that package is installed."""

    def __init__(self):
        super().__init__("bfloat16")

    def _ml_dtype(self):
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError("bfloat16 values on the host need the ml_dtypes "
                            "package (NumPy has no bfloat16)") from None
        return ml_dtypes.bfloat16

    def cast_python_value(self, value):
        return self._ml_dtype()(value)


class Fp8(Type):
    """``fp8_e4m3``, ``fp8_e5m2``, ``fp8_e8m0`` (cuda.fp8): one-byte storage
    types that kernels convert to and from ints and floats
    (``fp8_e4m3(x)``, ``float32(f)``); they have no arithmetic, as in
    numba-cuda.  Semantics: docs/language.md, "fp8"."""

    def __init__(self, name):
        super().__init__(name)
        self.__name__ = name  # numba-cuda's fp8 types are classes
        self._pcj_dtype_ = name  # read by the compiler's resolver
        self.bitwidth = 8

    def cast_python_value(self, value):
        raise TypeError(f"{self.name} values exist only inside kernels; on the host, "
                        f"ml_dtypes has the fp8 formats as NumPy dtypes")

    def sig_text(self):
        return self.name


class _NPDateLike(Type):
    """Base of ``NPDatetime(unit)`` / ``NPTimedelta(unit)``: NumPy's
    datetime64[unit] / timedelta64[unit], an int64 count of the unit in
    kernels (docs/language.md, "datetime64 and timedelta64")."""

    _prefix = ""

    def __init__(self, unit=""):
        self.unit = unit
        super().__init__(self._prefix + (f"[{unit}]" if unit else ""))
        self._pcj_dtype_ = self.name  # read by the compiler's resolver
        self.bitwidth = 64

    def cast_python_value(self, value):
        import numpy as np
        return np.dtype(self.name).type(value)

    def sig_text(self):
        return self.name


class NPDatetime(_NPDateLike):
    _prefix = "datetime64"


class NPTimedelta(_NPDateLike):
    _prefix = "timedelta64"


class _CharSeqBase(Type):
    """Base of ``CharSeq(n)`` ('S<n>') and ``UnicodeCharSeq(n)`` ('U<n>'):
    a fixed-width string element or record field (docs/language.md,
    "Fixed-width strings")."""

    _char = ""
    _code = ""

    def __init__(self, count):
        self.count = int(count)
        super().__init__(f"[{self._char} x {self.count}]")

    @property
    def dtype(self):
        import numpy as np
        return np.dtype(f"{self._code}{self.count}")

    def sig_text(self):
        return f"{type(self).__name__}({self.count})"


class CharSeq(_CharSeqBase):
    _char, _code = "char", "S"


class UnicodeCharSeq(_CharSeqBase):
    _char, _code = "unichr", "U"


def _scalar_type(name):
    """The scalar type object a name from the extension stands for (numbers,
    datetime64[unit], timedelta64[unit], [char x n], [unichr x n])."""
    t = _scalars.get(name)
    if t is not None:
        return t
    m = re.fullmatch(r"(datetime64|timedelta64)(?:\[(\w+)\])?", name)
    if m:
        return (NPDatetime if m.group(1) == "datetime64" else NPTimedelta)(m.group(2) or "")
    m = re.fullmatch(r"\[(char|unichr) x (\d+)\]", name)
    if m:
        return (CharSeq if m.group(1) == "char" else UnicodeCharSeq)(int(m.group(2)))
    return None


class Complex(Number):
    def __init__(self, name, underlying_float):
        super().__init__(name)
        self.underlying_float = underlying_float


class NoneType(Type):
    """``none`` (also spelled ``void``): what a kernel returns."""

    def __init__(self, name="none"):
        super().__init__("none")

    def sig_text(self):
        return "none"


boolean = bool_ = b1 = Boolean()
int8 = i1 = Integer("int8")
int16 = i2 = Integer("int16")
int32 = i4 = Integer("int32")
int64 = i8 = Integer("int64")
uint8 = u1 = byte = Integer("uint8")
uint16 = u2 = Integer("uint16")
uint32 = u4 = Integer("uint32")
uint64 = u8 = Integer("uint64")
float16 = f2 = Float("float16")
bfloat16 = BFloat16()
float32 = f4 = float_ = Float("float32")  # numba's float_ is C's float
float64 = f8 = double = Float("float64")
complex64 = c8 = Complex("complex64", float32)
complex128 = c16 = Complex("complex128", float64)
fp8_e4m3 = Fp8("fp8_e4m3")
fp8_e5m2 = Fp8("fp8_e5m2")
fp8_e8m0 = Fp8("fp8_e8m0")
none = void = NoneType()

_ints = {t.name: t for t in (int8, int16, int32, int64, uint8, uint16, uint32, uint64)}


def _c_int(c_type, signed):
    # The integer type of a C type's width (NumPy 2's int_ is intp).
    return _ints[("int" if signed else "uint") + str(ctypes.sizeof(c_type) * 8)]


intp = ssize_t = _c_int(ctypes.c_ssize_t, True)
uintp = size_t = _c_int(ctypes.c_ssize_t, False)
char = _c_int(ctypes.c_byte, True)
uchar = _c_int(ctypes.c_byte, False)
short = _c_int(ctypes.c_short, True)
ushort = _c_int(ctypes.c_short, False)
intc = _c_int(ctypes.c_int, True)
uintc = _c_int(ctypes.c_int, False)
int_ = long_ = _c_int(ctypes.c_ssize_t, True)
uint = ulong = _c_int(ctypes.c_ssize_t, False)
longlong = _c_int(ctypes.c_longlong, True)
ulonglong = _c_int(ctypes.c_longlong, False)

_scalars = {t.name: t for t in (boolean, float16, bfloat16, float32, float64, complex64,
                                complex128, *_ints.values())}


# ---- arrays, tuples, records ---------------------------------------------------------

class Array(Type):
    """``Array(dtype, ndim, layout)``: layout 'C', 'F' or 'A' (any strides)."""

    def __init__(self, dtype, ndim, layout, readonly=False, name=None, aligned=True):
        if not isinstance(dtype, Type):
            dtype = from_dtype(dtype)
        if isinstance(dtype, Array):
            raise TypeError("an array's dtype cannot be an array type")
        if layout not in ("C", "F", "A"):
            raise ValueError(f"array layout must be 'C', 'F' or 'A', not {layout!r}")
        ndim = int(ndim)
        if ndim < 0:
            raise ValueError("an array cannot have a negative number of dimensions")
        self.dtype, self.ndim, self.layout = dtype, ndim, layout
        self.mutable, self.aligned = not readonly, bool(aligned)
        if name is None:
            name = f"array({dtype}, {ndim}d, {layout})"
            if readonly:
                name = "readonly " + name
            if not aligned:
                name = "unaligned " + name
        super().__init__(name)

    @property
    def key(self):
        return self.dtype, self.ndim, self.layout, self.mutable, self.aligned

    @property
    def is_c_contig(self):
        return self.layout == "C" or (self.ndim <= 1 and self.layout == "F")

    @property
    def is_f_contig(self):
        return self.layout == "F" or (self.ndim <= 1 and self.layout == "C")

    def copy(self, dtype=None, ndim=None, layout=None, readonly=None):
        return Array(self.dtype if dtype is None else dtype,
                     self.ndim if ndim is None else ndim,
                     self.layout if layout is None else layout,
                     not self.mutable if readonly is None else readonly,
                     aligned=self.aligned)

    def sig_text(self):
        # Read-only arrays are ordinary arrays to the compiler (the kernel
        # must not write them); alignment is always natural.
        if self.ndim == 0:
            raise TypeError("0-d arrays cannot be spelled in kernel signatures")
        dims = [":"] * self.ndim
        if self.layout == "C" or (self.ndim == 1 and self.layout == "F"):
            dims[-1] = "::1"
        elif self.layout == "F":
            dims[0] = "::1"
        return f"{self.dtype.sig_text()}[{', '.join(dims)}]"


class BaseTuple(Type):
    """Tuples: ``UniTuple(int32, 3)`` or ``Tuple((int32, float32))``."""

    @property
    def key(self):
        return self.types

    def __iter__(self):
        return iter(self.types)

    def __len__(self):
        return len(self.types)

    def __getitem__(self, i):
        return self.types[i]

    @property
    def count(self):
        return len(self.types)

    def sig_text(self):
        inner = ", ".join(t.sig_text() for t in self.types)
        return f"({inner},)" if len(self.types) == 1 else f"({inner})"


class UniTuple(BaseTuple):
    """``UniTuple(dtype, count)``: ``count`` elements of one type."""

    def __init__(self, dtype, count):
        self.dtype = dtype
        self.types = (dtype,) * int(count)
        super().__init__(f"UniTuple({dtype} x {int(count)})")


class Tuple(BaseTuple):
    """``Tuple(types)``; a homogeneous one is a UniTuple (as in numba)."""

    def __new__(cls, types):
        types = tuple(types)
        if types and all(t == types[0] for t in types):
            return UniTuple(types[0], len(types))
        return super().__new__(cls)

    def __init__(self, types):
        self.types = tuple(types)
        super().__init__(f"Tuple({', '.join(map(str, self.types))})")


class NamedUniTuple(BaseTuple):
    """A namedtuple of one element type (as ``typeof`` reports it)."""

    def __init__(self, dtype, count, cls):
        self.dtype, self.types, self.instance_class = dtype, (dtype,) * int(count), cls
        super().__init__(f"{_class_name(cls)}({dtype} x {int(count)})")

    @property
    def key(self):
        return _class_name(self.instance_class), self.types

    def sig_text(self):
        raise TypeError("namedtuple types cannot be spelled in kernel signatures; "
                        "let the kernel compile for its arguments")


class NamedTuple(NamedUniTuple):
    def __init__(self, types, cls):
        types = tuple(types)
        self.types, self.instance_class = types, cls
        Type.__init__(self, f"{_class_name(cls)}({', '.join(map(str, types))})")


class CPointer(Type):
    """``CPointer(float32)``: a C pointer (``float *``), for the signatures
    of foreign functions (``cuda.declare_device``).  An array passed there
    passes its data pointer; ``voidptr`` takes any array."""

    def __init__(self, dtype):
        if not isinstance(dtype, Type) or isinstance(dtype, (Array, BaseTuple)):
            raise TypeError(f"CPointer takes a scalar or pointer type, not {dtype!r}")
        super().__init__(f"{dtype}*")
        self.dtype = dtype

    @property
    def key(self):
        return self.dtype

    def sig_text(self):
        return f"CPointer({self.dtype.sig_text()})"


class _VoidPointer(Type):
    def sig_text(self):
        return "voidptr"


voidptr = _VoidPointer("void*")


def _class_name(cls):
    return cls if isinstance(cls, str) else cls.__name__


class NestedArray(Type):
    """A record field holding a fixed-shape array (a NumPy subarray field,
    ``('b', np.float64, (3,))``): ``dtype`` and ``shape``; read in a kernel
    as a C-contiguous array view of the record's bytes."""

    def __init__(self, dtype, shape):
        self.dtype, self.shape = dtype, tuple(int(d) for d in shape)
        self.ndim = len(self.shape)
        dims = ", ".join(str(d) for d in self.shape) + ("," if self.ndim == 1 else "")
        super().__init__(f"nestedarray({dtype}, ({dims}))")

    @property
    def key(self):
        return self.dtype, self.shape

    def sig_text(self):
        return self.name


class Record(Type):
    """A structured dtype (``from_dtype(np.dtype([('x', 'f8'), ('n', 'i1')]))``):
    fields ``{name: (type, offset)}``, ``size`` bytes, aligned to ``alignment``."""

    def __init__(self, fields, size, alignment, dtype=None):
        self.fields = dict(fields)
        self.size, self.alignment, self.dtype = int(size), int(alignment), dtype
        parts = ",".join(f"{n}[type={t};offset={o}]" for n, (t, o) in self.fields.items())
        super().__init__(f"Record({parts};{self.size};{self.alignment > 1})")

    @property
    def key(self):
        return tuple((n, t, o) for n, (t, o) in self.fields.items()), self.size, self.alignment

    @property
    def _pcj_record_dtype_(self):
        # What the compiler resolves this object to in kernels (the dtype of
        # cuda.local.array(n, rec) / cuda.shared.array(n, rec)).
        return self.dtype

    def sig_text(self):
        parts = ", ".join(f"{n}: {t.sig_text()} @{o}" for n, (t, o) in self.fields.items())
        return f"Record({parts}; {self.size} bytes, align {self.alignment})"


# ---- signatures ------------------------------------------------------------------

class Signature:
    """``return_type(arg, ...)``: ``void(float32[:], int32)``."""

    def __init__(self, return_type, args):
        args = tuple(args)
        for a in (return_type, *args):
            if a is not None and not isinstance(a, Type):
                raise TypeError(f"signatures are made of type objects, not {a!r}")
        self.return_type, self.args = return_type, args

    def __eq__(self, other):
        return (isinstance(other, Signature) and self.return_type == other.return_type
                and self.args == other.args)

    def __hash__(self):
        return hash((self.return_type, self.args))

    def __repr__(self):
        return f"{self.args} -> {self.return_type}"

    def sig_text(self):
        args = ", ".join(a.sig_text() for a in self.args)
        ret = "" if self.return_type is None else self.return_type.sig_text()
        return f"{ret}({args})"


def signature(return_type, *args):
    """``signature(void, float32[:], int32)`` is ``void(float32[:], int32)``."""
    return Signature(return_type, args)


def signature_text(sig):
    """A kernel signature as the compiler reads it: from a string, a
    Signature, or a tuple/list of argument types."""
    if isinstance(sig, str):
        return sig
    if isinstance(sig, Signature):
        return sig.sig_text()
    if isinstance(sig, (tuple, list)) and all(isinstance(t, Type) for t in sig):
        return Signature(None, sig).sig_text()
    raise TypeError("a signature is a string ('void(float32[:], int32)'), a signature "
                    "object (void(float32[:], int32)) or a tuple of argument types, "
                    f"not {sig!r}")


# ---- from values ---------------------------------------------------------------------

def from_dtype(dtype):
    """The type object of a NumPy dtype (scalar or structured)."""
    import numpy as np
    dt = np.dtype(dtype)
    if dt.fields is None:
        if dt.kind in "Mm":
            unit = np.datetime_data(dt)[0]
            unit = "" if unit == "generic" else unit
            t = (NPDatetime if dt.kind == "M" else NPTimedelta)(unit)
        elif dt.kind in "SU" and dt.itemsize:
            t = (CharSeq if dt.kind == "S" else UnicodeCharSeq)(
                dt.itemsize // (1 if dt.kind == "S" else 4))
        else:
            t = _scalars.get(dt.name)
        if t is None or dt.byteorder == ">":
            raise TypeError(f"the dtype {dt} has no kernel type")
        return t
    # A structured dtype: the extension lays it out, by the rule it uses for
    # arguments, so that a signature and a launch agree.
    try:
        desc = _describe(np.empty(1, dt))
    except ValueError as e:
        raise TypeError(f"the dtype {dt} has no kernel type: {e}") from None
    return _from_description(desc[1], dtype=dt)


def as_dtype(t):
    """The NumPy dtype of a scalar or record type object (numba's
    numpy_support.as_dtype)."""
    if isinstance(t, Record):
        if t.dtype is None:
            raise TypeError(f"{t} was not made from a NumPy dtype")
        return t.dtype
    if isinstance(t, (_NPDateLike, _CharSeqBase)):
        import numpy as np
        return np.dtype(t.name) if isinstance(t, _NPDateLike) else t.dtype
    if isinstance(t, BFloat16):
        import numpy as np
        return np.dtype(t._ml_dtype())
    if isinstance(t, Number):
        import numpy as np
        return np.dtype(t._pcj_dtype_)
    raise TypeError(f"the type {t} has no NumPy dtype")


def typeof(value):
    """The type a kernel argument ``value`` has (what ``@cuda.jit`` would
    compile for): ``typeof(1.5) == float64``, ``typeof(np.zeros((2, 3),
    np.float32)) == float32[:, ::1]``."""
    return _from_description(_describe(value))


def _describe(value):
    from ._lazy import core
    try:
        return core().type_of(value)
    except TypeError as e:
        why = str(e).removeprefix("kernel argument 1: ")
        raise ValueError(f"cannot determine the kernel type of a {type(value).__name__} "
                         f"value: {why}") from None


def _from_description(d, dtype=None):
    # Built by the extension (_core.type_of): a scalar name, or
    # ("array", dtype, ndim, layout) / ("tuple", elems, class, fields) /
    # ("record", ((name, type, offset), ...), size, align) /
    # ("nestedarray", dtype, shape) (a record field).
    if isinstance(d, str):
        return none if d == "none" else _scalar_type(d)
    tag = d[0]
    if tag == "array":
        return Array(_from_description(d[1]), d[2], d[3])
    if tag == "tuple":
        elems = tuple(_from_description(e) for e in d[1])
        if d[2] is None:
            return Tuple(elems)
        if elems and all(e == elems[0] for e in elems):
            return NamedUniTuple(elems[0], len(elems), d[2])
        return NamedTuple(elems, d[2])
    if tag == "nestedarray":
        return NestedArray(_from_description(d[1]), d[2])
    if tag == "record":
        fields = {n: (_from_description(t), o) for n, t, o in d[1]}
        return Record(fields, d[2], d[3], dtype)
    raise ValueError(f"unknown type description {d!r}")


# numba's sets of number types (float16 and bool belong to none of them).
signed_domain = frozenset({int8, int16, int32, int64})
unsigned_domain = frozenset({uint8, uint16, uint32, uint64})
integer_domain = signed_domain | unsigned_domain
real_domain = frozenset({float32, float64})
complex_domain = frozenset({complex64, complex128})
number_domain = integer_domain | real_domain | complex_domain
