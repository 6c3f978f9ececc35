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
from typing import Any, Literal, Optional, TypeVar, overload

import numpy as np

from ..devices import (
    close as close,
    current_context as current_context,
    detect as detect,
    get_current_device as get_current_device,
    gpus as gpus,
    is_available as is_available,
    is_float16_supported as is_float16_supported,
    is_bfloat16_supported as is_bfloat16_supported,
    is_fp8_supported as is_fp8_supported,
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
    mapped as mapped,
    pinned as pinned,
    pinned_array as pinned_array,
    pinned_array_like as pinned_array_like,
    to_device as to_device,
)
from ..memory_manager import (
    BaseCUDAMemoryManager as BaseCUDAMemoryManager,
    GetIpcHandleMixin as GetIpcHandleMixin,
    HostOnlyCUDAMemoryManager as HostOnlyCUDAMemoryManager,
    MemoryInfo as MemoryInfo,
    MemoryPointer as MemoryPointer,
    set_memory_manager as set_memory_manager,
)
from ..ipc import open_ipc_array as open_ipc_array
from ..transpose import transpose as transpose
from ..profiling import (
    profile_start as profile_start,
    profile_stop as profile_stop,
    profiling as profiling,
)
from ..heap import (
    get_malloc_heap_size as get_malloc_heap_size,
    set_malloc_heap_size as set_malloc_heap_size,
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
    bfloat16 as bfloat16,
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
from ..args import (
    In as In,
    InOut as InOut,
    Out as Out,
    wrap_arg as wrap_arg,
)
from ..config import config as config
from .._versions import (
    cuda_error as cuda_error,
    is_supported_version as is_supported_version,
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
_BF16 = Any   # a bfloat16 value
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

    def inspect_types(self, signature: str | None = None, file: Any = None) -> Any:
        """The typed IR (dict signature -> text without a signature); with
        ``file``, written there and None returned."""

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
        """A kept stage dump: bytecode, cfg, ir, typed, llvm, llvm-opt, nvvm
        (the NVVM IR; only through libNVVM), ptx."""

    def forall(self, ntasks: int, tpb: int = 0, stream: Any = 0,
               sharedmem: int = 0) -> Callable[..., None]:
        """A launcher for ``ntasks`` threads in one dimension
        (``kernel.forall(n)(*args)``; 128 threads per block unless ``tpb``)."""

    @property
    def overloads(self) -> Any:
        """The compiled specializations: signature -> Overload (``cooperative``,
        ``inspect_asm(cc)``...)."""

    @property
    def specializations(self) -> dict[tuple[str, ...], Kernel]:
        """The kernels specialize() made, by argument types."""

    @property
    def specialized(self) -> bool:
        """Whether the kernel compiles only for fixed signatures."""

    def specialize(self, *args: Any) -> Kernel:
        """A kernel compiled now for the types of ``args`` (values or type
        objects), cached per argument types."""

    def get_regs_per_thread(self, signature: _Sig | None = None) -> Any:
        """Registers per thread (GPU; per signature without one)."""

    def get_shared_mem_per_block(self, signature: _Sig | None = None) -> Any:
        """Bytes of static shared memory per block."""

    def get_const_mem_size(self, signature: _Sig | None = None) -> Any:
        """Bytes of constant memory (GPU)."""

    def get_local_mem_per_thread(self, signature: _Sig | None = None) -> Any:
        """Bytes of local memory per thread (GPU)."""

    def get_max_threads_per_block(self, signature: _Sig | None = None) -> Any:
        """The most threads per block a launch can have."""

    @property
    def extensions(self) -> list[Any]:
        """Objects whose ``prepare_args(ty, val, stream=, retr=)`` sees every
        argument at each launch (pycuda_jit/args.py)."""

class DeviceFunction:
    """A ``@cuda.jit(device=True)`` function: compiled into the kernels that
    call it, specialized per argument types; not callable from the host."""

    py_func: Callable[..., Any]
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Only inside kernels and other device functions."""

    def inspect_asm(self, signature: _Sig | None = None,
                    cc: tuple[int, int] | None = None) -> Any:
        """PTX of the function compiled on its own with its cuda.jit options
        (dict signature -> text for the declared signatures without one)."""
    def inspect_llvm(self, signature: _Sig | None = None,
                     cc: tuple[int, int] | None = None) -> Any:
        """LLVM IR of the function compiled on its own, as inspect_asm."""
    @property
    def signatures(self) -> list[_Sig]:
        """The declared signatures (the keys of inspect_asm / inspect_llvm)."""

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
        link: _Link | None = None, lto: bool = False,
        forceinline: bool = False,
        shared_memory_carveout: int | str | None = None,
        _dbg_optnone: bool = False
        ) -> Callable[[Callable[..., Any]], Kernel]:
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
                opt: bool | int = True, abi: str = "numba",
                abi_info: dict[str, str] | None = None,
                fmad: bool | None = None,
                launch_bounds: tuple[int, ...] | int | None = None,
                max_registers: int | None = None,
                forceinline: bool = False) -> tuple[str, _Type]:
    """Compile ``pyfunc`` for ``sig`` to PTX (no GPU needed): ``(ptx, return
    type)``, the return type a type object (``void`` for a kernel; a device
    function's result with ``device=True``, exported with the C ABI)."""

def compile(pyfunc: Callable[..., Any], sig: _Sig, debug: bool = False,
            lineinfo: bool = False, device: bool = True,
            fastmath: bool | Iterable[str] = False, cc: tuple[int, int] | None = None,
            opt: bool | int = True, abi: str = "c", abi_info: dict[str, str] | None = None,
            output: str = "ptx", forceinline: bool = False,
            launch_bounds: tuple[int, ...] | int | None = None) -> tuple[str, _Type]:
    """compile_ptx with numba-cuda's compile() defaults: a device function
    with the C ABI, ``output="ptx"`` (LTO-IR is not supported yet)."""

def compile_all(pyfunc: Callable[..., Any], sig: _Sig, debug: bool = False,
                lineinfo: bool = False, device: bool = True,
                fastmath: bool | Iterable[str] = False, cc: tuple[int, int] | None = None,
                opt: bool | int = True, abi: str = "c",
                abi_info: dict[str, str] | None = None, output: str = "ltoir",
                forceinline: bool = False,
                launch_bounds: tuple[int, ...] | int | None = None
                ) -> tuple[list[str], _Type]:
    """compile() returning ``([code], return type)``."""

def compile_for_current_device(pyfunc: Callable[..., Any], sig: _Sig,
                               **kwargs: Any) -> tuple[str, _Type]:
    """compile() for the current GPU's compute capability."""

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
    @staticmethod
    def from_path(path: str | os.PathLike[str]) -> LinkableCode: ...
    @classmethod
    def from_path_or_obj(cls, path_or_obj: str | os.PathLike[str] | LinkableCode
                         ) -> LinkableCode: ...

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
LTOIR: type[LTOIRSource]
"""numba-cuda's name of LTOIRSource."""
Cubin: type[CubinSource]
"""numba-cuda's name of CubinSource."""
Fatbin: type[FatbinSource]
"""numba-cuda's name of FatbinSource."""
Object: type[ObjectSource]
"""numba-cuda's name of ObjectSource."""
Archive: type[ArchiveSource]
"""numba-cuda's name of ArchiveSource."""

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
    def array(shape: _Shape, dtype: _DType, alignment: Optional[int] = None) -> Any:
        """A block-wide array; ``shape=0`` sizes it from the launch's dynamic
        shared memory bytes; ``alignment`` (a power of two, multiple of 8)
        aligns its first element."""

class _LocalNamespace:
    """Local memory: one array per thread."""

    @staticmethod
    def array(shape: _Shape, dtype: _DType, alignment: Optional[int] = None) -> Any:
        """A per-thread array of constant shape; ``alignment`` (a power of
        two, multiple of 8) aligns its first element."""

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
def all_sync(mask: int, predicate: int | bool) -> bool:
    """True if the predicate is true in every lane of ``mask``."""
def any_sync(mask: int, predicate: int | bool) -> bool:
    """True if the predicate is true in any lane of ``mask``."""
def eq_sync(mask: int, predicate: int | bool) -> bool:
    """True if the predicate has the same value in every lane of ``mask``."""
def ballot_sync(mask: int, predicate: int | bool) -> int:
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

# ---- kernel side: cache-hinted loads and stores ----------------------------------------

def ldca(array: Any, i: Any) -> Any:
    """``array[i]`` loaded with the cache-all hint (PTX ``ld.global.ca``); global arrays of integers or floats."""
def ldcg(array: Any, i: Any) -> Any:
    """``array[i]`` loaded caching in L2, not L1 (``ld.global.cg``)."""
def ldcs(array: Any, i: Any) -> Any:
    """``array[i]`` loaded as streaming data, likely read once (``ld.global.cs``)."""
def ldlu(array: Any, i: Any) -> Any:
    """``array[i]`` loaded as a last use (``ld.global.lu``)."""
def ldcv(array: Any, i: Any) -> Any:
    """``array[i]`` loaded without cached copies, fetched again (``ld.global.cv``)."""
def stcg(array: Any, i: Any, value: Any) -> None:
    """``array[i] = value`` stored caching in L2, not L1 (``st.global.cg``)."""
def stcs(array: Any, i: Any, value: Any) -> None:
    """``array[i] = value`` stored as streaming data (``st.global.cs``)."""
def stwb(array: Any, i: Any, value: Any) -> None:
    """``array[i] = value`` stored write-back (``st.global.wb``, the default policy)."""
def stwt(array: Any, i: Any, value: Any) -> None:
    """``array[i] = value`` stored write-through to system memory (``st.global.wt``)."""

# ---- kernel side: vector types (pycuda_jit.cuda.vector_types) --------------------------

class _VectorType:
    """A CUDA vector type's constructor: ``cuda.float32x3(x, y, z)`` builds the value in a kernel
    from scalars (converted to the element type) and vectors of the same element type whose
    elements add up to its count (``cuda.float32x4(v3, w)``).  The value has the fields
    ``x``, ``y``, ``z``, ``w`` (as many as its count)."""

    aliases: list[str]
    """Its C names (``float4`` for ``float32x4``): the same object in ``cuda``."""

    def __call__(self, *values: Any) -> Any: ...

vector_types: Any
"""``vector_types.vector_types``: numba name -> description (name, base_type, num_elements, attr_names, user_facing_object)."""

int8x1: _VectorType
"""1 x int8 (C: ``char1``)."""
char1: _VectorType
"""``int8x1``."""
int8x2: _VectorType
"""2 x int8 (C: ``char2``)."""
char2: _VectorType
"""``int8x2``."""
int8x3: _VectorType
"""3 x int8 (C: ``char3``)."""
char3: _VectorType
"""``int8x3``."""
int8x4: _VectorType
"""4 x int8 (C: ``char4``)."""
char4: _VectorType
"""``int8x4``."""
int16x1: _VectorType
"""1 x int16 (C: ``short1``)."""
short1: _VectorType
"""``int16x1``."""
int16x2: _VectorType
"""2 x int16 (C: ``short2``)."""
short2: _VectorType
"""``int16x2``."""
int16x3: _VectorType
"""3 x int16 (C: ``short3``)."""
short3: _VectorType
"""``int16x3``."""
int16x4: _VectorType
"""4 x int16 (C: ``short4``)."""
short4: _VectorType
"""``int16x4``."""
int32x1: _VectorType
"""1 x int32 (C: ``int1``)."""
int1: _VectorType
"""``int32x1``."""
int32x2: _VectorType
"""2 x int32 (C: ``int2``)."""
int2: _VectorType
"""``int32x2``."""
int32x3: _VectorType
"""3 x int32 (C: ``int3``)."""
int3: _VectorType
"""``int32x3``."""
int32x4: _VectorType
"""4 x int32 (C: ``int4``)."""
int4: _VectorType
"""``int32x4``."""
int64x1: _VectorType
"""1 x int64 (C: ``long1``, ``longlong1``)."""
long1: _VectorType
"""``int64x1``."""
longlong1: _VectorType
"""``int64x1``."""
int64x2: _VectorType
"""2 x int64 (C: ``long2``, ``longlong2``)."""
long2: _VectorType
"""``int64x2``."""
longlong2: _VectorType
"""``int64x2``."""
int64x3: _VectorType
"""3 x int64 (C: ``long3``, ``longlong3``)."""
long3: _VectorType
"""``int64x3``."""
longlong3: _VectorType
"""``int64x3``."""
int64x4: _VectorType
"""4 x int64 (C: ``long4``, ``longlong4``)."""
long4: _VectorType
"""``int64x4``."""
longlong4: _VectorType
"""``int64x4``."""
uint8x1: _VectorType
"""1 x uint8 (C: ``uchar1``)."""
uchar1: _VectorType
"""``uint8x1``."""
uint8x2: _VectorType
"""2 x uint8 (C: ``uchar2``)."""
uchar2: _VectorType
"""``uint8x2``."""
uint8x3: _VectorType
"""3 x uint8 (C: ``uchar3``)."""
uchar3: _VectorType
"""``uint8x3``."""
uint8x4: _VectorType
"""4 x uint8 (C: ``uchar4``)."""
uchar4: _VectorType
"""``uint8x4``."""
uint16x1: _VectorType
"""1 x uint16 (C: ``ushort1``)."""
ushort1: _VectorType
"""``uint16x1``."""
uint16x2: _VectorType
"""2 x uint16 (C: ``ushort2``)."""
ushort2: _VectorType
"""``uint16x2``."""
uint16x3: _VectorType
"""3 x uint16 (C: ``ushort3``)."""
ushort3: _VectorType
"""``uint16x3``."""
uint16x4: _VectorType
"""4 x uint16 (C: ``ushort4``)."""
ushort4: _VectorType
"""``uint16x4``."""
uint32x1: _VectorType
"""1 x uint32 (C: ``uint1``)."""
uint1: _VectorType
"""``uint32x1``."""
uint32x2: _VectorType
"""2 x uint32 (C: ``uint2``)."""
uint2: _VectorType
"""``uint32x2``."""
uint32x3: _VectorType
"""3 x uint32 (C: ``uint3``)."""
uint3: _VectorType
"""``uint32x3``."""
uint32x4: _VectorType
"""4 x uint32 (C: ``uint4``)."""
uint4: _VectorType
"""``uint32x4``."""
uint64x1: _VectorType
"""1 x uint64 (C: ``ulong1``, ``ulonglong1``)."""
ulong1: _VectorType
"""``uint64x1``."""
ulonglong1: _VectorType
"""``uint64x1``."""
uint64x2: _VectorType
"""2 x uint64 (C: ``ulong2``, ``ulonglong2``)."""
ulong2: _VectorType
"""``uint64x2``."""
ulonglong2: _VectorType
"""``uint64x2``."""
uint64x3: _VectorType
"""3 x uint64 (C: ``ulong3``, ``ulonglong3``)."""
ulong3: _VectorType
"""``uint64x3``."""
ulonglong3: _VectorType
"""``uint64x3``."""
uint64x4: _VectorType
"""4 x uint64 (C: ``ulong4``, ``ulonglong4``)."""
ulong4: _VectorType
"""``uint64x4``."""
ulonglong4: _VectorType
"""``uint64x4``."""
float32x1: _VectorType
"""1 x float32 (C: ``float1``)."""
float1: _VectorType
"""``float32x1``."""
float32x2: _VectorType
"""2 x float32 (C: ``float2``)."""
float2: _VectorType
"""``float32x2``."""
float32x3: _VectorType
"""3 x float32 (C: ``float3``)."""
float3: _VectorType
"""``float32x3``."""
float32x4: _VectorType
"""4 x float32 (C: ``float4``)."""
float4: _VectorType
"""``float32x4``."""
float64x1: _VectorType
"""1 x float64 (C: ``double1``)."""
double1: _VectorType
"""``float64x1``."""
float64x2: _VectorType
"""2 x float64 (C: ``double2``)."""
double2: _VectorType
"""``float64x2``."""
float64x3: _VectorType
"""3 x float64 (C: ``double3``)."""
double3: _VectorType
"""``float64x3``."""
float64x4: _VectorType
"""4 x float64 (C: ``double4``)."""
double4: _VectorType
"""``float64x4``."""

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


class _Bf16Namespace:
    """bfloat16 (``cuda.bf16``): the type ``bfloat16`` and numba-cuda's functions
    (docs/language.md, "bfloat16"); the module also has the C names of cuda_bf16.h."""

    bfloat16: Any
    """The bfloat16 type: ``bfloat16(x)`` converts to nearest even."""

    @staticmethod
    def habs(a: _BF16) -> _BF16:
        """bfloat16 abs."""

    @staticmethod
    def hneg(a: _BF16) -> _BF16:
        """bfloat16 neg."""

    @staticmethod
    def hadd(a: _BF16, b: _BF16) -> _BF16:
        """bfloat16 add."""

    @staticmethod
    def hsub(a: _BF16, b: _BF16) -> _BF16:
        """bfloat16 sub."""

    @staticmethod
    def hmul(a: _BF16, b: _BF16) -> _BF16:
        """bfloat16 mul."""

    @staticmethod
    def hadd_rn(a: _BF16, b: _BF16) -> _BF16:
        """bfloat16 add."""

    @staticmethod
    def hsub_rn(a: _BF16, b: _BF16) -> _BF16:
        """bfloat16 sub."""

    @staticmethod
    def hmul_rn(a: _BF16, b: _BF16) -> _BF16:
        """bfloat16 mul."""

    @staticmethod
    def hdiv(a: _BF16, b: _BF16) -> _BF16:
        """bfloat16 div."""

    @staticmethod
    def hadd_sat(a: _BF16, b: _BF16) -> _BF16:
        """bfloat16 add_sat."""

    @staticmethod
    def hsub_sat(a: _BF16, b: _BF16) -> _BF16:
        """bfloat16 sub_sat."""

    @staticmethod
    def hmul_sat(a: _BF16, b: _BF16) -> _BF16:
        """bfloat16 mul_sat."""

    @staticmethod
    def hfma(a: _BF16, b: _BF16, c: _BF16) -> _BF16:
        """bfloat16 fma."""

    @staticmethod
    def hfma_sat(a: _BF16, b: _BF16, c: _BF16) -> _BF16:
        """bfloat16 fma_sat."""

    @staticmethod
    def hfma_relu(a: _BF16, b: _BF16, c: _BF16) -> _BF16:
        """bfloat16 fma_relu."""

    @staticmethod
    def heq(a: _BF16, b: _BF16) -> bool:
        """bfloat16 eq."""

    @staticmethod
    def hne(a: _BF16, b: _BF16) -> bool:
        """bfloat16 ne."""

    @staticmethod
    def hge(a: _BF16, b: _BF16) -> bool:
        """bfloat16 ge."""

    @staticmethod
    def hgt(a: _BF16, b: _BF16) -> bool:
        """bfloat16 gt."""

    @staticmethod
    def hle(a: _BF16, b: _BF16) -> bool:
        """bfloat16 le."""

    @staticmethod
    def hlt(a: _BF16, b: _BF16) -> bool:
        """bfloat16 lt."""

    @staticmethod
    def hequ(a: _BF16, b: _BF16) -> bool:
        """bfloat16 equ."""

    @staticmethod
    def hneu(a: _BF16, b: _BF16) -> bool:
        """bfloat16 neu."""

    @staticmethod
    def hgeu(a: _BF16, b: _BF16) -> bool:
        """bfloat16 geu."""

    @staticmethod
    def hgtu(a: _BF16, b: _BF16) -> bool:
        """bfloat16 gtu."""

    @staticmethod
    def hleu(a: _BF16, b: _BF16) -> bool:
        """bfloat16 leu."""

    @staticmethod
    def hltu(a: _BF16, b: _BF16) -> bool:
        """bfloat16 ltu."""

    @staticmethod
    def hmax(a: _BF16, b: _BF16) -> _BF16:
        """bfloat16 max."""

    @staticmethod
    def hmin(a: _BF16, b: _BF16) -> _BF16:
        """bfloat16 min."""

    @staticmethod
    def hmax_nan(a: _BF16, b: _BF16) -> _BF16:
        """bfloat16 max_nan."""

    @staticmethod
    def hmin_nan(a: _BF16, b: _BF16) -> _BF16:
        """bfloat16 min_nan."""

    @staticmethod
    def hisnan(a: _BF16) -> bool:
        """bfloat16 isnan."""

    @staticmethod
    def hisinf(a: _BF16) -> int:
        """bfloat16 isinf."""

    @staticmethod
    def htrunc(a: _BF16) -> _BF16:
        """bfloat16 trunc."""

    @staticmethod
    def hceil(a: _BF16) -> _BF16:
        """bfloat16 ceil."""

    @staticmethod
    def hfloor(a: _BF16) -> _BF16:
        """bfloat16 floor."""

    @staticmethod
    def hrint(a: _BF16) -> _BF16:
        """bfloat16 rint."""

    @staticmethod
    def hsqrt(a: _BF16) -> _BF16:
        """bfloat16 sqrt."""

    @staticmethod
    def hrsqrt(a: _BF16) -> _BF16:
        """bfloat16 rsqrt."""

    @staticmethod
    def hrcp(a: _BF16) -> _BF16:
        """bfloat16 rcp."""

    @staticmethod
    def hlog(a: _BF16) -> _BF16:
        """bfloat16 log."""

    @staticmethod
    def hlog2(a: _BF16) -> _BF16:
        """bfloat16 log2."""

    @staticmethod
    def hlog10(a: _BF16) -> _BF16:
        """bfloat16 log10."""

    @staticmethod
    def hcos(a: _BF16) -> _BF16:
        """bfloat16 cos."""

    @staticmethod
    def hsin(a: _BF16) -> _BF16:
        """bfloat16 sin."""

    @staticmethod
    def hexp(a: _BF16) -> _BF16:
        """bfloat16 exp."""

    @staticmethod
    def hexp2(a: _BF16) -> _BF16:
        """bfloat16 exp2."""

    @staticmethod
    def hexp10(a: _BF16) -> _BF16:
        """bfloat16 exp10."""

    @staticmethod
    def htanh(a: _BF16) -> _BF16:
        """bfloat16 tanh."""

    @staticmethod
    def htanh_approx(a: _BF16) -> _BF16:
        """bfloat16 tanh."""

    @staticmethod
    def float32_to_bfloat16(x: Any) -> _BF16:
        """float32 -> bfloat16, rounded to nearest even."""

    @staticmethod
    def float64_to_bfloat16(x: Any) -> _BF16:
        """float64 -> bfloat16, rounded to nearest even."""

    @staticmethod
    def bfloat16_to_float32(x: _BF16) -> Any:
        """bfloat16 -> float32."""

    @staticmethod
    def bfloat16_to_int8_rz(x: _BF16) -> Any:
        """bfloat16 -> int8, rounded toward zero, saturated, NaN -> 0."""

    @staticmethod
    def bfloat16_to_uint8_rz(x: _BF16) -> Any:
        """bfloat16 -> uint8, rounded toward zero, saturated, NaN -> 0."""

    @staticmethod
    def bfloat16_as_int16(x: _BF16) -> int:
        """The bits of a bfloat16 as int16."""

    @staticmethod
    def bfloat16_as_uint16(x: _BF16) -> int:
        """The bits of a bfloat16 as uint16."""

    @staticmethod
    def int16_as_bfloat16(x: int) -> _BF16:
        """The int16 bits as a bfloat16."""

    @staticmethod
    def uint16_as_bfloat16(x: int) -> _BF16:
        """The uint16 bits as a bfloat16."""

    @staticmethod
    def float32_to_bfloat16_rn(x: Any) -> _BF16:
        """float32 -> bfloat16, rounded to nearest even."""

    @staticmethod
    def float32_to_bfloat16_rz(x: Any) -> _BF16:
        """float32 -> bfloat16, rounded toward zero."""

    @staticmethod
    def float32_to_bfloat16_rd(x: Any) -> _BF16:
        """float32 -> bfloat16, rounded down."""

    @staticmethod
    def float32_to_bfloat16_ru(x: Any) -> _BF16:
        """float32 -> bfloat16, rounded up."""

    @staticmethod
    def int16_to_bfloat16_rn(x: Any) -> _BF16:
        """int16 -> bfloat16, rounded to nearest even."""

    @staticmethod
    def bfloat16_to_int16_rn(x: _BF16) -> Any:
        """bfloat16 -> int16, rounded to nearest even, saturated, NaN -> 0."""

    @staticmethod
    def int16_to_bfloat16_rz(x: Any) -> _BF16:
        """int16 -> bfloat16, rounded toward zero."""

    @staticmethod
    def bfloat16_to_int16_rz(x: _BF16) -> Any:
        """bfloat16 -> int16, rounded toward zero, saturated, NaN -> 0."""

    @staticmethod
    def int16_to_bfloat16_rd(x: Any) -> _BF16:
        """int16 -> bfloat16, rounded down."""

    @staticmethod
    def bfloat16_to_int16_rd(x: _BF16) -> Any:
        """bfloat16 -> int16, rounded down, saturated, NaN -> 0."""

    @staticmethod
    def int16_to_bfloat16_ru(x: Any) -> _BF16:
        """int16 -> bfloat16, rounded up."""

    @staticmethod
    def bfloat16_to_int16_ru(x: _BF16) -> Any:
        """bfloat16 -> int16, rounded up, saturated, NaN -> 0."""

    @staticmethod
    def uint16_to_bfloat16_rn(x: Any) -> _BF16:
        """uint16 -> bfloat16, rounded to nearest even."""

    @staticmethod
    def bfloat16_to_uint16_rn(x: _BF16) -> Any:
        """bfloat16 -> uint16, rounded to nearest even, saturated, NaN -> 0."""

    @staticmethod
    def uint16_to_bfloat16_rz(x: Any) -> _BF16:
        """uint16 -> bfloat16, rounded toward zero."""

    @staticmethod
    def bfloat16_to_uint16_rz(x: _BF16) -> Any:
        """bfloat16 -> uint16, rounded toward zero, saturated, NaN -> 0."""

    @staticmethod
    def uint16_to_bfloat16_rd(x: Any) -> _BF16:
        """uint16 -> bfloat16, rounded down."""

    @staticmethod
    def bfloat16_to_uint16_rd(x: _BF16) -> Any:
        """bfloat16 -> uint16, rounded down, saturated, NaN -> 0."""

    @staticmethod
    def uint16_to_bfloat16_ru(x: Any) -> _BF16:
        """uint16 -> bfloat16, rounded up."""

    @staticmethod
    def bfloat16_to_uint16_ru(x: _BF16) -> Any:
        """bfloat16 -> uint16, rounded up, saturated, NaN -> 0."""

    @staticmethod
    def int32_to_bfloat16_rn(x: Any) -> _BF16:
        """int32 -> bfloat16, rounded to nearest even."""

    @staticmethod
    def bfloat16_to_int32_rn(x: _BF16) -> Any:
        """bfloat16 -> int32, rounded to nearest even, saturated, NaN -> 0."""

    @staticmethod
    def int32_to_bfloat16_rz(x: Any) -> _BF16:
        """int32 -> bfloat16, rounded toward zero."""

    @staticmethod
    def bfloat16_to_int32_rz(x: _BF16) -> Any:
        """bfloat16 -> int32, rounded toward zero, saturated, NaN -> 0."""

    @staticmethod
    def int32_to_bfloat16_rd(x: Any) -> _BF16:
        """int32 -> bfloat16, rounded down."""

    @staticmethod
    def bfloat16_to_int32_rd(x: _BF16) -> Any:
        """bfloat16 -> int32, rounded down, saturated, NaN -> 0."""

    @staticmethod
    def int32_to_bfloat16_ru(x: Any) -> _BF16:
        """int32 -> bfloat16, rounded up."""

    @staticmethod
    def bfloat16_to_int32_ru(x: _BF16) -> Any:
        """bfloat16 -> int32, rounded up, saturated, NaN -> 0."""

    @staticmethod
    def uint32_to_bfloat16_rn(x: Any) -> _BF16:
        """uint32 -> bfloat16, rounded to nearest even."""

    @staticmethod
    def bfloat16_to_uint32_rn(x: _BF16) -> Any:
        """bfloat16 -> uint32, rounded to nearest even, saturated, NaN -> 0."""

    @staticmethod
    def uint32_to_bfloat16_rz(x: Any) -> _BF16:
        """uint32 -> bfloat16, rounded toward zero."""

    @staticmethod
    def bfloat16_to_uint32_rz(x: _BF16) -> Any:
        """bfloat16 -> uint32, rounded toward zero, saturated, NaN -> 0."""

    @staticmethod
    def uint32_to_bfloat16_rd(x: Any) -> _BF16:
        """uint32 -> bfloat16, rounded down."""

    @staticmethod
    def bfloat16_to_uint32_rd(x: _BF16) -> Any:
        """bfloat16 -> uint32, rounded down, saturated, NaN -> 0."""

    @staticmethod
    def uint32_to_bfloat16_ru(x: Any) -> _BF16:
        """uint32 -> bfloat16, rounded up."""

    @staticmethod
    def bfloat16_to_uint32_ru(x: _BF16) -> Any:
        """bfloat16 -> uint32, rounded up, saturated, NaN -> 0."""

    @staticmethod
    def int64_to_bfloat16_rn(x: Any) -> _BF16:
        """int64 -> bfloat16, rounded to nearest even."""

    @staticmethod
    def bfloat16_to_int64_rn(x: _BF16) -> Any:
        """bfloat16 -> int64, rounded to nearest even, saturated, NaN -> 0."""

    @staticmethod
    def int64_to_bfloat16_rz(x: Any) -> _BF16:
        """int64 -> bfloat16, rounded toward zero."""

    @staticmethod
    def bfloat16_to_int64_rz(x: _BF16) -> Any:
        """bfloat16 -> int64, rounded toward zero, saturated, NaN -> 0."""

    @staticmethod
    def int64_to_bfloat16_rd(x: Any) -> _BF16:
        """int64 -> bfloat16, rounded down."""

    @staticmethod
    def bfloat16_to_int64_rd(x: _BF16) -> Any:
        """bfloat16 -> int64, rounded down, saturated, NaN -> 0."""

    @staticmethod
    def int64_to_bfloat16_ru(x: Any) -> _BF16:
        """int64 -> bfloat16, rounded up."""

    @staticmethod
    def bfloat16_to_int64_ru(x: _BF16) -> Any:
        """bfloat16 -> int64, rounded up, saturated, NaN -> 0."""

    @staticmethod
    def uint64_to_bfloat16_rn(x: Any) -> _BF16:
        """uint64 -> bfloat16, rounded to nearest even."""

    @staticmethod
    def bfloat16_to_uint64_rn(x: _BF16) -> Any:
        """bfloat16 -> uint64, rounded to nearest even, saturated, NaN -> 0."""

    @staticmethod
    def uint64_to_bfloat16_rz(x: Any) -> _BF16:
        """uint64 -> bfloat16, rounded toward zero."""

    @staticmethod
    def bfloat16_to_uint64_rz(x: _BF16) -> Any:
        """bfloat16 -> uint64, rounded toward zero, saturated, NaN -> 0."""

    @staticmethod
    def uint64_to_bfloat16_rd(x: Any) -> _BF16:
        """uint64 -> bfloat16, rounded down."""

    @staticmethod
    def bfloat16_to_uint64_rd(x: _BF16) -> Any:
        """bfloat16 -> uint64, rounded down, saturated, NaN -> 0."""

    @staticmethod
    def uint64_to_bfloat16_ru(x: Any) -> _BF16:
        """uint64 -> bfloat16, rounded up."""

    @staticmethod
    def bfloat16_to_uint64_ru(x: _BF16) -> Any:
        """bfloat16 -> uint64, rounded up, saturated, NaN -> 0."""


bf16: _Bf16Namespace
"""``cuda.bf16.hadd(a, b)``, ``cuda.bf16.bfloat16(x)`` and the other bfloat16 functions."""


class _Fp8Namespace:
    """fp8 (``cuda.fp8``): the types ``fp8_e4m3``, ``fp8_e5m2``, ``fp8_e8m0``, the enums
    ``saturation_t``, ``fp8_interpretation_t``, ``cudaRoundMode`` and numba-cuda's
    conversion functions (docs/language.md, "fp8")."""

    fp8_e4m3: Any
    """The e4m3 type: ``fp8_e4m3(x)`` rounds to nearest even and saturates."""
    fp8_e5m2: Any
    """The e5m2 type: ``fp8_e5m2(x)`` rounds to nearest even and saturates."""
    fp8_e8m0: Any
    """The e8m0 type: ``fp8_e8m0(x)`` rounds |x| up to a power of two."""
    fp8x2_e4m3: Any
    """numba-cuda's fp8x2_e4m3: ``fp8x2_e4m3()`` (codes 0) or ``fp8x2_e4m3(float32x2 / float64x2)``, lanes converted as ``fp8_e4m3(x)``; ``.__x`` the packed codes."""
    fp8x2_e5m2: Any
    """numba-cuda's fp8x2_e5m2: ``fp8x2_e5m2()`` (codes 0) or ``fp8x2_e5m2(float32x2 / float64x2)``, lanes converted as ``fp8_e5m2(x)``; ``.__x`` the packed codes."""
    fp8x2_e8m0: Any
    """numba-cuda's fp8x2_e8m0: ``fp8x2_e8m0()`` (codes 0) or ``fp8x2_e8m0(float32x2 / float64x2)``, lanes converted as ``fp8_e8m0(x)``; ``.__x`` the packed codes."""
    fp8x4_e4m3: Any
    """numba-cuda's fp8x4_e4m3: ``fp8x4_e4m3()`` (codes 0) or ``fp8x4_e4m3(float32x4 / float64x4)``, lanes converted as ``fp8_e4m3(x)``; ``.__x`` the packed codes."""
    fp8x4_e5m2: Any
    """numba-cuda's fp8x4_e5m2: ``fp8x4_e5m2()`` (codes 0) or ``fp8x4_e5m2(float32x4 / float64x4)``, lanes converted as ``fp8_e5m2(x)``; ``.__x`` the packed codes."""
    fp8x4_e8m0: Any
    """numba-cuda's fp8x4_e8m0: ``fp8x4_e8m0()`` (codes 0) or ``fp8x4_e8m0(float32x4 / float64x4)``, lanes converted as ``fp8_e8m0(x)``; ``.__x`` the packed codes."""

    @staticmethod
    def cvt_float_to_fp8(x: float, saturate: int, interpretation: int) -> int:
        """float32 -> e4m3/e5m2 code (uint8), rounded to nearest even; saturate: saturation_t; interpretation: fp8_interpretation_t."""

    @staticmethod
    def cvt_double_to_fp8(x: float, saturate: int, interpretation: int) -> int:
        """float64 -> e4m3/e5m2 code (uint8), rounded to nearest even."""

    @staticmethod
    def cvt_bfloat16raw_to_fp8(x: Any, saturate: int, interpretation: int) -> int:
        """bfloat16 bits (cvt_e8m0_to_bf16raw's result) -> e4m3/e5m2 code (uint8)."""

    @staticmethod
    def cvt_float2_to_fp8x2(x: Any, saturate: int, interpretation: int) -> int:
        """float32x2 -> two e4m3/e5m2 codes in a uint16 (x in the low byte)."""

    @staticmethod
    def cvt_double2_to_fp8x2(x: Any, saturate: int, interpretation: int) -> int:
        """float64x2 -> two e4m3/e5m2 codes in a uint16 (x in the low byte)."""

    @staticmethod
    def cvt_float_to_e8m0(x: float, saturate: int, rounding: int) -> int:
        """float32 -> e8m0 code (uint8): |x| rounded toward zero or up (constant cudaRoundMode) to a power of two."""

    @staticmethod
    def cvt_double_to_e8m0(x: float, saturate: int, rounding: int) -> int:
        """float64 -> e8m0 code (uint8), through a float32 rounded to odd."""

    @staticmethod
    def cvt_bfloat16raw_to_e8m0(x: Any, saturate: int, rounding: int) -> int:
        """bfloat16 bits -> e8m0 code (uint8)."""

    @staticmethod
    def cvt_float2_to_e8m0x2(x: Any, saturate: int, rounding: int) -> int:
        """float32x2 -> two e8m0 codes in a uint16 (x in the low byte)."""

    @staticmethod
    def cvt_double2_to_e8m0x2(x: Any, saturate: int, rounding: int) -> int:
        """float64x2 -> two e8m0 codes in a uint16 (x in the low byte)."""

    @staticmethod
    def cvt_e8m0_to_bf16raw(x: int) -> Any:
        """e8m0 code -> its bfloat16 bits in .x (a uint16x1; numba-cuda's bfloat16_raw): 2**(x-127), 0xff -> NaN 0x7fff."""


fp8: _Fp8Namespace
"""``cuda.fp8.fp8_e4m3(x)``, ``cuda.fp8.cvt_float_to_fp8(x, sat, fmt)`` and the other fp8 names."""

# ---- cuda.libdevice (BEGIN generated: tools/gen_libdevice_def.py --pyi) ----------
class _LibdeviceNamespace:
    """The functions of ``cuda.libdevice`` (generated by
    tools/gen_libdevice_def.py --pyi from stdlib/registry/libdevice.def)."""

    @staticmethod
    def abs(x0: int) -> int:
        """libdevice __nv_abs: i32(i32)."""

    @staticmethod
    def acos(x0: float) -> float:
        """libdevice __nv_acos: f64(f64)."""

    @staticmethod
    def acosf(x0: float) -> float:
        """libdevice __nv_acosf: f32(f32)."""

    @staticmethod
    def acosh(x0: float) -> float:
        """libdevice __nv_acosh: f64(f64)."""

    @staticmethod
    def acoshf(x0: float) -> float:
        """libdevice __nv_acoshf: f32(f32)."""

    @staticmethod
    def asin(x0: float) -> float:
        """libdevice __nv_asin: f64(f64)."""

    @staticmethod
    def asinf(x0: float) -> float:
        """libdevice __nv_asinf: f32(f32)."""

    @staticmethod
    def asinh(x0: float) -> float:
        """libdevice __nv_asinh: f64(f64)."""

    @staticmethod
    def asinhf(x0: float) -> float:
        """libdevice __nv_asinhf: f32(f32)."""

    @staticmethod
    def atan(x0: float) -> float:
        """libdevice __nv_atan: f64(f64)."""

    @staticmethod
    def atan2(x0: float, x1: float) -> float:
        """libdevice __nv_atan2: f64(f64, f64)."""

    @staticmethod
    def atan2f(x0: float, x1: float) -> float:
        """libdevice __nv_atan2f: f32(f32, f32)."""

    @staticmethod
    def atanf(x0: float) -> float:
        """libdevice __nv_atanf: f32(f32)."""

    @staticmethod
    def atanh(x0: float) -> float:
        """libdevice __nv_atanh: f64(f64)."""

    @staticmethod
    def atanhf(x0: float) -> float:
        """libdevice __nv_atanhf: f32(f32)."""

    @staticmethod
    def brev(x0: int) -> int:
        """libdevice __nv_brev: i32(i32)."""

    @staticmethod
    def brevll(x0: int) -> int:
        """libdevice __nv_brevll: i64(i64)."""

    @staticmethod
    def byte_perm(x0: int, x1: int, x2: int) -> int:
        """libdevice __nv_byte_perm: i32(i32, i32, i32)."""

    @staticmethod
    def cbrt(x0: float) -> float:
        """libdevice __nv_cbrt: f64(f64)."""

    @staticmethod
    def cbrtf(x0: float) -> float:
        """libdevice __nv_cbrtf: f32(f32)."""

    @staticmethod
    def ceil(x0: float) -> float:
        """libdevice __nv_ceil: f64(f64)."""

    @staticmethod
    def ceilf(x0: float) -> float:
        """libdevice __nv_ceilf: f32(f32)."""

    @staticmethod
    def clz(x0: int) -> int:
        """libdevice __nv_clz: i32(i32)."""

    @staticmethod
    def clzll(x0: int) -> int:
        """libdevice __nv_clzll: i32(i64)."""

    @staticmethod
    def copysign(x0: float, x1: float) -> float:
        """libdevice __nv_copysign: f64(f64, f64)."""

    @staticmethod
    def copysignf(x0: float, x1: float) -> float:
        """libdevice __nv_copysignf: f32(f32, f32)."""

    @staticmethod
    def cos(x0: float) -> float:
        """libdevice __nv_cos: f64(f64)."""

    @staticmethod
    def cosf(x0: float) -> float:
        """libdevice __nv_cosf: f32(f32)."""

    @staticmethod
    def cosh(x0: float) -> float:
        """libdevice __nv_cosh: f64(f64)."""

    @staticmethod
    def coshf(x0: float) -> float:
        """libdevice __nv_coshf: f32(f32)."""

    @staticmethod
    def cospi(x0: float) -> float:
        """libdevice __nv_cospi: f64(f64)."""

    @staticmethod
    def cospif(x0: float) -> float:
        """libdevice __nv_cospif: f32(f32)."""

    @staticmethod
    def cyl_bessel_i0(x0: float) -> float:
        """libdevice __nv_cyl_bessel_i0: f64(f64)."""

    @staticmethod
    def cyl_bessel_i0f(x0: float) -> float:
        """libdevice __nv_cyl_bessel_i0f: f32(f32)."""

    @staticmethod
    def cyl_bessel_i1(x0: float) -> float:
        """libdevice __nv_cyl_bessel_i1: f64(f64)."""

    @staticmethod
    def cyl_bessel_i1f(x0: float) -> float:
        """libdevice __nv_cyl_bessel_i1f: f32(f32)."""

    @staticmethod
    def dadd_rd(x0: float, x1: float) -> float:
        """libdevice __nv_dadd_rd: f64(f64, f64)."""

    @staticmethod
    def dadd_rn(x0: float, x1: float) -> float:
        """libdevice __nv_dadd_rn: f64(f64, f64)."""

    @staticmethod
    def dadd_ru(x0: float, x1: float) -> float:
        """libdevice __nv_dadd_ru: f64(f64, f64)."""

    @staticmethod
    def dadd_rz(x0: float, x1: float) -> float:
        """libdevice __nv_dadd_rz: f64(f64, f64)."""

    @staticmethod
    def ddiv_rd(x0: float, x1: float) -> float:
        """libdevice __nv_ddiv_rd: f64(f64, f64)."""

    @staticmethod
    def ddiv_rn(x0: float, x1: float) -> float:
        """libdevice __nv_ddiv_rn: f64(f64, f64)."""

    @staticmethod
    def ddiv_ru(x0: float, x1: float) -> float:
        """libdevice __nv_ddiv_ru: f64(f64, f64)."""

    @staticmethod
    def ddiv_rz(x0: float, x1: float) -> float:
        """libdevice __nv_ddiv_rz: f64(f64, f64)."""

    @staticmethod
    def dmul_rd(x0: float, x1: float) -> float:
        """libdevice __nv_dmul_rd: f64(f64, f64)."""

    @staticmethod
    def dmul_rn(x0: float, x1: float) -> float:
        """libdevice __nv_dmul_rn: f64(f64, f64)."""

    @staticmethod
    def dmul_ru(x0: float, x1: float) -> float:
        """libdevice __nv_dmul_ru: f64(f64, f64)."""

    @staticmethod
    def dmul_rz(x0: float, x1: float) -> float:
        """libdevice __nv_dmul_rz: f64(f64, f64)."""

    @staticmethod
    def double2float_rd(x0: float) -> float:
        """libdevice __nv_double2float_rd: f32(f64)."""

    @staticmethod
    def double2float_rn(x0: float) -> float:
        """libdevice __nv_double2float_rn: f32(f64)."""

    @staticmethod
    def double2float_ru(x0: float) -> float:
        """libdevice __nv_double2float_ru: f32(f64)."""

    @staticmethod
    def double2float_rz(x0: float) -> float:
        """libdevice __nv_double2float_rz: f32(f64)."""

    @staticmethod
    def double2hiint(x0: float) -> int:
        """libdevice __nv_double2hiint: i32(f64)."""

    @staticmethod
    def double2int_rd(x0: float) -> int:
        """libdevice __nv_double2int_rd: i32(f64)."""

    @staticmethod
    def double2int_rn(x0: float) -> int:
        """libdevice __nv_double2int_rn: i32(f64)."""

    @staticmethod
    def double2int_ru(x0: float) -> int:
        """libdevice __nv_double2int_ru: i32(f64)."""

    @staticmethod
    def double2int_rz(x0: float) -> int:
        """libdevice __nv_double2int_rz: i32(f64)."""

    @staticmethod
    def double2ll_rd(x0: float) -> int:
        """libdevice __nv_double2ll_rd: i64(f64)."""

    @staticmethod
    def double2ll_rn(x0: float) -> int:
        """libdevice __nv_double2ll_rn: i64(f64)."""

    @staticmethod
    def double2ll_ru(x0: float) -> int:
        """libdevice __nv_double2ll_ru: i64(f64)."""

    @staticmethod
    def double2ll_rz(x0: float) -> int:
        """libdevice __nv_double2ll_rz: i64(f64)."""

    @staticmethod
    def double2loint(x0: float) -> int:
        """libdevice __nv_double2loint: i32(f64)."""

    @staticmethod
    def double2uint_rd(x0: float) -> int:
        """libdevice __nv_double2uint_rd: i32(f64)."""

    @staticmethod
    def double2uint_rn(x0: float) -> int:
        """libdevice __nv_double2uint_rn: i32(f64)."""

    @staticmethod
    def double2uint_ru(x0: float) -> int:
        """libdevice __nv_double2uint_ru: i32(f64)."""

    @staticmethod
    def double2uint_rz(x0: float) -> int:
        """libdevice __nv_double2uint_rz: i32(f64)."""

    @staticmethod
    def double2ull_rd(x0: float) -> int:
        """libdevice __nv_double2ull_rd: i64(f64)."""

    @staticmethod
    def double2ull_rn(x0: float) -> int:
        """libdevice __nv_double2ull_rn: i64(f64)."""

    @staticmethod
    def double2ull_ru(x0: float) -> int:
        """libdevice __nv_double2ull_ru: i64(f64)."""

    @staticmethod
    def double2ull_rz(x0: float) -> int:
        """libdevice __nv_double2ull_rz: i64(f64)."""

    @staticmethod
    def double_as_longlong(x0: float) -> int:
        """libdevice __nv_double_as_longlong: i64(f64)."""

    @staticmethod
    def drcp_rd(x0: float) -> float:
        """libdevice __nv_drcp_rd: f64(f64)."""

    @staticmethod
    def drcp_rn(x0: float) -> float:
        """libdevice __nv_drcp_rn: f64(f64)."""

    @staticmethod
    def drcp_ru(x0: float) -> float:
        """libdevice __nv_drcp_ru: f64(f64)."""

    @staticmethod
    def drcp_rz(x0: float) -> float:
        """libdevice __nv_drcp_rz: f64(f64)."""

    @staticmethod
    def dsqrt_rd(x0: float) -> float:
        """libdevice __nv_dsqrt_rd: f64(f64)."""

    @staticmethod
    def dsqrt_rn(x0: float) -> float:
        """libdevice __nv_dsqrt_rn: f64(f64)."""

    @staticmethod
    def dsqrt_ru(x0: float) -> float:
        """libdevice __nv_dsqrt_ru: f64(f64)."""

    @staticmethod
    def dsqrt_rz(x0: float) -> float:
        """libdevice __nv_dsqrt_rz: f64(f64)."""

    @staticmethod
    def dsub_rd(x0: float, x1: float) -> float:
        """libdevice __nv_dsub_rd: f64(f64, f64)."""

    @staticmethod
    def dsub_rn(x0: float, x1: float) -> float:
        """libdevice __nv_dsub_rn: f64(f64, f64)."""

    @staticmethod
    def dsub_ru(x0: float, x1: float) -> float:
        """libdevice __nv_dsub_ru: f64(f64, f64)."""

    @staticmethod
    def dsub_rz(x0: float, x1: float) -> float:
        """libdevice __nv_dsub_rz: f64(f64, f64)."""

    @staticmethod
    def erf(x0: float) -> float:
        """libdevice __nv_erf: f64(f64)."""

    @staticmethod
    def erfc(x0: float) -> float:
        """libdevice __nv_erfc: f64(f64)."""

    @staticmethod
    def erfcf(x0: float) -> float:
        """libdevice __nv_erfcf: f32(f32)."""

    @staticmethod
    def erfcinv(x0: float) -> float:
        """libdevice __nv_erfcinv: f64(f64)."""

    @staticmethod
    def erfcinvf(x0: float) -> float:
        """libdevice __nv_erfcinvf: f32(f32)."""

    @staticmethod
    def erfcx(x0: float) -> float:
        """libdevice __nv_erfcx: f64(f64)."""

    @staticmethod
    def erfcxf(x0: float) -> float:
        """libdevice __nv_erfcxf: f32(f32)."""

    @staticmethod
    def erff(x0: float) -> float:
        """libdevice __nv_erff: f32(f32)."""

    @staticmethod
    def erfinv(x0: float) -> float:
        """libdevice __nv_erfinv: f64(f64)."""

    @staticmethod
    def erfinvf(x0: float) -> float:
        """libdevice __nv_erfinvf: f32(f32)."""

    @staticmethod
    def exp(x0: float) -> float:
        """libdevice __nv_exp: f64(f64)."""

    @staticmethod
    def exp10(x0: float) -> float:
        """libdevice __nv_exp10: f64(f64)."""

    @staticmethod
    def exp10f(x0: float) -> float:
        """libdevice __nv_exp10f: f32(f32)."""

    @staticmethod
    def exp2(x0: float) -> float:
        """libdevice __nv_exp2: f64(f64)."""

    @staticmethod
    def exp2f(x0: float) -> float:
        """libdevice __nv_exp2f: f32(f32)."""

    @staticmethod
    def expf(x0: float) -> float:
        """libdevice __nv_expf: f32(f32)."""

    @staticmethod
    def expm1(x0: float) -> float:
        """libdevice __nv_expm1: f64(f64)."""

    @staticmethod
    def expm1f(x0: float) -> float:
        """libdevice __nv_expm1f: f32(f32)."""

    @staticmethod
    def fabs(x0: float) -> float:
        """libdevice __nv_fabs: f64(f64)."""

    @staticmethod
    def fabsf(x0: float) -> float:
        """libdevice __nv_fabsf: f32(f32)."""

    @staticmethod
    def fadd_rd(x0: float, x1: float) -> float:
        """libdevice __nv_fadd_rd: f32(f32, f32)."""

    @staticmethod
    def fadd_rn(x0: float, x1: float) -> float:
        """libdevice __nv_fadd_rn: f32(f32, f32)."""

    @staticmethod
    def fadd_ru(x0: float, x1: float) -> float:
        """libdevice __nv_fadd_ru: f32(f32, f32)."""

    @staticmethod
    def fadd_rz(x0: float, x1: float) -> float:
        """libdevice __nv_fadd_rz: f32(f32, f32)."""

    @staticmethod
    def fast_cosf(x0: float) -> float:
        """libdevice __nv_fast_cosf: f32(f32)."""

    @staticmethod
    def fast_exp10f(x0: float) -> float:
        """libdevice __nv_fast_exp10f: f32(f32)."""

    @staticmethod
    def fast_expf(x0: float) -> float:
        """libdevice __nv_fast_expf: f32(f32)."""

    @staticmethod
    def fast_fdividef(x0: float, x1: float) -> float:
        """libdevice __nv_fast_fdividef: f32(f32, f32)."""

    @staticmethod
    def fast_log10f(x0: float) -> float:
        """libdevice __nv_fast_log10f: f32(f32)."""

    @staticmethod
    def fast_log2f(x0: float) -> float:
        """libdevice __nv_fast_log2f: f32(f32)."""

    @staticmethod
    def fast_logf(x0: float) -> float:
        """libdevice __nv_fast_logf: f32(f32)."""

    @staticmethod
    def fast_powf(x0: float, x1: float) -> float:
        """libdevice __nv_fast_powf: f32(f32, f32)."""

    @staticmethod
    def fast_sincosf(x0: float) -> tuple[float, float]:
        """libdevice __nv_fast_sincosf: void(f32, f32_out, f32_out)."""

    @staticmethod
    def fast_sinf(x0: float) -> float:
        """libdevice __nv_fast_sinf: f32(f32)."""

    @staticmethod
    def fast_tanf(x0: float) -> float:
        """libdevice __nv_fast_tanf: f32(f32)."""

    @staticmethod
    def fast_tanhf(x0: float) -> float:
        """libdevice __nv_fast_tanhf: f32(f32)."""

    @staticmethod
    def fdim(x0: float, x1: float) -> float:
        """libdevice __nv_fdim: f64(f64, f64)."""

    @staticmethod
    def fdimf(x0: float, x1: float) -> float:
        """libdevice __nv_fdimf: f32(f32, f32)."""

    @staticmethod
    def fdiv_rd(x0: float, x1: float) -> float:
        """libdevice __nv_fdiv_rd: f32(f32, f32)."""

    @staticmethod
    def fdiv_rn(x0: float, x1: float) -> float:
        """libdevice __nv_fdiv_rn: f32(f32, f32)."""

    @staticmethod
    def fdiv_ru(x0: float, x1: float) -> float:
        """libdevice __nv_fdiv_ru: f32(f32, f32)."""

    @staticmethod
    def fdiv_rz(x0: float, x1: float) -> float:
        """libdevice __nv_fdiv_rz: f32(f32, f32)."""

    @staticmethod
    def ffs(x0: int) -> int:
        """libdevice __nv_ffs: i32(i32)."""

    @staticmethod
    def ffsll(x0: int) -> int:
        """libdevice __nv_ffsll: i32(i64)."""

    @staticmethod
    def finitef(x0: float) -> int:
        """libdevice __nv_finitef: i32(f32)."""

    @staticmethod
    def float2half_rn(x0: float) -> int:
        """libdevice __nv_float2half_rn: i16(f32)."""

    @staticmethod
    def float2int_rd(x0: float) -> int:
        """libdevice __nv_float2int_rd: i32(f32)."""

    @staticmethod
    def float2int_rn(x0: float) -> int:
        """libdevice __nv_float2int_rn: i32(f32)."""

    @staticmethod
    def float2int_ru(x0: float) -> int:
        """libdevice __nv_float2int_ru: i32(f32)."""

    @staticmethod
    def float2int_rz(x0: float) -> int:
        """libdevice __nv_float2int_rz: i32(f32)."""

    @staticmethod
    def float2ll_rd(x0: float) -> int:
        """libdevice __nv_float2ll_rd: i64(f32)."""

    @staticmethod
    def float2ll_rn(x0: float) -> int:
        """libdevice __nv_float2ll_rn: i64(f32)."""

    @staticmethod
    def float2ll_ru(x0: float) -> int:
        """libdevice __nv_float2ll_ru: i64(f32)."""

    @staticmethod
    def float2ll_rz(x0: float) -> int:
        """libdevice __nv_float2ll_rz: i64(f32)."""

    @staticmethod
    def float2uint_rd(x0: float) -> int:
        """libdevice __nv_float2uint_rd: i32(f32)."""

    @staticmethod
    def float2uint_rn(x0: float) -> int:
        """libdevice __nv_float2uint_rn: i32(f32)."""

    @staticmethod
    def float2uint_ru(x0: float) -> int:
        """libdevice __nv_float2uint_ru: i32(f32)."""

    @staticmethod
    def float2uint_rz(x0: float) -> int:
        """libdevice __nv_float2uint_rz: i32(f32)."""

    @staticmethod
    def float2ull_rd(x0: float) -> int:
        """libdevice __nv_float2ull_rd: i64(f32)."""

    @staticmethod
    def float2ull_rn(x0: float) -> int:
        """libdevice __nv_float2ull_rn: i64(f32)."""

    @staticmethod
    def float2ull_ru(x0: float) -> int:
        """libdevice __nv_float2ull_ru: i64(f32)."""

    @staticmethod
    def float2ull_rz(x0: float) -> int:
        """libdevice __nv_float2ull_rz: i64(f32)."""

    @staticmethod
    def float_as_int(x0: float) -> int:
        """libdevice __nv_float_as_int: i32(f32)."""

    @staticmethod
    def float_as_uint(x0: float) -> int:
        """libdevice __nv_float_as_uint: i32(f32)."""

    @staticmethod
    def floor(x0: float) -> float:
        """libdevice __nv_floor: f64(f64)."""

    @staticmethod
    def floorf(x0: float) -> float:
        """libdevice __nv_floorf: f32(f32)."""

    @staticmethod
    def fma(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_fma: f64(f64, f64, f64)."""

    @staticmethod
    def fma_rd(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_fma_rd: f64(f64, f64, f64)."""

    @staticmethod
    def fma_rn(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_fma_rn: f64(f64, f64, f64)."""

    @staticmethod
    def fma_ru(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_fma_ru: f64(f64, f64, f64)."""

    @staticmethod
    def fma_rz(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_fma_rz: f64(f64, f64, f64)."""

    @staticmethod
    def fmaf(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_fmaf: f32(f32, f32, f32)."""

    @staticmethod
    def fmaf_ieee_rd(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_fmaf_ieee_rd: f32(f32, f32, f32)."""

    @staticmethod
    def fmaf_ieee_rn(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_fmaf_ieee_rn: f32(f32, f32, f32)."""

    @staticmethod
    def fmaf_ieee_ru(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_fmaf_ieee_ru: f32(f32, f32, f32)."""

    @staticmethod
    def fmaf_ieee_rz(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_fmaf_ieee_rz: f32(f32, f32, f32)."""

    @staticmethod
    def fmaf_rd(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_fmaf_rd: f32(f32, f32, f32)."""

    @staticmethod
    def fmaf_rn(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_fmaf_rn: f32(f32, f32, f32)."""

    @staticmethod
    def fmaf_ru(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_fmaf_ru: f32(f32, f32, f32)."""

    @staticmethod
    def fmaf_rz(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_fmaf_rz: f32(f32, f32, f32)."""

    @staticmethod
    def fmax(x0: float, x1: float) -> float:
        """libdevice __nv_fmax: f64(f64, f64)."""

    @staticmethod
    def fmaxf(x0: float, x1: float) -> float:
        """libdevice __nv_fmaxf: f32(f32, f32)."""

    @staticmethod
    def fmin(x0: float, x1: float) -> float:
        """libdevice __nv_fmin: f64(f64, f64)."""

    @staticmethod
    def fminf(x0: float, x1: float) -> float:
        """libdevice __nv_fminf: f32(f32, f32)."""

    @staticmethod
    def fmod(x0: float, x1: float) -> float:
        """libdevice __nv_fmod: f64(f64, f64)."""

    @staticmethod
    def fmodf(x0: float, x1: float) -> float:
        """libdevice __nv_fmodf: f32(f32, f32)."""

    @staticmethod
    def fmul_rd(x0: float, x1: float) -> float:
        """libdevice __nv_fmul_rd: f32(f32, f32)."""

    @staticmethod
    def fmul_rn(x0: float, x1: float) -> float:
        """libdevice __nv_fmul_rn: f32(f32, f32)."""

    @staticmethod
    def fmul_ru(x0: float, x1: float) -> float:
        """libdevice __nv_fmul_ru: f32(f32, f32)."""

    @staticmethod
    def fmul_rz(x0: float, x1: float) -> float:
        """libdevice __nv_fmul_rz: f32(f32, f32)."""

    @staticmethod
    def frcp_rd(x0: float) -> float:
        """libdevice __nv_frcp_rd: f32(f32)."""

    @staticmethod
    def frcp_rn(x0: float) -> float:
        """libdevice __nv_frcp_rn: f32(f32)."""

    @staticmethod
    def frcp_ru(x0: float) -> float:
        """libdevice __nv_frcp_ru: f32(f32)."""

    @staticmethod
    def frcp_rz(x0: float) -> float:
        """libdevice __nv_frcp_rz: f32(f32)."""

    @staticmethod
    def frexp(x0: float) -> tuple[float, int]:
        """libdevice __nv_frexp: f64(f64, i32_out)."""

    @staticmethod
    def frexpf(x0: float) -> tuple[float, int]:
        """libdevice __nv_frexpf: f32(f32, i32_out)."""

    @staticmethod
    def frsqrt_rn(x0: float) -> float:
        """libdevice __nv_frsqrt_rn: f32(f32)."""

    @staticmethod
    def fsqrt_rd(x0: float) -> float:
        """libdevice __nv_fsqrt_rd: f32(f32)."""

    @staticmethod
    def fsqrt_rn(x0: float) -> float:
        """libdevice __nv_fsqrt_rn: f32(f32)."""

    @staticmethod
    def fsqrt_ru(x0: float) -> float:
        """libdevice __nv_fsqrt_ru: f32(f32)."""

    @staticmethod
    def fsqrt_rz(x0: float) -> float:
        """libdevice __nv_fsqrt_rz: f32(f32)."""

    @staticmethod
    def fsub_rd(x0: float, x1: float) -> float:
        """libdevice __nv_fsub_rd: f32(f32, f32)."""

    @staticmethod
    def fsub_rn(x0: float, x1: float) -> float:
        """libdevice __nv_fsub_rn: f32(f32, f32)."""

    @staticmethod
    def fsub_ru(x0: float, x1: float) -> float:
        """libdevice __nv_fsub_ru: f32(f32, f32)."""

    @staticmethod
    def fsub_rz(x0: float, x1: float) -> float:
        """libdevice __nv_fsub_rz: f32(f32, f32)."""

    @staticmethod
    def hadd(x0: int, x1: int) -> int:
        """libdevice __nv_hadd: i32(i32, i32)."""

    @staticmethod
    def half2float(x0: int) -> float:
        """libdevice __nv_half2float: f32(i16)."""

    @staticmethod
    def hiloint2double(x0: int, x1: int) -> float:
        """libdevice __nv_hiloint2double: f64(i32, i32)."""

    @staticmethod
    def hypot(x0: float, x1: float) -> float:
        """libdevice __nv_hypot: f64(f64, f64)."""

    @staticmethod
    def hypotf(x0: float, x1: float) -> float:
        """libdevice __nv_hypotf: f32(f32, f32)."""

    @staticmethod
    def ilogb(x0: float) -> int:
        """libdevice __nv_ilogb: i32(f64)."""

    @staticmethod
    def ilogbf(x0: float) -> int:
        """libdevice __nv_ilogbf: i32(f32)."""

    @staticmethod
    def int2double_rn(x0: int) -> float:
        """libdevice __nv_int2double_rn: f64(i32)."""

    @staticmethod
    def int2float_rd(x0: int) -> float:
        """libdevice __nv_int2float_rd: f32(i32)."""

    @staticmethod
    def int2float_rn(x0: int) -> float:
        """libdevice __nv_int2float_rn: f32(i32)."""

    @staticmethod
    def int2float_ru(x0: int) -> float:
        """libdevice __nv_int2float_ru: f32(i32)."""

    @staticmethod
    def int2float_rz(x0: int) -> float:
        """libdevice __nv_int2float_rz: f32(i32)."""

    @staticmethod
    def int_as_float(x0: int) -> float:
        """libdevice __nv_int_as_float: f32(i32)."""

    @staticmethod
    def isfinited(x0: float) -> int:
        """libdevice __nv_isfinited: i32(f64)."""

    @staticmethod
    def isinfd(x0: float) -> int:
        """libdevice __nv_isinfd: i32(f64)."""

    @staticmethod
    def isinff(x0: float) -> int:
        """libdevice __nv_isinff: i32(f32)."""

    @staticmethod
    def isnand(x0: float) -> int:
        """libdevice __nv_isnand: i32(f64)."""

    @staticmethod
    def isnanf(x0: float) -> int:
        """libdevice __nv_isnanf: i32(f32)."""

    @staticmethod
    def j0(x0: float) -> float:
        """libdevice __nv_j0: f64(f64)."""

    @staticmethod
    def j0f(x0: float) -> float:
        """libdevice __nv_j0f: f32(f32)."""

    @staticmethod
    def j1(x0: float) -> float:
        """libdevice __nv_j1: f64(f64)."""

    @staticmethod
    def j1f(x0: float) -> float:
        """libdevice __nv_j1f: f32(f32)."""

    @staticmethod
    def jn(x0: int, x1: float) -> float:
        """libdevice __nv_jn: f64(i32, f64)."""

    @staticmethod
    def jnf(x0: int, x1: float) -> float:
        """libdevice __nv_jnf: f32(i32, f32)."""

    @staticmethod
    def ldexp(x0: float, x1: int) -> float:
        """libdevice __nv_ldexp: f64(f64, i32)."""

    @staticmethod
    def ldexpf(x0: float, x1: int) -> float:
        """libdevice __nv_ldexpf: f32(f32, i32)."""

    @staticmethod
    def lgamma(x0: float) -> float:
        """libdevice __nv_lgamma: f64(f64)."""

    @staticmethod
    def lgammaf(x0: float) -> float:
        """libdevice __nv_lgammaf: f32(f32)."""

    @staticmethod
    def ll2double_rd(x0: int) -> float:
        """libdevice __nv_ll2double_rd: f64(i64)."""

    @staticmethod
    def ll2double_rn(x0: int) -> float:
        """libdevice __nv_ll2double_rn: f64(i64)."""

    @staticmethod
    def ll2double_ru(x0: int) -> float:
        """libdevice __nv_ll2double_ru: f64(i64)."""

    @staticmethod
    def ll2double_rz(x0: int) -> float:
        """libdevice __nv_ll2double_rz: f64(i64)."""

    @staticmethod
    def ll2float_rd(x0: int) -> float:
        """libdevice __nv_ll2float_rd: f32(i64)."""

    @staticmethod
    def ll2float_rn(x0: int) -> float:
        """libdevice __nv_ll2float_rn: f32(i64)."""

    @staticmethod
    def ll2float_ru(x0: int) -> float:
        """libdevice __nv_ll2float_ru: f32(i64)."""

    @staticmethod
    def ll2float_rz(x0: int) -> float:
        """libdevice __nv_ll2float_rz: f32(i64)."""

    @staticmethod
    def llabs(x0: int) -> int:
        """libdevice __nv_llabs: i64(i64)."""

    @staticmethod
    def llmax(x0: int, x1: int) -> int:
        """libdevice __nv_llmax: i64(i64, i64)."""

    @staticmethod
    def llmin(x0: int, x1: int) -> int:
        """libdevice __nv_llmin: i64(i64, i64)."""

    @staticmethod
    def llrint(x0: float) -> int:
        """libdevice __nv_llrint: i64(f64)."""

    @staticmethod
    def llrintf(x0: float) -> int:
        """libdevice __nv_llrintf: i64(f32)."""

    @staticmethod
    def llround(x0: float) -> int:
        """libdevice __nv_llround: i64(f64)."""

    @staticmethod
    def llroundf(x0: float) -> int:
        """libdevice __nv_llroundf: i64(f32)."""

    @staticmethod
    def log(x0: float) -> float:
        """libdevice __nv_log: f64(f64)."""

    @staticmethod
    def log10(x0: float) -> float:
        """libdevice __nv_log10: f64(f64)."""

    @staticmethod
    def log10f(x0: float) -> float:
        """libdevice __nv_log10f: f32(f32)."""

    @staticmethod
    def log1p(x0: float) -> float:
        """libdevice __nv_log1p: f64(f64)."""

    @staticmethod
    def log1pf(x0: float) -> float:
        """libdevice __nv_log1pf: f32(f32)."""

    @staticmethod
    def log2(x0: float) -> float:
        """libdevice __nv_log2: f64(f64)."""

    @staticmethod
    def log2f(x0: float) -> float:
        """libdevice __nv_log2f: f32(f32)."""

    @staticmethod
    def logb(x0: float) -> float:
        """libdevice __nv_logb: f64(f64)."""

    @staticmethod
    def logbf(x0: float) -> float:
        """libdevice __nv_logbf: f32(f32)."""

    @staticmethod
    def logf(x0: float) -> float:
        """libdevice __nv_logf: f32(f32)."""

    @staticmethod
    def longlong_as_double(x0: int) -> float:
        """libdevice __nv_longlong_as_double: f64(i64)."""

    @staticmethod
    def max(x0: int, x1: int) -> int:
        """libdevice __nv_max: i32(i32, i32)."""

    @staticmethod
    def min(x0: int, x1: int) -> int:
        """libdevice __nv_min: i32(i32, i32)."""

    @staticmethod
    def modf(x0: float) -> tuple[float, float]:
        """libdevice __nv_modf: f64(f64, f64_out)."""

    @staticmethod
    def modff(x0: float) -> tuple[float, float]:
        """libdevice __nv_modff: f32(f32, f32_out)."""

    @staticmethod
    def mul24(x0: int, x1: int) -> int:
        """libdevice __nv_mul24: i32(i32, i32)."""

    @staticmethod
    def mul64hi(x0: int, x1: int) -> int:
        """libdevice __nv_mul64hi: i64(i64, i64)."""

    @staticmethod
    def mulhi(x0: int, x1: int) -> int:
        """libdevice __nv_mulhi: i32(i32, i32)."""

    @staticmethod
    def nearbyint(x0: float) -> float:
        """libdevice __nv_nearbyint: f64(f64)."""

    @staticmethod
    def nearbyintf(x0: float) -> float:
        """libdevice __nv_nearbyintf: f32(f32)."""

    @staticmethod
    def nextafter(x0: float, x1: float) -> float:
        """libdevice __nv_nextafter: f64(f64, f64)."""

    @staticmethod
    def nextafterf(x0: float, x1: float) -> float:
        """libdevice __nv_nextafterf: f32(f32, f32)."""

    @staticmethod
    def norm3d(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_norm3d: f64(f64, f64, f64)."""

    @staticmethod
    def norm3df(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_norm3df: f32(f32, f32, f32)."""

    @staticmethod
    def norm4d(x0: float, x1: float, x2: float, x3: float) -> float:
        """libdevice __nv_norm4d: f64(f64, f64, f64, f64)."""

    @staticmethod
    def norm4df(x0: float, x1: float, x2: float, x3: float) -> float:
        """libdevice __nv_norm4df: f32(f32, f32, f32, f32)."""

    @staticmethod
    def normcdf(x0: float) -> float:
        """libdevice __nv_normcdf: f64(f64)."""

    @staticmethod
    def normcdff(x0: float) -> float:
        """libdevice __nv_normcdff: f32(f32)."""

    @staticmethod
    def normcdfinv(x0: float) -> float:
        """libdevice __nv_normcdfinv: f64(f64)."""

    @staticmethod
    def normcdfinvf(x0: float) -> float:
        """libdevice __nv_normcdfinvf: f32(f32)."""

    @staticmethod
    def popc(x0: int) -> int:
        """libdevice __nv_popc: i32(i32)."""

    @staticmethod
    def popcll(x0: int) -> int:
        """libdevice __nv_popcll: i32(i64)."""

    @staticmethod
    def pow(x0: float, x1: float) -> float:
        """libdevice __nv_pow: f64(f64, f64)."""

    @staticmethod
    def powf(x0: float, x1: float) -> float:
        """libdevice __nv_powf: f32(f32, f32)."""

    @staticmethod
    def powi(x0: float, x1: int) -> float:
        """libdevice __nv_powi: f64(f64, i32)."""

    @staticmethod
    def powif(x0: float, x1: int) -> float:
        """libdevice __nv_powif: f32(f32, i32)."""

    @staticmethod
    def rcbrt(x0: float) -> float:
        """libdevice __nv_rcbrt: f64(f64)."""

    @staticmethod
    def rcbrtf(x0: float) -> float:
        """libdevice __nv_rcbrtf: f32(f32)."""

    @staticmethod
    def rcp64h(x0: float) -> float:
        """libdevice __nv_rcp64h: f64(f64)."""

    @staticmethod
    def remainder(x0: float, x1: float) -> float:
        """libdevice __nv_remainder: f64(f64, f64)."""

    @staticmethod
    def remainderf(x0: float, x1: float) -> float:
        """libdevice __nv_remainderf: f32(f32, f32)."""

    @staticmethod
    def remquo(x0: float, x1: float) -> tuple[float, int]:
        """libdevice __nv_remquo: f64(f64, f64, i32_out)."""

    @staticmethod
    def remquof(x0: float, x1: float) -> tuple[float, int]:
        """libdevice __nv_remquof: f32(f32, f32, i32_out)."""

    @staticmethod
    def rhadd(x0: int, x1: int) -> int:
        """libdevice __nv_rhadd: i32(i32, i32)."""

    @staticmethod
    def rhypot(x0: float, x1: float) -> float:
        """libdevice __nv_rhypot: f64(f64, f64)."""

    @staticmethod
    def rhypotf(x0: float, x1: float) -> float:
        """libdevice __nv_rhypotf: f32(f32, f32)."""

    @staticmethod
    def rint(x0: float) -> float:
        """libdevice __nv_rint: f64(f64)."""

    @staticmethod
    def rintf(x0: float) -> float:
        """libdevice __nv_rintf: f32(f32)."""

    @staticmethod
    def rnorm3d(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_rnorm3d: f64(f64, f64, f64)."""

    @staticmethod
    def rnorm3df(x0: float, x1: float, x2: float) -> float:
        """libdevice __nv_rnorm3df: f32(f32, f32, f32)."""

    @staticmethod
    def rnorm4d(x0: float, x1: float, x2: float, x3: float) -> float:
        """libdevice __nv_rnorm4d: f64(f64, f64, f64, f64)."""

    @staticmethod
    def rnorm4df(x0: float, x1: float, x2: float, x3: float) -> float:
        """libdevice __nv_rnorm4df: f32(f32, f32, f32, f32)."""

    @staticmethod
    def round(x0: float) -> float:
        """libdevice __nv_round: f64(f64)."""

    @staticmethod
    def roundf(x0: float) -> float:
        """libdevice __nv_roundf: f32(f32)."""

    @staticmethod
    def rsqrt(x0: float) -> float:
        """libdevice __nv_rsqrt: f64(f64)."""

    @staticmethod
    def rsqrtf(x0: float) -> float:
        """libdevice __nv_rsqrtf: f32(f32)."""

    @staticmethod
    def sad(x0: int, x1: int, x2: int) -> int:
        """libdevice __nv_sad: i32(i32, i32, i32)."""

    @staticmethod
    def saturatef(x0: float) -> float:
        """libdevice __nv_saturatef: f32(f32)."""

    @staticmethod
    def scalbn(x0: float, x1: int) -> float:
        """libdevice __nv_scalbn: f64(f64, i32)."""

    @staticmethod
    def scalbnf(x0: float, x1: int) -> float:
        """libdevice __nv_scalbnf: f32(f32, i32)."""

    @staticmethod
    def signbitd(x0: float) -> int:
        """libdevice __nv_signbitd: i32(f64)."""

    @staticmethod
    def signbitf(x0: float) -> int:
        """libdevice __nv_signbitf: i32(f32)."""

    @staticmethod
    def sin(x0: float) -> float:
        """libdevice __nv_sin: f64(f64)."""

    @staticmethod
    def sincos(x0: float) -> tuple[float, float]:
        """libdevice __nv_sincos: void(f64, f64_out, f64_out)."""

    @staticmethod
    def sincosf(x0: float) -> tuple[float, float]:
        """libdevice __nv_sincosf: void(f32, f32_out, f32_out)."""

    @staticmethod
    def sincospi(x0: float) -> tuple[float, float]:
        """libdevice __nv_sincospi: void(f64, f64_out, f64_out)."""

    @staticmethod
    def sincospif(x0: float) -> tuple[float, float]:
        """libdevice __nv_sincospif: void(f32, f32_out, f32_out)."""

    @staticmethod
    def sinf(x0: float) -> float:
        """libdevice __nv_sinf: f32(f32)."""

    @staticmethod
    def sinh(x0: float) -> float:
        """libdevice __nv_sinh: f64(f64)."""

    @staticmethod
    def sinhf(x0: float) -> float:
        """libdevice __nv_sinhf: f32(f32)."""

    @staticmethod
    def sinpi(x0: float) -> float:
        """libdevice __nv_sinpi: f64(f64)."""

    @staticmethod
    def sinpif(x0: float) -> float:
        """libdevice __nv_sinpif: f32(f32)."""

    @staticmethod
    def sqrt(x0: float) -> float:
        """libdevice __nv_sqrt: f64(f64)."""

    @staticmethod
    def sqrtf(x0: float) -> float:
        """libdevice __nv_sqrtf: f32(f32)."""

    @staticmethod
    def tan(x0: float) -> float:
        """libdevice __nv_tan: f64(f64)."""

    @staticmethod
    def tanf(x0: float) -> float:
        """libdevice __nv_tanf: f32(f32)."""

    @staticmethod
    def tanh(x0: float) -> float:
        """libdevice __nv_tanh: f64(f64)."""

    @staticmethod
    def tanhf(x0: float) -> float:
        """libdevice __nv_tanhf: f32(f32)."""

    @staticmethod
    def tgamma(x0: float) -> float:
        """libdevice __nv_tgamma: f64(f64)."""

    @staticmethod
    def tgammaf(x0: float) -> float:
        """libdevice __nv_tgammaf: f32(f32)."""

    @staticmethod
    def trunc(x0: float) -> float:
        """libdevice __nv_trunc: f64(f64)."""

    @staticmethod
    def truncf(x0: float) -> float:
        """libdevice __nv_truncf: f32(f32)."""

    @staticmethod
    def uhadd(x0: int, x1: int) -> int:
        """libdevice __nv_uhadd: i32(i32, i32)."""

    @staticmethod
    def uint2double_rn(x0: int) -> float:
        """libdevice __nv_uint2double_rn: f64(i32)."""

    @staticmethod
    def uint2float_rd(x0: int) -> float:
        """libdevice __nv_uint2float_rd: f32(i32)."""

    @staticmethod
    def uint2float_rn(x0: int) -> float:
        """libdevice __nv_uint2float_rn: f32(i32)."""

    @staticmethod
    def uint2float_ru(x0: int) -> float:
        """libdevice __nv_uint2float_ru: f32(i32)."""

    @staticmethod
    def uint2float_rz(x0: int) -> float:
        """libdevice __nv_uint2float_rz: f32(i32)."""

    @staticmethod
    def uint_as_float(x0: int) -> float:
        """libdevice __nv_uint_as_float: f32(i32)."""

    @staticmethod
    def ull2double_rd(x0: int) -> float:
        """libdevice __nv_ull2double_rd: f64(i64)."""

    @staticmethod
    def ull2double_rn(x0: int) -> float:
        """libdevice __nv_ull2double_rn: f64(i64)."""

    @staticmethod
    def ull2double_ru(x0: int) -> float:
        """libdevice __nv_ull2double_ru: f64(i64)."""

    @staticmethod
    def ull2double_rz(x0: int) -> float:
        """libdevice __nv_ull2double_rz: f64(i64)."""

    @staticmethod
    def ull2float_rd(x0: int) -> float:
        """libdevice __nv_ull2float_rd: f32(i64)."""

    @staticmethod
    def ull2float_rn(x0: int) -> float:
        """libdevice __nv_ull2float_rn: f32(i64)."""

    @staticmethod
    def ull2float_ru(x0: int) -> float:
        """libdevice __nv_ull2float_ru: f32(i64)."""

    @staticmethod
    def ull2float_rz(x0: int) -> float:
        """libdevice __nv_ull2float_rz: f32(i64)."""

    @staticmethod
    def ullmax(x0: int, x1: int) -> int:
        """libdevice __nv_ullmax: i64(i64, i64)."""

    @staticmethod
    def ullmin(x0: int, x1: int) -> int:
        """libdevice __nv_ullmin: i64(i64, i64)."""

    @staticmethod
    def umax(x0: int, x1: int) -> int:
        """libdevice __nv_umax: i32(i32, i32)."""

    @staticmethod
    def umin(x0: int, x1: int) -> int:
        """libdevice __nv_umin: i32(i32, i32)."""

    @staticmethod
    def umul24(x0: int, x1: int) -> int:
        """libdevice __nv_umul24: i32(i32, i32)."""

    @staticmethod
    def umul64hi(x0: int, x1: int) -> int:
        """libdevice __nv_umul64hi: i64(i64, i64)."""

    @staticmethod
    def umulhi(x0: int, x1: int) -> int:
        """libdevice __nv_umulhi: i32(i32, i32)."""

    @staticmethod
    def urhadd(x0: int, x1: int) -> int:
        """libdevice __nv_urhadd: i32(i32, i32)."""

    @staticmethod
    def usad(x0: int, x1: int, x2: int) -> int:
        """libdevice __nv_usad: i32(i32, i32, i32)."""

    @staticmethod
    def y0(x0: float) -> float:
        """libdevice __nv_y0: f64(f64)."""

    @staticmethod
    def y0f(x0: float) -> float:
        """libdevice __nv_y0f: f32(f32)."""

    @staticmethod
    def y1(x0: float) -> float:
        """libdevice __nv_y1: f64(f64)."""

    @staticmethod
    def y1f(x0: float) -> float:
        """libdevice __nv_y1f: f32(f32)."""

    @staticmethod
    def yn(x0: int, x1: float) -> float:
        """libdevice __nv_yn: f64(i32, f64)."""

    @staticmethod
    def ynf(x0: int, x1: float) -> float:
        """libdevice __nv_ynf: f32(i32, f32)."""


libdevice: _LibdeviceNamespace
"""``cuda.libdevice.sinf(x)``: every libdevice function by name (docs/language.md)."""
# ---- cuda.libdevice (END generated) ---------------------------------------------


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
