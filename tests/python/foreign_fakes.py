"""Stand-ins for CuPy arrays and torch tensors: the attributes the launch's
fast path reads (ForeignArrays.h) and a `__cuda_array_interface__` built as
the real libraries build it (CuPy: v3 with its current stream, or v2 under
CUPY_CUDA_ARRAY_INTERFACE_EXPORT_VERSION=2; torch: v2, no stream; a tensor
that requires grad is refused by the interface and by DLPack alike).  They
view cuda.mapped_array memory (host memory with a device address), so a
kernel can run on them on either executor.

Each `*_type()` call makes a new class: the extension remembers per type
whether the attributes agreed with the interface, so a test that needs a
fresh verdict uses a fresh type.  The classes claim the packages' module
names ("cupy", "torch"), which is how the extension recognizes them.

Also used by benchmarks/launch_breakdown.py (host-side classification).
"""
import types

import numpy as np


class FakeStream:
    def __init__(self, ptr):
        self.ptr = ptr


def fake_cupy_module():
    """A module object to put at sys.modules["cupy"]: cuda.get_current_stream()
    gives a stream whose `ptr` is `mod.cuda.current` (0: the default)."""
    mod = types.ModuleType("cupy")
    mod.cuda = types.SimpleNamespace(current=0)
    mod.cuda.get_current_stream = lambda: FakeStream(mod.cuda.current)
    return mod


class _Memory:
    def __init__(self, ptr):
        self.ptr = ptr


def device_address(view):
    """The address kernels use for the first element of `view`, a view of a
    cuda.mapped_array (as_strided views made with subok=True keep the class
    whose interface gives it)."""
    host = view.__array_interface__["data"][0]
    cai = getattr(view, "__cuda_array_interface__", None)
    return cai["data"][0] if cai and cai["data"][0] else host


def _c_contiguous(shape, strides, itemsize):
    if 0 in shape:
        return True
    expect = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if s != expect:
                return False
            expect *= n
    return True


def cupy_type(version=3, ptds=False, lie=None):
    """A class like cupy.ndarray.  `cupy_module` (from fake_cupy_module) is
    where its interface reads the current stream, as CuPy does.  `lie(arr)`:
    attributes that disagree with the interface (a dict of overrides for
    'ptr', 'shape', 'strides', 'dtype', given the wrapper), for fallback
    tests."""

    class ndarray:
        cupy_module = None
        interface_reads = 0  # how often the extension asked for the interface

        def __init__(self, view):
            # Attributes are plain values here (CuPy's are C getters), so
            # that a benchmark of the fast path times the extension, not
            # Python properties.
            self._v = view
            self._ptr = device_address(view)
            over = lie(self) if lie else {}
            self.data = _Memory(over.get("ptr", self._ptr))
            self.shape = over.get("shape", view.shape)
            self.strides = over.get("strides", view.strides)
            self.dtype = over.get("dtype", view.dtype)

        @property
        def size(self):
            return self._v.size

        @property
        def __cuda_array_interface__(self):
            type(self).interface_reads += 1
            v = self._v
            desc = {"shape": v.shape, "typestr": v.dtype.str, "descr": v.dtype.descr,
                    "version": version}
            if version == 3:
                s = type(self).cupy_module.cuda.current
                desc["stream"] = s if s else (2 if ptds else 1)
            desc["strides"] = None if _c_contiguous(v.shape, v.strides, v.itemsize) \
                else v.strides
            desc["data"] = (self._ptr if v.size else 0, False)
            return desc

    ndarray.__module__ = "cupy"
    return ndarray


class TorchDtype:
    """torch.float32 and friends: compared by identity, str() 'torch.float32'."""
    _all = {}

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name

    @classmethod
    def named(cls, name):
        if name not in cls._all:
            cls._all[name] = cls(name)
        return cls._all[name]

    @classmethod
    def of(cls, np_dtype):
        return cls.named(np.dtype(np_dtype).name)


def torch_type(lie=None):
    """A class like torch.Tensor (a CUDA tensor that does not require grad
    unless told)."""

    class Tensor:
        is_cuda = True

        def __init__(self, view, requires_grad=False, bfloat16=False):
            # bfloat16: `view` (uint16) holds bfloat16 bits; torch's interface
            # says '<V2' for them, as ml_dtypes does
            self._bf16 = bfloat16
            self._v = view
            self._ptr = device_address(view)
            self.requires_grad = requires_grad
            over = lie(self) if lie else {}
            self._data_ptr = over.get("ptr", self._ptr)
            self._stride = tuple(s // view.itemsize for s in over.get("strides", view.strides))
            self.shape = over.get("shape", view.shape)
            self.dtype = TorchDtype.named("bfloat16") if bfloat16 else \
                TorchDtype.of(over.get("dtype", view.dtype))

        def data_ptr(self):
            return self._data_ptr

        def stride(self):
            return self._stride

        def get_device(self):
            return 0

        @property
        def __cuda_array_interface__(self):
            v = self._v
            if self.requires_grad:
                raise RuntimeError("Can't get __cuda_array_interface__ on Variable that "
                                   "requires grad.")
            strides = None if _c_contiguous(v.shape, v.strides, v.itemsize) else v.strides
            return dict(typestr="<V2" if self._bf16 else v.dtype.str, shape=v.shape,
                        strides=strides,
                        data=(self._ptr if v.size else 0, False), version=2)

        def __dlpack_device__(self):
            # kDLCUDA, or kDLCPU on the CPU executor (the memory is host memory)
            from pycuda_jit import cuda
            return (1, 0) if cuda.backend() == "cpu" else (2, 0)

        def __dlpack__(self, **kw):
            if self.requires_grad:  # torch's refusal
                raise RuntimeError("Can't export tensors that require gradient, use "
                                   "tensor.detach()")
            raise BufferError("the stand-in exports no DLPack capsule")

    Tensor.__module__ = "torch"
    return Tensor


class InterfaceOnly:
    """The same interface with nothing else: what the generic path reads."""

    def __init__(self, obj):
        self.__cuda_array_interface__ = obj.__cuda_array_interface__
