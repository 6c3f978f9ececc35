"""Device arrays: typed, strided views of device memory, and the functions
that create them.

The C++ base class (_core.DeviceArray) holds the pointer, shape, strides, the
kernel-argument type and the array's stream, and does the work: indexing
into views, reshape, contiguity, __cuda_array_interface__, DLPack export and
strided copies.  This module adds numpy dtypes and numpy array creation.  On
the CPU executor, device memory is host memory and everything behaves the
same.
"""
import ctypes
import operator
import os

import numpy as np

from . import memory_manager
from ._lazy import core

_core = core()


class ArrayFlags(dict):
    """``DeviceNDArray.flags``: the layout as NumPy's ``ndarray.flags`` names
    it, by key (``flags["C_CONTIGUOUS"]``) or attribute
    (``flags.c_contiguous``).  Contiguity follows NumPy's relaxed rule:
    the stride of an axis of length 1 does not matter."""

    def __getattr__(self, name):
        try:
            return self[name.upper()]
        except KeyError:
            raise AttributeError(name) from None


def _is_bfloat16(dtype):
    # NumPy has no bfloat16; ml_dtypes' is a 2-byte 'V' dtype named so
    return dtype.name == "bfloat16" and dtype.kind == "V" and dtype.itemsize == 2


def _core_typestr(dtype):
    """The element type as _core reads it: NumPy's typestr, or "bfloat16"
    (kBfloat16Typestr in _core) for ml_dtypes' bfloat16."""
    return "bfloat16" if _is_bfloat16(dtype) else dtype.str


def _numpy_dtype(typestr):
    """The NumPy dtype of a typestr _core gives back ("bfloat16": ml_dtypes')."""
    if typestr != "bfloat16":
        return np.dtype(typestr)
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError("a bfloat16 array needs the ml_dtypes package for its "
                        "NumPy dtype (pip install ml_dtypes)") from None
    return np.dtype(ml_dtypes.bfloat16)

def _shape_text(shape):
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _broadcast_source(src, shape):
    """``src`` broadcast to ``shape`` as NumPy's assignment does (leading
    length-1 axes beyond the target's dimensions dropped), else ValueError
    in NumPy's words for the same host assignment."""
    while src.ndim > len(shape) and src.shape[0] == 1:
        src = src.reshape(src.shape[1:])
    if src.ndim <= len(shape):
        try:
            return np.broadcast_to(src, shape)
        except ValueError:
            pass
    raise ValueError(f"could not broadcast input array from shape {_shape_text(src.shape)} "
                     f"into shape {_shape_text(shape)}")


class DeviceNDArray(_core.DeviceArray):
    """An array in device memory (the numba-cuda DeviceNDArray API).

    ``DeviceNDArray(shape, strides, dtype)`` allocates new device memory for
    that layout, as numba-cuda's constructor does (its fourth positional
    argument is then the stream); the package's own functions pass the
    memory's ``owner`` and ``ptr``."""

    def __init__(self, shape, strides, dtype, owner=None, ptr=None, stream=0):
        dtype = np.dtype(dtype)
        shape, strides = _shape_tuple(shape), _shape_tuple(strides)
        if ptr is None:
            if owner is not None:  # numba-cuda's DeviceNDArray(shape, strides, dtype, stream)
                stream, owner = owner, None
            _s, _d, _st, nbytes = _prepare(shape, dtype, strides, "C")
            owner, ptr = memory_manager.device_memory(nbytes)
        super().__init__(owner, ptr, shape, strides, _core_typestr(dtype), stream,
                         dtype.descr if dtype.fields is not None else None)
        self.dtype = dtype

    @property
    def device_ctypes_pointer(self):
        """The data's device address as a ctypes.c_void_p."""
        return ctypes.c_void_p(self.device_ctypes_pointer_value or None)

    @property
    def alloc_size(self):
        """Bytes from the array's lowest to its highest element (0 if it has
        none): the extent of memory the array spans."""
        if self.size == 0:
            return 0
        low = sum(s * (n - 1) for n, s in zip(self.shape, self.strides) if s < 0)
        high = sum(s * (n - 1) for n, s in zip(self.shape, self.strides) if s > 0)
        return high - low + self.dtype.itemsize

    @property
    def gpu_data(self):
        """The array's device memory as a MemoryPointer (numba-cuda's
        ``gpu_data``): from the array's lowest byte (its first element's,
        unless a stride is negative), ``alloc_size`` long; it keeps the
        memory alive."""
        from .memory_manager import MemoryPointer
        low = self.device_ctypes_pointer_value
        if self.size:
            low += sum(s * (n - 1) for n, s in zip(self.shape, self.strides) if s < 0)
        if isinstance(self._owner, MemoryPointer) and \
                self._owner.device_pointer_value == low and \
                self._owner.size == self.alloc_size:
            return self._owner
        from .devices import current_context
        return MemoryPointer(current_context(), low, self.alloc_size, owner=self._owner)

    @property
    def flags(self):
        """C_CONTIGUOUS and F_CONTIGUOUS, as in ``numpy.ndarray.flags``."""
        return ArrayFlags(C_CONTIGUOUS=self.is_c_contiguous(),
                          F_CONTIGUOUS=self.is_f_contiguous())

    def view(self, dtype):
        """The same memory seen as another dtype (NumPy's ``ndarray.view``
        rules): a dtype of another size rescales the last axis, which must
        be contiguous and hold a whole number of the new items."""
        dtype = np.dtype(dtype)
        shape, strides = list(self.shape), list(self.strides)
        old = self.dtype.itemsize
        if dtype.itemsize != old:
            if self.ndim == 0:
                raise ValueError("Changing the dtype of a 0d array is only supported "
                                 "if the itemsize is unchanged")
            if strides[-1] != old and shape[-1] != 1:
                raise ValueError("To change to a dtype of a different size, "
                                 "the last axis must be contiguous")
            last_bytes = shape[-1] * old
            if dtype.itemsize > old and last_bytes % dtype.itemsize:
                raise ValueError("When changing to a larger dtype, its size must be a "
                                 "divisor of the total size in bytes of the last axis "
                                 "of the array.")
            if dtype.itemsize < old and old % dtype.itemsize:
                raise ValueError("When changing to a smaller dtype, its size must be a "
                                 "divisor of the size of original dtype")
            shape[-1] = last_bytes // dtype.itemsize
            strides[-1] = dtype.itemsize
        return DeviceNDArray(shape, strides, dtype, self._owner,
                             self.device_ctypes_pointer_value, self.stream)

    def _view(self, ptr, shape, strides):
        return DeviceNDArray(shape, strides, self.dtype, self._owner, ptr, self.stream)

    # ---- indexing ----------------------------------------------------------------------

    def __getitem__(self, key):
        ptr, shape, strides, scalar = self._index(key)
        if scalar and self.dtype.fields is not None:
            # a record stays on the device (numba-cuda's DeviceRecord)
            return DeviceRecord(self.dtype, self.stream, _owner=self._owner, _ptr=ptr)
        if scalar:
            return np.frombuffer(self._read_bytes(ptr), self.dtype)[0]
        return self._view(ptr, shape, strides)

    def __setitem__(self, key, value):
        ptr, shape, strides, _ = self._index(key)
        self._view(ptr, shape, strides).copy_to_device(value, stream=self.stream, _broadcast=True)

    def reshape(self, *newshape, order="C"):
        """A view with another shape (C- or F-contiguous arrays only)."""
        if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)):
            newshape = newshape[0]
        shape, strides = self._reshape(tuple(int(s) for s in newshape), order)
        if shape == self.shape and strides == self.strides:
            return self
        return self._view(self.device_ctypes_pointer_value, shape, strides)

    def ravel(self, order="C", stream=0):
        """A new 1-d view object (contiguous arrays only)."""
        shape, strides = self._reshape((self.size,), order)
        return self._view(self.device_ctypes_pointer_value, shape, strides)

    def transpose(self, axes=None):
        axes = tuple(range(self.ndim))[::-1] if axes is None else tuple(axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"invalid axes {axes} for a {self.ndim}-d array")
        return self._view(self.device_ctypes_pointer_value,
                          [self.shape[a] for a in axes], [self.strides[a] for a in axes])

    @property
    def T(self):
        return self.transpose()

    # ---- copies ----------------------------------------------------------------------------

    def __array__(self, dtype=None, copy=None):
        """np.array(d) / np.asarray(d): a host copy (NumPy 2 passes copy=;
        False cannot be honoured, the data being in device memory)."""
        if copy is False:
            raise ValueError("`copy=False` is not possible for a device array: its data is "
                             "in device memory, so NumPy can only get a host copy "
                             "(np.array(d) or d.copy_to_host())")
        host = self.copy_to_host()
        return host if dtype is None else host.astype(dtype, copy=False)

    def copy_to_host(self, ary=None, stream=0):
        """Copy to a new (or the given) numpy array and return it.  With a
        stream, a contiguous copy into pinned memory is asynchronous."""
        if ary is None:
            order = "F" if self.is_f_contiguous() and not self.is_c_contiguous() else "C"
            ary = np.empty(self.shape, dtype=self.dtype, order=order)
        self._copy_to_host(ary, stream)
        return ary

    def copy_to_device(self, ary, stream=0, _broadcast=False):
        """Copy a host array, or another device array, of the same shape
        into this array."""
        if isinstance(ary, _core.DeviceArray) or (
                not isinstance(ary, np.ndarray) and hasattr(ary, "__cuda_array_interface__")):
            if (isinstance(ary, _core.DeviceArray) and ary.device_id != self.device_id
                    and not (ary.is_c_contiguous() and self.is_c_contiguous())):
                # Between devices, other layouts go through the host.
                ary = ary.copy_to_host(stream=stream)
                if stream:
                    stream.synchronize()
                self._copy_from_host(ary, stream)
                return
            self._copy_from_device(ary, stream)
            return
        src = np.asarray(ary)
        if src.dtype != self.dtype:
            # An array of another dtype is refused (numba-cuda too); values
            # assigned with d[...] = v, lists and scalars are converted.
            if not _broadcast and (isinstance(ary, np.ndarray)
                                   or hasattr(ary, "__array_interface__")):
                raise TypeError(f"copy_to_device: dtype '{src.dtype.str}' does not match "
                                f"the device array's '{self.dtype.str}'")
            src = src.astype(self.dtype)
        if src.shape != self.shape:
            if _broadcast:
                src = _broadcast_source(src, self.shape)
            elif [d for d in src.shape if d != 1] == [d for d in self.shape if d != 1]:
                src = src.reshape(self.shape)
            else:
                raise ValueError(f"copy_to_device: source shape {src.shape} does not "
                                 f"match the device array's {self.shape}")
        self._copy_from_host(src, stream)

    def split(self, section, stream=0):
        """The array cut into consecutive views of ``section`` elements (the
        last may be shorter): a list of DeviceNDArrays sharing this memory.
        1-d contiguous arrays only, as in numba-cuda."""
        if self.ndim != 1:
            raise ValueError("split() needs a 1-d array")
        if self.strides[0] != self.dtype.itemsize:
            raise ValueError("split() needs a contiguous array (unit stride)")
        section = operator.index(section)
        if section <= 0:
            raise ValueError(f"split() needs a positive section length, not {section}")
        stream = stream or self.stream
        base = self.device_ctypes_pointer_value
        return [DeviceNDArray((min(section, self.shape[0] - begin),), self.strides,
                              self.dtype, self._owner, base + begin * self.strides[0],
                              stream)
                for begin in range(0, self.shape[0], section)]

    def bind(self, stream=0):
        """A view of the same memory whose default stream is ``stream``."""
        return DeviceNDArray(self.shape, self.strides, self.dtype, self._owner,
                             self.device_ctypes_pointer_value, stream)

    def get_ipc_handle(self):
        """An IpcHandle (picklable) through which another process of this
        node maps this array's device memory, zero-copy (CUDA IPC; GPU
        only).  Any array in cuMemAlloc memory has one, views and other
        libraries' arrays (cuda.as_cuda_array) included.  Keep this array
        alive while others use the memory."""
        ptr = self.device_ctypes_pointer_value
        handle, base = _core.ipc_handle(ptr)  # the allocation that holds ptr
        return IpcHandle(handle, self.shape, self.strides, self.dtype, ptr - base,
                         os.getpid())

    def __reduce__(self):
        """Pickles as a host copy of the contents (pycuda_jit/serialize.py)."""
        from . import serialize
        return serialize.reduce_device_array(self)

    def __repr__(self):
        return (f"<DeviceNDArray shape={self.shape} dtype={self.dtype} "
                f"layout={self._layout}>")


class DeviceRecord(DeviceNDArray):
    """One record of a structured dtype in device memory (numba-cuda's
    DeviceRecord): a 0-d device array.  ``DeviceRecord(dtype)`` allocates
    it; ``copy_to_device(rec)`` / ``copy_to_host(rec)`` take a NumPy record
    scalar (``np.void`` or ``np.record``) or a 0-d array."""

    def __init__(self, dtype, stream=0, _owner=None, _ptr=None):
        dtype = np.dtype(dtype)
        if dtype.fields is None:
            raise TypeError(f"DeviceRecord needs a structured dtype, not {dtype}")
        if _ptr is None:  # a new record; else one inside an array (a view)
            _owner = _core.Allocation(dtype.itemsize)
            _ptr = _owner.ptr
        super().__init__((), (), dtype, _owner, _ptr, stream)

    # ---- fields: rec["x"] reads one (a nested record or an array field
    # stays a device view), rec["x"] = v writes it, as numba-cuda's

    def _field(self, key):
        names = self.dtype.names
        name = names[key] if isinstance(key, int) else key
        if name not in self.dtype.fields:
            raise KeyError(f"the record has no field {key!r}")
        dt, off = self.dtype.fields[name][:2]
        ptr = self.device_ctypes_pointer_value + off
        if dt.fields is not None:
            return DeviceRecord(dt, self.stream, _owner=self._owner, _ptr=ptr), True
        shape, base = ((), dt) if dt.subdtype is None else dt.subdtype[::-1]
        strides = tuple(int(np.prod(shape[k + 1:])) * base.itemsize
                        for k in range(len(shape)))
        view = DeviceNDArray(shape, strides, base, self._owner, ptr, self.stream)
        return view, bool(shape)

    def __getitem__(self, key):
        if not isinstance(key, (str, int)):
            return super().__getitem__(key)
        view, is_view = self._field(key)
        return view if is_view else view.copy_to_host()[()]

    def __setitem__(self, key, value):
        if not isinstance(key, (str, int)):
            return super().__setitem__(key, value)
        view, _ = self._field(key)
        view.copy_to_device(value, stream=self.stream, _broadcast=True)

    def __eq__(self, other):
        """Compares the record's current values (a host copy) with ``other``."""
        return self.copy_to_host()[()] == other

    __hash__ = None

    @property
    def _numba_type_(self):
        """The record's type object (``from_dtype(dtype)``), numba's name."""
        from .types import from_dtype
        return from_dtype(self.dtype)

    def copy_to_device(self, ary, stream=0, _broadcast=False):
        if isinstance(ary, np.void):
            ary = np.array(ary, dtype=self.dtype)
        super().copy_to_device(ary, stream, _broadcast)

    def copy_to_host(self, ary=None, stream=0):
        """Copy into ``ary`` (a record scalar is filled in place) or a new
        record, and return it."""
        if not isinstance(ary, np.void):
            return super().copy_to_host(ary, stream)
        if ary.dtype != self.dtype:
            raise TypeError(f"copy_to_host: dtype '{ary.dtype}' does not match the "
                            f"record's '{self.dtype}'")
        tmp = super().copy_to_host(None, stream)
        if stream:
            stream.synchronize()
        # A NumPy record scalar owns its bytes but exposes them read-only:
        # write them through its array interface (as numba-cuda does).
        ctypes.memmove(ary.__array_interface__["data"][0], tmp.ctypes.data,
                       self.dtype.itemsize)
        return ary


class _IpcMapping:
    """Another process's device memory mapped here; unmapped when collected
    (or by IpcHandle.close)."""

    def __init__(self, handle):
        self.ptr = _core.ipc_open(handle)

    def close(self):
        ptr, self.ptr = self.ptr, 0
        if ptr:
            _core.ipc_close(ptr)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class IpcHandle:
    """A device array's memory, named for other processes of the node (CUDA
    IPC).  Pickle it to them; there ``handle.open()`` (or ``with handle as
    array:``) gives a DeviceNDArray over the same memory on the current
    device, until ``handle.close()``; opening it again before that is a
    ValueError.  The exporting process must keep its array alive meanwhile;
    the opening process must be another one."""

    def __init__(self, handle, shape, strides, dtype, offset, source_pid):
        self.handle = bytes(handle)
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.dtype = np.dtype(dtype)
        self.offset = int(offset)
        self.source_pid = int(source_pid)
        self._mapping = None

    def open(self):
        if self.source_pid == os.getpid():
            raise ValueError("an IPC handle is opened by another process; this one "
                             "exported it and can use the array itself")
        if self._mapping is not None:  # numba-cuda's rule: one open at a time
            raise ValueError("IpcHandle is already opened; close it first")
        self._mapping = _IpcMapping(self.handle)
        return DeviceNDArray(self.shape, self.strides, self.dtype, self._mapping,
                             self._mapping.ptr + self.offset)

    def close(self):
        if self._mapping is not None:
            self._mapping.close()
            self._mapping = None

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()
        return False

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_mapping"] = None
        return state

    def __repr__(self):
        return (f"<IpcHandle shape={self.shape} dtype={self.dtype} "
                f"from pid {self.source_pid}>")


# ---- creation --------------------------------------------------------------------------------


def _shape_tuple(shape):
    """A shape or strides as a tuple of ints; a float (``[1.1]``) is a
    TypeError, as in numba-cuda and NumPy."""
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(operator.index(s) for s in shape)


def _strides_for(shape, itemsize, order):
    strides = [0] * len(shape)
    s = itemsize
    dims = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for d in dims:
        strides[d] = s
        s *= shape[d]
    return tuple(strides)


def _prepare(shape, dtype, strides, order):
    """(shape, dtype, strides, bytes to allocate), like numba's
    prepare_shape_strides_dtype."""
    shape = _shape_tuple(shape)
    dtype = np.dtype(np.float64 if dtype is None else dtype)
    if order not in ("C", "F"):
        raise ValueError("order must be 'C' or 'F'")
    if strides is None:
        strides = _strides_for(shape, dtype.itemsize, order)
    else:
        strides = _shape_tuple(strides)
        if len(strides) != len(shape):
            raise ValueError("strides must have one entry per dimension")
        if any(s < 0 for s in strides):
            raise ValueError("negative strides cannot be allocated")
    nbytes = 0
    if all(s > 0 for s in shape):
        nbytes = dtype.itemsize + sum((n - 1) * s for n, s in zip(shape, strides))
    return shape, dtype, strides, nbytes


def _like(ary):
    """(shape, dtype, contiguous strides in the memory order of ``ary``).

    Like numpy.empty_like: a C- or F-contiguous array gives C or F strides;
    any other view (an F-ordered array sliced, transposed axes, negative
    strides) keeps its axes' order, the axis with the largest absolute stride
    outermost (ties in axis order)."""
    if not (hasattr(ary, "shape") and hasattr(ary, "dtype")):
        raise TypeError(f"expected an array (with shape and dtype), not {type(ary).__name__}")
    dtype = np.dtype(ary.dtype)
    if isinstance(ary, _core.DeviceArray):
        c, f = ary.is_c_contiguous(), ary.is_f_contiguous()
    else:
        ary = np.asarray(ary)
        c, f = ary.flags.c_contiguous, ary.flags.f_contiguous
    shape = tuple(ary.shape)
    if c or f:
        return shape, dtype, _strides_for(shape, dtype.itemsize, "C" if c else "F")
    outer_first = sorted(range(len(shape)), key=lambda d: (-abs(ary.strides[d]), d))
    strides = [0] * len(shape)
    step = dtype.itemsize
    for d in reversed(outer_first):
        strides[d] = step
        step *= shape[d]
    return shape, dtype, tuple(strides)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    shape, dtype, strides, nbytes = _prepare(shape, dtype, strides, order)
    owner, ptr = memory_manager.device_memory(nbytes)
    return DeviceNDArray(shape, strides, dtype, owner, ptr, stream)


def device_array_like(ary, stream=0):
    shape, dtype, strides = _like(ary)
    return device_array(shape, dtype, strides=strides, stream=stream)


def to_device(obj, stream=0, copy=True, to=None):
    if to is not None:
        to.copy_to_device(obj, stream=stream)
        return to
    if isinstance(obj, DeviceNDArray):
        return obj
    ary = np.asarray(obj)
    order = "F" if ary.flags.f_contiguous and not ary.flags.c_contiguous else "C"
    # An empty array keeps its strides (they describe no memory), as numba-cuda.
    strides = ary.strides if ary.size == 0 and min(ary.strides, default=0) >= 0 else None
    d = device_array(ary.shape, ary.dtype, strides=strides, order=order, stream=stream)
    if copy:
        d._copy_from_host(ary, stream)
    return d


class HostDeviceNDArray(np.ndarray):
    """A NumPy array in mapped or managed memory (``cuda.mapped_array``,
    ``cuda.managed_array``): the host uses it as any NumPy array, kernels
    use it in place, and other libraries see it through its
    ``__cuda_array_interface__`` (its device address and ``stream``), as
    numba-cuda's MappedNDArray / ManagedNDArray.  Views keep the class."""

    def __array_finalize__(self, obj):
        self.stream = getattr(obj, "stream", 0)

    def _allocation(self):
        base = self
        while base is not None and not isinstance(base, _core.HostAllocation):
            base = getattr(base, "base", None)
        return base

    @property
    def device_ctypes_pointer_value(self):
        alloc = self._allocation()
        host = self.__array_interface__["data"][0]
        if alloc is None:  # a copy: plain host memory
            return host
        return alloc.device_ptr + (host - alloc.ptr)

    @property
    def __cuda_array_interface__(self):
        strides = None if self.flags.c_contiguous else tuple(self.strides)
        # As DeviceNDArray's: the stream's handle on the GPU; None on the
        # CPU executor, whose streams are no CUstreams another library can use.
        stream = self.stream
        handle = getattr(stream, "handle", stream) if stream else None
        if handle and _core.backend()[0] != "cuda":
            handle = None
        return {"shape": tuple(self.shape), "strides": strides,
                "data": (self.device_ctypes_pointer_value, False),
                "typestr": self.dtype.str, "version": 3,
                "descr": self.dtype.descr if self.dtype.fields is not None else None,
                "stream": int(handle) if handle else None}


def _host_array(kind, shape, dtype, strides, order, stream=0, **flags):
    shape, dtype, strides, nbytes = _prepare(shape, dtype, strides, order)
    if dtype.hasobject:  # Python object pointers in raw pinned memory
        raise TypeError(f"{kind} arrays of dtype {dtype} are not supported (Python objects)")
    buf = np.asarray(_core.HostAllocation(nbytes, kind, **flags))  # keeps it alive
    if kind == "pinned":
        return np.ndarray(shape, dtype, buffer=buf, strides=strides)
    ary = HostDeviceNDArray(shape, dtype, buffer=buf, strides=strides)
    ary.stream = stream
    return ary


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    return _host_array("pinned", shape, dtype, strides, order)


def pinned_array_like(ary):
    shape, dtype, strides = _like(ary)
    return pinned_array(shape, dtype, strides)


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0,
                 portable=False, wc=False):
    return _host_array("mapped", shape, dtype, strides, order, stream, portable=portable,
                       wc=wc)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    shape, dtype, strides = _like(ary)
    return mapped_array(shape, dtype, strides, stream=stream, portable=portable, wc=wc)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0,
                  attach_global=True):
    return _host_array("managed", shape, dtype, strides, order, stream,
                       attach_global=attach_global)


def _stream_for_handle(handle):
    if handle is None:
        return 0
    if handle == 1:
        return _core.Stream("legacy_default")
    if handle == 2:
        return _core.Stream("per_thread_default")
    return _core.Stream("external", handle)


def from_cuda_array_interface(desc, owner=None, sync=True):
    if desc.get("mask") is not None:  # numba-cuda does not support them either
        raise NotImplementedError("Masked arrays are not supported (a "
                                  "__cuda_array_interface__ with a 'mask')")
    ptr, shape, strides, typestr, stream = _core.cai_import(desc, sync)
    return DeviceNDArray(shape, strides, _numpy_dtype(typestr), owner, ptr,
                         _stream_for_handle(stream))


def as_cuda_array(obj, sync=True):
    if isinstance(obj, DeviceNDArray):
        return obj
    ptr, shape, strides, typestr, stream = _core.cai_import(obj, sync)
    return DeviceNDArray(shape, strides, _numpy_dtype(typestr), obj, ptr,
                         _stream_for_handle(stream))


def from_dlpack(obj):
    owner, ptr, shape, strides, typestr = _core.from_dlpack(obj)
    return DeviceNDArray(shape, strides, _numpy_dtype(typestr), owner, ptr)
