"""Device arrays: typed, strided views of device memory.

The C++ base class (_core.DeviceArray) holds the pointer, shape, strides and
the kernel-argument type; this module adds the numpy-facing methods.  On the
CPU executor, device memory is host memory and everything behaves the same.
"""
import numpy as np

from ._lazy import core

_core = core()


class DeviceNDArray(_core.DeviceArray):
    """An array in device memory (numba-compatible API subset)."""

    def __init__(self, shape, strides, dtype, owner, ptr):
        dtype = np.dtype(dtype)
        super().__init__(owner, ptr, tuple(int(s) for s in shape),
                         tuple(int(s) for s in strides), dtype.str)
        self.dtype = dtype

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d device array")
        return self.shape[0]

    def is_c_contiguous(self):
        return self._layout == "C" or self.size <= 1

    def is_f_contiguous(self):
        return self._layout == "F" or (self.ndim <= 1 and self._layout == "C") or self.size <= 1

    @property
    def __cuda_array_interface__(self):
        from .cuda import backend
        if backend() != "cuda":
            raise AttributeError("__cuda_array_interface__: arrays of the CPU executor live in host memory")
        return {"shape": self.shape, "strides": None if self.is_c_contiguous() else self.strides,
                "typestr": self.dtype.str, "data": (self.device_ctypes_pointer_value, False),
                "version": 3, "stream": None}

    def _check_contiguous(self, what):
        if not (self.is_c_contiguous() or self.is_f_contiguous()):
            raise ValueError(f"{what} of non-contiguous device arrays is not supported yet")

    def copy_to_host(self, ary=None, stream=0):
        """Copy to a new (or the given) numpy array and return it."""
        self._check_contiguous("copy_to_host")
        order = "C" if self.is_c_contiguous() else "F"
        if ary is None:
            ary = np.empty(self.shape, dtype=self.dtype, order=order)
        else:
            if ary.shape != self.shape or ary.dtype != self.dtype:
                raise ValueError(f"copy_to_host: target has shape {ary.shape} and dtype {ary.dtype}, "
                                 f"expected {self.shape} and {self.dtype}")
            if not ary.flags.writeable or not (ary.flags.c_contiguous if order == "C" else ary.flags.f_contiguous):
                raise ValueError("copy_to_host: target must be a writable contiguous array of the same order")
        _core.memcpy_dtoh(ary.ctypes.data, self.device_ctypes_pointer_value, self.nbytes)
        return ary

    def copy_to_device(self, ary, stream=0):
        """Copy a host array (same shape and dtype) into this device array."""
        self._check_contiguous("copy_to_device")
        if isinstance(ary, DeviceNDArray):
            if ary.shape != self.shape or ary.dtype != self.dtype:
                raise ValueError("copy_to_device: shape/dtype mismatch")
            _core.memcpy_dtod(self.device_ctypes_pointer_value, ary.device_ctypes_pointer_value, self.nbytes)
            return
        order = "C" if self.is_c_contiguous() else "F"
        src = np.asarray(ary, dtype=self.dtype)
        if src.shape != self.shape:
            raise ValueError(f"copy_to_device: source shape {src.shape} != {self.shape}")
        src = np.require(src, requirements=[order])
        _core.memcpy_htod(self.device_ctypes_pointer_value, src.ctypes.data, self.nbytes)

    def __repr__(self):
        return f"<DeviceNDArray shape={self.shape} dtype={self.dtype} layout={self._layout}>"


def _strides_for(shape, itemsize, order):
    strides = [0] * len(shape)
    s = itemsize
    dims = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for d in dims:
        strides[d] = s
        s *= shape[d]
    return tuple(strides)


def device_array(shape, dtype=None, strides=None, order="C"):
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    dtype = np.dtype(np.float64 if dtype is None else dtype)
    if order not in ("C", "F"):
        raise ValueError("order must be 'C' or 'F'")
    if strides is None:
        strides = _strides_for(shape, dtype.itemsize, order)
    n = dtype.itemsize
    for s in shape:
        n *= s
    alloc = _core.Allocation(n)
    return DeviceNDArray(shape, strides, dtype, alloc, alloc.ptr)


def device_array_like(ary):
    order = "F" if (ary.flags.f_contiguous and not ary.flags.c_contiguous) else "C"
    return device_array(ary.shape, ary.dtype, order=order)


def to_device(ary, copy=True, to=None):
    if isinstance(ary, DeviceNDArray):
        return ary
    ary = np.asarray(ary)
    if not (ary.flags.c_contiguous or ary.flags.f_contiguous):
        ary = np.ascontiguousarray(ary)
    if to is not None:
        to.copy_to_device(ary)
        return to
    order = "C" if ary.flags.c_contiguous else "F"
    d = device_array(ary.shape, ary.dtype, order=order)
    if copy:
        _core.memcpy_htod(d.device_ctypes_pointer_value, ary.ctypes.data, ary.nbytes)
    return d
