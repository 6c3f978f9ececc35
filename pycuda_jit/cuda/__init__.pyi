"""Type stubs for ``pycuda_jit.cuda``: the decorators and compile functions,
the host API (re-exported from the modules that define it), and every
kernel-side name of the registry (``stdlib/registry/cuda.def``), which only
has a meaning inside ``@cuda.jit`` functions.

Inside kernels, arrays and scalars are typed ``Any``: their types are the
arguments' at the launch, decided by the compiler.
"""
import os
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any, Literal, TypeVar, overload

import numpy as np

from ..devices import (
    close as close,
    current_context as current_context,
    detect as detect,
    get_current_device as get_current_device,
    gpus as gpus,
    is_available as is_available,
    list_devices as list_devices,
    select_device as select_device,
    synchronize as synchronize,
)
from ..memory import (
    as_cuda_array as as_cuda_array,
    defer_cleanup as defer_cleanup,
    device_array as device_array,
    device_array_like as device_array_like,
    from_cuda_array_interface as from_cuda_array_interface,
    from_dlpack as from_dlpack,
    is_cuda_array as is_cuda_array,
    managed_array as managed_array,
    mapped_array as mapped_array,
    mapped_array_like as mapped_array_like,
    pinned as pinned,
    pinned_array as pinned_array,
    pinned_array_like as pinned_array_like,
    to_device as to_device,
)
from ..profiling import (
    profile_start as profile_start,
    profile_stop as profile_stop,
    profiling as profiling,
)
from .. import types as types
from ..types import (
    Signature as _Signature,
    Type as _Type,
    b1 as b1,
    bool_ as bool_,
    boolean as boolean,
    c8 as c8,
    c16 as c16,
    complex64 as complex64,
    complex128 as complex128,
    f2 as f2,
    f4 as f4,
    f8 as f8,
    float16 as float16,
    float32 as float32,
    float64 as float64,
    from_dtype as from_dtype,
    i1 as i1,
    i2 as i2,
    i4 as i4,
    i8 as i8,
    int8 as int8,
    int16 as int16,
    int32 as int32,
    int64 as int64,
    intc as intc,
    intp as intp,
    none as none,
    typeof as typeof,
    u1 as u1,
    u2 as u2,
    u4 as u4,
    u8 as u8,
    uint8 as uint8,
    uint16 as uint16,
    uint32 as uint32,
    uint64 as uint64,
    uintc as uintc,
    uintp as uintp,
    void as void,
)
from ..streams import (
    default_stream as default_stream,
    event as event,
    event_elapsed_time as event_elapsed_time,
    external_stream as external_stream,
    legacy_default_stream as legacy_default_stream,
    per_thread_default_stream as per_thread_default_stream,
    stream as stream,
)

from . import random as random

__all__: list[str]

_F = TypeVar("_F", bound=Callable[..., Any])
_Shape = int | tuple[int, ...]
_DType = Any  # a NumPy dtype, scalar type (np.float32) or its name
_Half = Any   # a float16 value
_Dims = int | tuple[int] | tuple[int, int] | tuple[int, int, int]
# A signature: "void(float32[::1], int32)", void(float32[::1], int32) (a
# type object's call) or a tuple of argument types (float32[::1], int32).
_Sig = str | _Signature | tuple[_Type, ...]

# ---- compilation ------------------------------------------------------------

class Kernel:
    """A ``@cuda.jit`` kernel; launch with ``kernel[griddim, blockdim](*args)``
    (``kernel[griddim, blockdim, stream, shared_bytes]`` for the full
    configuration).  Compiled once per distinct argument types."""

    py_func: Callable[..., Any]
    """The Python function the kernel was compiled from."""

    @property
    def signatures(self) -> list[str]:
        """The argument types of each compiled specialization."""

    @property
    def stats(self) -> dict[str, Any]:
        """Facts about the last specialization: backend, load path, timings..."""

    def __getitem__(self, config: tuple[Any, ...]) -> Callable[..., None]:
        """The kernel configured with ``[griddim, blockdim(, stream(, shared bytes))]``."""

    def __call__(self, *args: Any) -> None:
        """Launches with the dimensions of the last configuration."""

    def compile(self, signature: _Sig) -> None:
        """Compiles for ``signature`` (e.g. ``"void(float32[::1], float32)"``,
        ``void(float32[::1], float32)`` or ``(float32[::1], float32)``) now."""

    def inspect_types(self, signature: str | None = None) -> Any:
        """The typed IR (dict signature -> text without a signature)."""

    def inspect_llvm(self, signature: str | None = None) -> Any:
        """Optimized LLVM IR (dict signature -> text without a signature)."""

    def inspect_asm(self, signature: str | None = None,
                    cc: tuple[int, int] | None = None) -> Any:
        """PTX for the GPU the kernel runs on, or for ``cc`` (dict signature ->
        text without a signature); needs no GPU."""

    def inspect_sass(self, signature: str | None = None,
                     cc: tuple[int, int] | None = None) -> Any:
        """SASS disassembled by nvdisasm/cuobjdump (dict signature -> text
        without a signature); needs nvJitLink and nvdisasm (pip install
        nvidia-cuda-nvdisasm)."""

    def inspect_stage(self, stage: str, signature: str | None = None,
                      cc: tuple[int, int] | None = None) -> Any:
        """A kept stage dump: bytecode, cfg, ir, typed, llvm, llvm-opt, ptx."""

class DeviceFunction:
    """A ``@cuda.jit(device=True)`` function: compiled into the kernels that
    call it, specialized per argument types; not callable from the host."""

    py_func: Callable[..., Any]
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Only inside kernels and other device functions."""

@overload
def jit(func_or_sig: Callable[..., Any], /) -> Kernel:
    """Compile a Python function into a CUDA kernel (lazily, per argument types)."""
@overload
def jit(func_or_sig: _Sig | list[_Sig] | tuple[str, ...] | None = None, *,
        device: Literal[False] = False, debug: bool = False,
        fastmath: bool | Iterable[str] = False, opt: int | bool = 3,
        lineinfo: bool = False, cache: bool = False, inline: str | bool = "never",
        max_registers: int | None = None, launch_bounds: tuple[int, ...] | int | None = None,
        fmad: bool | None = None, boundscheck: bool | None = None,
        cpu_timeout: float | None = None,
        sanitize: bool | str | None = None,
        link: _Link | None = None, lto: bool = False) -> Callable[[Callable[..., Any]], Kernel]:
    """``@cuda.jit(...)`` with options, or eagerly for signatures such as
    ``"void(float32[::1], float32)"``."""
@overload
def jit(func_or_sig: _Sig | list[_Sig] | tuple[str, ...] | None = None, *,
        device: Literal[True], inline: str | bool = "never",
        **options: Any) -> Callable[[Callable[..., Any]], DeviceFunction]:
    """``@cuda.jit(device=True)``: a device function."""

def compile_ptx(pyfunc: Callable[..., Any], sig: _Sig, debug: bool = False,
                lineinfo: bool = False, device: bool = False,
                fastmath: bool | Iterable[str] = False, cc: tuple[int, int] | None = None,
                opt: bool | int = True, abi: Any = None,
                fmad: bool | None = None) -> tuple[str, _Type]:
    """Compile ``pyfunc`` for ``sig`` to PTX (no GPU needed): ``(ptx, return
    type)``, the return type a type object (``types.none`` for a kernel)."""

def compile_ptx_for_current_device(pyfunc: Callable[..., Any], sig: _Sig,
                                   **kwargs: Any) -> tuple[str, _Type]:
    """compile_ptx for the current GPU's compute capability."""

def compile_stages(pyfunc: Callable[..., Any], sig: _Sig,
                   stages: Iterable[str] = ..., cc: tuple[int, int] = (9, 0),
                   **options: Any) -> dict[str, str]:
    """Compile for the GPU and return ``{stage: text}`` for the requested stages."""

def link_ptx(ptx: str, cc: tuple[int, int] = (9, 0), lineinfo: bool = False,
             link: _Link | None = None) -> bytes:
    """PTX -> cubin with nvJitLink (no GPU needed); ``lineinfo`` keeps the
    PTX's line table (``.loc``) in the cubin; ``link`` more code to link
    (as ``declare_device``'s)."""

class LinkableCode:
    """Code in memory to link with kernels (``link=``)."""
    data: str | bytes
    name: str
    def __init__(self, data: str | bytes, name: str | None = None) -> None: ...

class CUSource(LinkableCode):
    """CUDA C/C++ source, compiled by NVRTC for the kernel's GPU."""
class PTXSource(LinkableCode):
    """PTX text."""
class LTOIRSource(LinkableCode):
    """LTO-IR (NVRTC -dlto, nvcc -dlto)."""
class CubinSource(LinkableCode):
    """A cubin."""
class FatbinSource(LinkableCode):
    """A fat binary."""
class ObjectSource(LinkableCode):
    """A relocatable device object (.o)."""
class ArchiveSource(LinkableCode):
    """A library of device objects (.a)."""

_Link = str | os.PathLike[str] | LinkableCode | Iterable[str | os.PathLike[str] | LinkableCode]

class ForeignFunction:
    """A device function of foreign code, callable from kernels and device
    functions only."""
    name: str
    sig: Any
    abi: str
    def __call__(self, *args: Any) -> Any: ...

def declare_device(name: str, sig: str | Any, link: _Link | None = None,
                   use_cooperative: bool = False, abi: str = "numba") -> ForeignFunction:
    """Declare the device function ``name`` of CUDA C/C++ or PTX code with
    signature ``sig``; ``link`` names the code that defines it.  ``abi``:
    "numba" (``int name(T *result, args...)``) or "c" (``T name(args...)``).
    GPU only."""

class SanitizerReport(list[Any]):
    """``cuda.sanitizer_report()``: the CPU executor's sanitizer findings
    (``pycuda_jit.errors.SanitizerFinding``), deduplicated by kind, kernel
    and source lines; ``dropped`` counts findings beyond the limit."""

    dropped: int

def sanitizer_report(clear: bool = False) -> SanitizerReport:
    """Every finding of sanitized CPU-executor launches (``sanitize=`` or
    ``PYCUDA_JIT_SANITIZE``) since the start or the last ``clear=True``."""

def backend() -> Literal["cuda", "cpu"]:
    """Where kernels run: ``PYCUDA_JIT_BACKEND=cuda|cpu|auto``."""

# ---- kernel side: thread indexing ---------------------------------------------------

class _Dim3:
    """Three coordinates (``.x``, ``.y``, ``.z``) of a special register."""

    x: int
    y: int
    z: int

threadIdx: _Dim3
"""The thread's index in its block."""
blockIdx: _Dim3
"""The block's index in the grid."""
blockDim: _Dim3
"""The block's dimensions, in threads."""
gridDim: _Dim3
"""The grid's dimensions, in blocks."""
laneid: int
"""The thread's lane in its warp (0-31)."""
warpsize: int
"""Threads per warp (32)."""

@overload
def grid(ndim: Literal[1]) -> int:
    """The thread's absolute index in the grid: ``blockIdx * blockDim + threadIdx``."""
@overload
def grid(ndim: Literal[2]) -> tuple[int, int]: ...
@overload
def grid(ndim: Literal[3]) -> tuple[int, int, int]: ...
@overload
def gridsize(ndim: Literal[1]) -> int:
    """Threads in the grid per dimension: ``gridDim * blockDim`` (grid-stride loops)."""
@overload
def gridsize(ndim: Literal[2]) -> tuple[int, int]: ...
@overload
def gridsize(ndim: Literal[3]) -> tuple[int, int, int]: ...

# ---- kernel side: memory ----------------------------------------------------------

class _SharedNamespace:
    """Shared memory: one array per block."""

    @staticmethod
    def array(shape: _Shape, dtype: _DType) -> Any:
        """A block-wide array; ``shape=0`` sizes it from the launch's dynamic
        shared memory bytes."""

class _LocalNamespace:
    """Local memory: one array per thread."""

    @staticmethod
    def array(shape: _Shape, dtype: _DType) -> Any:
        """A per-thread array of constant shape."""

class _ConstNamespace:
    """Constant memory."""

    @staticmethod
    def array_like(ary: np.ndarray[Any, Any]) -> Any:
        """A copy of the host array ``ary`` (a global) in constant memory."""

shared: _SharedNamespace
"""``cuda.shared.array(shape, dtype)``."""
local: _LocalNamespace
"""``cuda.local.array(shape, dtype)``."""
const: _ConstNamespace
"""``cuda.const.array_like(ary)``."""

# ---- kernel side: synchronization -----------------------------------------------

def syncthreads() -> None:
    """Barrier for every thread of the block (``__syncthreads``)."""
def syncthreads_count(predicate: Any) -> int:
    """Barrier; the number of threads whose predicate is true."""
def syncthreads_and(predicate: Any) -> int:
    """Barrier; 1 if the predicate is true for every thread, else 0."""
def syncthreads_or(predicate: Any) -> int:
    """Barrier; 1 if the predicate is true for any thread, else 0."""
def syncwarp(mask: int = 0xFFFFFFFF) -> None:
    """Barrier for the warp's lanes in ``mask``."""
def threadfence() -> None:
    """Memory fence for the device."""
def threadfence_block() -> None:
    """Memory fence for the block."""
def threadfence_system() -> None:
    """Memory fence for the system (host and peer devices)."""
def nanosleep(ns: int) -> None:
    """Sleep for about ``ns`` nanoseconds."""

class _GridGroup:
    """The whole grid, for ``cuda.cg.this_grid().sync()``."""

    def sync(self) -> None:
        """Grid-wide barrier (the kernel is launched cooperatively)."""

class _CooperativeGroups:
    """Cooperative groups."""

    grid_group: type[_GridGroup]
    """The type of ``this_grid()``."""

    @staticmethod
    def this_grid() -> _GridGroup:
        """The grid group of the calling thread."""

cg: _CooperativeGroups
"""``cuda.cg.this_grid()``."""

# ---- kernel side: atomics ---------------------------------------------------------

class _AtomicNamespace:
    """Atomic read-modify-write on ``ary[idx]``; each returns the old value."""

    @staticmethod
    def add(ary: Any, idx: Any, val: Any) -> Any:
        """``ary[idx] += val``."""
    @staticmethod
    def sub(ary: Any, idx: Any, val: Any) -> Any:
        """``ary[idx] -= val``."""
    @staticmethod
    def and_(ary: Any, idx: Any, val: Any) -> Any:
        """``ary[idx] &= val``."""
    @staticmethod
    def or_(ary: Any, idx: Any, val: Any) -> Any:
        """``ary[idx] |= val``."""
    @staticmethod
    def xor(ary: Any, idx: Any, val: Any) -> Any:
        """``ary[idx] ^= val``."""
    @staticmethod
    def inc(ary: Any, idx: Any, val: Any) -> Any:
        """``ary[idx] = 0 if ary[idx] >= val else ary[idx] + 1`` (unsigned)."""
    @staticmethod
    def dec(ary: Any, idx: Any, val: Any) -> Any:
        """``ary[idx] = val if ary[idx] == 0 or ary[idx] > val else ary[idx] - 1``."""
    @staticmethod
    def exch(ary: Any, idx: Any, val: Any) -> Any:
        """``ary[idx] = val``."""
    @staticmethod
    def max(ary: Any, idx: Any, val: Any) -> Any:
        """``ary[idx] = max(ary[idx], val)``."""
    @staticmethod
    def min(ary: Any, idx: Any, val: Any) -> Any:
        """``ary[idx] = min(ary[idx], val)``."""
    @staticmethod
    def nanmax(ary: Any, idx: Any, val: Any) -> Any:
        """Like ``max``, ignoring NaNs (``numpy.nanmax``)."""
    @staticmethod
    def nanmin(ary: Any, idx: Any, val: Any) -> Any:
        """Like ``min``, ignoring NaNs (``numpy.nanmin``)."""
    @staticmethod
    def cas(ary: Any, idx: Any, old: Any, val: Any) -> Any:
        """``ary[idx] = val`` if ``ary[idx] == old``."""
    @staticmethod
    def compare_and_swap(ary: Any, old: Any, val: Any) -> Any:
        """``ary[0] = val`` if ``ary[0] == old``."""

atomic: _AtomicNamespace
"""``cuda.atomic.add(ary, idx, val)`` and the other atomics."""

# ---- kernel side: warps -------------------------------------------------------------

def activemask() -> int:
    """The mask of the warp's lanes executing this instruction."""
def lanemask_lt() -> int:
    """The mask of the lanes below the calling one."""
def shfl_sync(mask: int, value: Any, src_lane: int) -> Any:
    """``value`` from lane ``src_lane``."""
def shfl_up_sync(mask: int, value: Any, delta: int) -> Any:
    """``value`` from lane ``laneid - delta`` (own value below it)."""
def shfl_down_sync(mask: int, value: Any, delta: int) -> Any:
    """``value`` from lane ``laneid + delta`` (own value past the warp)."""
def shfl_xor_sync(mask: int, value: Any, lane_mask: int) -> Any:
    """``value`` from lane ``laneid ^ lane_mask`` (butterfly)."""
def all_sync(mask: int, predicate: Any) -> bool:
    """True if the predicate is true in every lane of ``mask``."""
def any_sync(mask: int, predicate: Any) -> bool:
    """True if the predicate is true in any lane of ``mask``."""
def eq_sync(mask: int, predicate: Any) -> bool:
    """True if the predicate has the same value in every lane of ``mask``."""
def ballot_sync(mask: int, predicate: Any) -> int:
    """The mask of lanes whose predicate is true."""
def match_any_sync(mask: int, value: Any) -> int:
    """The mask of lanes holding the same ``value``."""
def match_all_sync(mask: int, value: Any) -> tuple[int, bool]:
    """``(mask, True)`` if every lane holds the same ``value``, else ``(0, False)``."""

# ---- kernel side: bits and arithmetic -------------------------------------------------

def popc(x: int) -> int:
    """Number of set bits."""
def brev(x: int) -> int:
    """The bits in reverse order."""
def clz(x: int) -> int:
    """Number of leading zero bits."""
def ffs(x: int) -> int:
    """1 + the index of the least significant set bit (0 for 0)."""
def fma(a: float, b: float, c: float) -> float:
    """``a * b + c`` rounded once."""
def cbrt(x: float) -> float:
    """Cube root."""
def selp(predicate: Any, a: Any, b: Any) -> Any:
    """``a if predicate else b`` without a branch."""

class _Fp16Namespace:
    """Half-precision (float16) arithmetic."""

    @staticmethod
    def hadd(a: _Half, b: _Half) -> _Half:
        """float16 a + b."""

    @staticmethod
    def hsub(a: _Half, b: _Half) -> _Half:
        """float16 a - b."""

    @staticmethod
    def hmul(a: _Half, b: _Half) -> _Half:
        """float16 a * b."""

    @staticmethod
    def hdiv(a: _Half, b: _Half) -> _Half:
        """float16 a / b."""

    @staticmethod
    def hfma(a: _Half, b: _Half, c: _Half) -> _Half:
        """float16 a * b + c, rounded once."""

    @staticmethod
    def hneg(a: _Half) -> _Half:
        """float16 -a."""

    @staticmethod
    def habs(a: _Half) -> _Half:
        """float16 |a|."""

    @staticmethod
    def hmax(a: _Half, b: _Half) -> _Half:
        """float16 the larger of a and b."""

    @staticmethod
    def hmin(a: _Half, b: _Half) -> _Half:
        """float16 the smaller of a and b."""

    @staticmethod
    def hsqrt(a: _Half) -> _Half:
        """float16 square root."""

    @staticmethod
    def hrsqrt(a: _Half) -> _Half:
        """float16 reciprocal square root."""

    @staticmethod
    def hrcp(a: _Half) -> _Half:
        """float16 reciprocal 1 / a."""

    @staticmethod
    def hexp(a: _Half) -> _Half:
        """float16 e ** a."""

    @staticmethod
    def hexp2(a: _Half) -> _Half:
        """float16 2 ** a."""

    @staticmethod
    def hexp10(a: _Half) -> _Half:
        """float16 10 ** a."""

    @staticmethod
    def hlog(a: _Half) -> _Half:
        """float16 natural logarithm."""

    @staticmethod
    def hlog2(a: _Half) -> _Half:
        """float16 base-2 logarithm."""

    @staticmethod
    def hlog10(a: _Half) -> _Half:
        """float16 base-10 logarithm."""

    @staticmethod
    def hsin(a: _Half) -> _Half:
        """float16 sine."""

    @staticmethod
    def hcos(a: _Half) -> _Half:
        """float16 cosine."""

    @staticmethod
    def hfloor(a: _Half) -> _Half:
        """float16 round down."""

    @staticmethod
    def hceil(a: _Half) -> _Half:
        """float16 round up."""

    @staticmethod
    def htrunc(a: _Half) -> _Half:
        """float16 round toward zero."""

    @staticmethod
    def hrint(a: _Half) -> _Half:
        """float16 round to nearest even."""

    @staticmethod
    def heq(a: _Half, b: _Half) -> bool:
        """float16 a == b."""

    @staticmethod
    def hne(a: _Half, b: _Half) -> bool:
        """float16 a != b."""

    @staticmethod
    def hlt(a: _Half, b: _Half) -> bool:
        """float16 a < b."""

    @staticmethod
    def hle(a: _Half, b: _Half) -> bool:
        """float16 a <= b."""

    @staticmethod
    def hgt(a: _Half, b: _Half) -> bool:
        """float16 a > b."""

    @staticmethod
    def hge(a: _Half, b: _Half) -> bool:
        """float16 a >= b."""

fp16: _Fp16Namespace
"""``cuda.fp16.hadd(a, b)`` and the other float16 functions."""


# ---- libraries written in the kernel language ---------------------------------

def vectorize(ftylist_or_function: Any = (), target: str = "cuda", identity: Any = None,
              cache: bool = False, **options: Any) -> Any:
    """Make a GPU ufunc: ``@vectorize(["float32(float32, float32)", ...])``
    (NumPy broadcasting, scalars, ``out=``, ``stream=``; ``.reduce`` of
    binary ufuncs)."""

def guvectorize(*args: Any, target: str = "cuda", identity: Any = None,
                cache: bool = False, **options: Any) -> Any:
    """Make a generalized GPU ufunc: ``@guvectorize(signatures, "(n)->()")``."""

class Reduce:
    """``Reduce(op)(arr, size=None, res=None, init=0, stream=0)``: reduce a
    1-d host or device array with an associative binary function."""

    def __init__(self, functor: Callable[..., Any]) -> None: ...
    def __call__(self, arr: Any, size: int | None = None, res: Any = None,
                 init: Any = 0, stream: Any = 0) -> Any: ...

reduce = Reduce
