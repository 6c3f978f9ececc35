"""The ``cuda`` namespace: decorators, device memory, and the kernel-side
names (threadIdx, grid, syncthreads, shared.array, ...).

Kernel-side names are declared once, in the C++ registry (stdlib/Registry.def);
the compiler resolves ``cuda.<name>`` by that key.  The objects this module
hands out for them (for ``from pycuda_jit.cuda import grid``) only carry the
key; calling them on the host is an error.
"""
import os
import sys
import warnings

from . import errors
from . import types
from . import types as _types
from ._lazy import core
from ._inline import is_cost_model
from .types import (  # noqa: F401  numba-cuda exports the type objects here too
    boolean, bool_, b1, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    i1, i2, i4, i8, u1, u2, u4, u8, intp, uintp, intc, uintc, float16, bfloat16, float32,
    float64, f2, f4, f8, float_, double, complex64, complex128, c8, c16, void, none,
    from_dtype, typeof)

__all__ = [
    "jit", "compile_ptx", "compile_ptx_for_current_device", "compile", "compile_all",
    "compile_for_current_device", "backend",
    # host API (memory.py, streams.py, devices.py)
    "to_device", "device_array", "device_array_like", "pinned_array",
    "pinned_array_like", "mapped_array", "mapped_array_like", "managed_array",
    "pinned", "mapped", "as_cuda_array", "is_cuda_array", "from_cuda_array_interface",
    "from_dlpack", "defer_cleanup", "stream", "default_stream",
    "legacy_default_stream", "per_thread_default_stream", "external_stream",
    "event", "event_elapsed_time", "gpus", "select_device", "get_current_device",
    "current_context", "is_float16_supported", "is_bfloat16_supported", "is_fp8_supported", "list_devices", "close", "detect",
    "is_available",
    "synchronize", "profile_start", "profile_stop", "profiling",
    "set_malloc_heap_size", "get_malloc_heap_size",
    "sanitizer_report",
    # External Memory Management (memory_manager.py)
    "set_memory_manager", "BaseCUDAMemoryManager", "HostOnlyCUDAMemoryManager",
    "GetIpcHandleMixin", "MemoryPointer", "MemoryInfo", "open_ipc_array",
    # foreign functions (ffi.py)
    "declare_device", "CUSource", "PTXSource", "LTOIRSource", "CubinSource",
    "FatbinSource", "ObjectSource", "ArchiveSource", "LTOIR", "Cubin", "Fatbin", "Object",
    "Archive",
    # launch-argument hints (args.py), toolkit checks (_versions.py)
    "In", "Out", "InOut", "wrap_arg", "is_supported_version", "cuda_error",
    # run-time switches (config.py)
    "config",
]


class _Intrinsic:
    """A kernel-side name (only meaningful inside @cuda.jit functions)."""

    __slots__ = ("_pcj_intrinsic_",)

    def __init__(self, key):
        self._pcj_intrinsic_ = key

    def __getattr__(self, name):
        key = f"{self._pcj_intrinsic_}.{name}"
        if key in _intrinsic_keys():
            return _Intrinsic(key)
        raise AttributeError(f"'{self._pcj_intrinsic_}' has no attribute '{name}'")

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self._pcj_intrinsic_} can only be used inside a @cuda.jit kernel")

    def __repr__(self):
        return f"<kernel intrinsic {self._pcj_intrinsic_}>"


_keys = None


def _intrinsic_keys():
    global _keys
    if _keys is None:
        _keys = frozenset(core().intrinsic_keys())
    return _keys


# Submodules numba-cuda users import by name (``from pycuda_jit.cuda.random
# import ...``) live in _cuda/ and stand for the package's own modules.
__path__ = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "_cuda")]

# Libraries written on top of the kernel language, imported on first use:
# name -> (module, attribute or None for the module itself).
_LIBRARIES = {
    "random": ("random", None),
    "libdevice": ("cuda.libdevice", None),
    "bf16": ("cuda.bf16", None),
    "fp8": ("cuda.fp8", None),
    "vectorize": ("ufunc", "vectorize"),
    "guvectorize": ("ufunc", "guvectorize"),
    "reduce": ("reduction", "reduce"),
    "Reduce": ("reduction", "Reduce"),
    "transpose": ("transpose", "transpose"),
}


def _vector_types():
    import importlib
    return importlib.import_module(f"{__name__}.vector_types")


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(name)
    if name in _LIBRARIES:
        import importlib
        module, attr = _LIBRARIES[name]
        module = importlib.import_module(f"{__package__}.{module}")
        return module if attr is None else getattr(module, attr)
    if name == "vector_types" or name[-1:] in "1234":
        # CUDA vector types: one constructor object per type, under its
        # numba name and its C aliases (cuda.float32x4 is cuda.float4)
        vector_types = _vector_types()
        if name == "vector_types":
            return vector_types
        if name in vector_types.constructors:
            return vector_types.constructors[name]
    if f"cuda.{name}" in _intrinsic_keys():
        return _Intrinsic(f"cuda.{name}")
    raise AttributeError(f"module 'pycuda_jit.cuda' has no attribute '{name}'")


def __dir__():
    # The kernel-side names (threadIdx, grid, shared, atomic, ...) beside the
    # module's own, for editors and dir(cuda).
    vector_types = _vector_types()
    kernel_side = {k.split(".")[1] for k in _intrinsic_keys() if k.startswith("cuda.")}
    return sorted(set(globals()) | kernel_side | set(_LIBRARIES) |
                  set(vector_types.constructors) | {"vector_types"})


# ---- backend -----------------------------------------------------------------------

_backend_warned = False
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _user_stacklevel():
    """The ``stacklevel`` for warnings.warn, called from the function that
    warns, that names the first frame outside this package: the user's line,
    however many of our functions lie between (Python 3.12's
    ``skip_file_prefixes`` does the same)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def backend():
    """'cuda' or 'cpu': where kernels run (PYCUDA_JIT_BACKEND=cuda|cpu|auto)."""
    global _backend_warned
    try:
        name, reason = core().backend()
    except errors.CudaDriverError:
        raise
    except RuntimeError as e:
        raise errors.CudaSupportError(str(e)) from None
    if name == "cpu" and reason and not _backend_warned:
        _backend_warned = True
        warnings.warn(f"pycuda_jit: no CUDA GPU ({reason}); kernels run on the CPU executor",
                      RuntimeWarning, stacklevel=_user_stacklevel())
    return name


# ---- host API: devices, streams, memory (re-exported) -------------------------------

from .devices import (  # noqa: E402
    gpus, select_device, get_current_device, current_context, is_float16_supported,
    is_bfloat16_supported, is_fp8_supported,
    list_devices, close, detect, is_available, synchronize)
from .streams import (  # noqa: E402
    stream, default_stream, legacy_default_stream, per_thread_default_stream,
    external_stream, event, event_elapsed_time)
from .profiling import profile_start, profile_stop, profiling  # noqa: E402
from .heap import set_malloc_heap_size, get_malloc_heap_size  # noqa: E402
from .memory_manager import (  # noqa: E402
    set_memory_manager, BaseCUDAMemoryManager, HostOnlyCUDAMemoryManager, GetIpcHandleMixin,
    MemoryPointer, MemoryInfo)
from .ipc import open_ipc_array  # noqa: E402
from .ffi import (  # noqa: E402
    declare_device, ForeignFunction, LinkableCode, CUSource, PTXSource, LTOIRSource,
    CubinSource, FatbinSource, ObjectSource, ArchiveSource, LTOIR, Cubin, Fatbin, Object,
    Archive)
from .args import In, Out, InOut, wrap_arg  # noqa: E402
from .config import config  # noqa: E402
from . import cudadrv as driver  # noqa: E402,F401  numba's cuda.driver memory functions
from . import devices  # noqa: E402,F401  numba's cuda.devices (get_context, gpus, reset)
from ._versions import is_supported_version, cuda_error  # noqa: E402
from .memory import (  # noqa: E402
    to_device, device_array, device_array_like, pinned_array, pinned_array_like,
    mapped_array, mapped_array_like, managed_array, pinned, mapped, as_cuda_array,
    is_cuda_array, from_cuda_array_interface, from_dlpack, defer_cleanup)


# ---- compilation ---------------------------------------------------------------------

_Kernel = None


def _kernel_class():
    """The Python face of _core.Dispatcher (created on first use)."""
    global _Kernel
    if _Kernel is None:
        base = core().Dispatcher
        from ._kernel_api import BySignature, KernelApi

        class Kernel(KernelApi, base):
            """A @cuda.jit kernel; launch with kernel[griddim, blockdim](*args)."""

            # Called from another kernel, a kernel is a device function
            # (as in numba-cuda): the compiler's resolver reads this.
            # (_pcj_device_function_ marks device functions only: the AOT
            # tool and cuda.reduce tell them from kernels by it.)
            @property
            def _pcj_kernel_function_(self):
                return self.py_func

            @property
            def extensions(self):
                """Objects whose prepare_args(ty, val, stream=, retr=) sees
                every argument at each launch (args.py)."""
                from .args import extensions_of
                return extensions_of(self)

            def compile(self, signature):
                """Compile for a signature: a string, a signature object
                (``void(float32[:], int32)``) or a tuple of argument types."""
                return super().compile(_types.signature_text(signature))

            def _which(self, signature):
                # A signature object or a tuple of argument types names the
                # specialization by its signature text.
                if isinstance(signature, _types.Signature):
                    signature = signature.args
                if isinstance(signature, tuple) and all(
                        isinstance(t, _types.Type) for t in signature):
                    return "(" + ", ".join(map(str, signature)) + ") -> none"
                return None if signature is None else str(signature)

            def _per_signature(self, stage, signature, cc=None):
                if cc is not None:
                    cc = tuple(cc)
                if signature is not None:
                    # Types as the compiler reads them: the extension
                    # matches them to a specialization (records included).
                    which = signature
                    if not isinstance(signature, str):
                        which = _types.signature_text(signature)
                    return self._dump(stage, which, cc)
                # Keyed by signature string; a tuple of argument types (as
                # numba-cuda keys it) finds its entry too.
                return BySignature(self, {sig: self._dump(stage, i, cc)
                                          for i, sig in enumerate(self.signatures)})

            # Text no longer in memory (after a disk-cache hit, or a stage
            # PYCUDA_JIT_DUMP did not keep) is compiled again on demand: the
            # same text the first compile gave.

            def inspect_llvm(self, signature=None):
                """LLVM IR before LLVM's optimization (dict signature -> text
                without a signature)."""
                return self._per_signature("llvm", signature)

            def inspect_asm(self, signature=None, cc=None):
                """PTX (dict signature -> text without a signature): for the
                GPU the kernel runs on, or for compute capability ``cc``
                (``(major, minor)``; on the CPU executor (9, 0) by default).
                Needs no GPU."""
                return self._per_signature("ptx", signature, cc)

            def inspect_lto_ptx(self, signature=None, cc=None):
                """numba-cuda's PTX after link-time optimization: here the
                kernel's PTX (inspect_asm), which LLVM optimized as one
                module with libdevice; foreign code is not in it."""
                return self.inspect_asm(signature, cc)

            def inspect_sass(self, signature=None, cc=None):
                """SASS, the GPU's machine code (dict signature -> text
                without a signature): inspect_asm's PTX for ``cc`` (default:
                the current GPU's, or 9.0 on the CPU executor) linked by
                nvJitLink and disassembled by nvdisasm (or cuobjdump) from
                the CUDA toolkit or NVIDIA's pip wheels
                (``pip install nvidia-cuda-nvdisasm``)."""
                from .profiling import disassemble
                if cc is None:
                    cc = (get_current_device().compute_capability
                          if backend() == "cuda" else (9, 0))
                cc = tuple(cc)

                def sass(ptx):
                    return disassemble(core().link_ptx(ptx, cc[0], cc[1]))
                asm = self.inspect_asm(signature, cc)
                if signature is not None:
                    return sass(asm)
                return {sig: sass(ptx) for sig, ptx in asm.items()}

            def inspect_types(self, signature=None, file=None):
                """The typed IR: every value with its type (dict signature ->
                text without a signature).  With ``file`` (numba-cuda's
                form), the text of each specialization, headed by the
                function's name and signature, is written there instead and
                None returned."""
                text = self._per_signature("typed", signature)
                if file is None:
                    return text
                items = [(signature, text)] if signature is not None else text.items()
                for sig, typed in items:
                    print(f"{self.py_func.__qualname__} {sig}", file=file)
                    print("-" * 80, file=file)
                    print(typed, file=file)
                return None

            def inspect_stage(self, stage, signature=None, cc=None):
                """A stage's text: bytecode, cfg, ir, typed, llvm, llvm-opt or
                ptx (``cc`` as for inspect_asm)."""
                return self._per_signature(stage, signature, cc)

            @property
            def stats(self):
                """Facts about the last specialization (a dict: timings, load
                path...), with numba-cuda's ``cache_hits`` / ``cache_misses``
                (signature -> count of disk-cache hits and misses)."""
                from ._kernel_api import KernelStats
                return KernelStats(self)

            def __reduce__(self):
                """Pickles by reference or by value (pycuda_jit/serialize.py)."""
                from . import serialize
                return serialize.reduce_kernel(self)

            def __repr__(self):
                return f"<pycuda_jit kernel {self.py_func.__qualname__}>"

        _Kernel = Kernel
    return _Kernel


def _sanitize_option(sanitize):
    """sanitize= as the text the C++ side parses ("race,init", "all", "0")."""
    if sanitize is None:
        return None
    if isinstance(sanitize, bool):
        return "all" if sanitize else "0"
    if isinstance(sanitize, str):
        return sanitize
    try:
        words = sorted(str(w) for w in sanitize)
    except TypeError:
        raise TypeError("sanitize must be True, False, a string such as 'race,init' or a set "
                        f"of check names, not {type(sanitize).__name__}") from None
    return ",".join(words) if words else "0"


# shared_memory_carveout's names (numba-cuda's): percent of the L1/shared
# memory given to shared memory, -1 the driver's default.
_CARVEOUTS = {"MaxL1": 0, "MaxShared": 100, "default": -1}


def _carveout_option(carveout):
    if carveout is None:
        return None
    if isinstance(carveout, str):
        if carveout not in _CARVEOUTS:
            raise ValueError(f"Invalid carveout value: {carveout!r} (an int from -1 to 100, "
                             "'MaxL1', 'MaxShared' or 'default')")
        return _CARVEOUTS[carveout]
    if isinstance(carveout, bool) or not isinstance(carveout, int):
        raise TypeError(f"shared_memory_carveout must be an int or a string, not {carveout!r}")
    if not -1 <= carveout <= 100:
        raise ValueError(f"shared_memory_carveout must be between -1 and 100, got {carveout}")
    return carveout


def _options(debug, fastmath, opt, lineinfo, cache=False, max_registers=None,
             launch_bounds=None, fmad=None, boundscheck=None, cpu_timeout=None,
             sanitize=None, shared_memory_carveout=None, dbg_optnone=False):
    if not isinstance(fastmath, (bool, type(None))):
        try:
            fastmath = frozenset(fastmath)  # {"contract", "afn", ...}
        except TypeError:
            pass  # _core's option table names the option
    if isinstance(launch_bounds, list):
        launch_bounds = tuple(launch_bounds)
    if isinstance(launch_bounds, tuple) and len(launch_bounds) > 3:
        raise ValueError(f"Got {len(launch_bounds)} launch bounds: {tuple(launch_bounds)}; "
                         "launch_bounds is max_threads or (max_threads, min_blocks"
                         "[, max_cluster_rank])")
    opt = 3 if opt is True else (0 if opt is False else int(opt))
    # opt=False (0) also turns contraction off unless fmad= or fastmath
    # allows it: numba-cuda's unoptimized code has no fused multiply-adds.
    contracting = fastmath is True or (isinstance(fastmath, frozenset)
                                       and "contract" in fastmath)
    if fmad is None and opt == 0 and not contracting:
        fmad = False
    return {"debug": bool(debug), "fastmath": fastmath if fastmath is not None else False,
            "fmad": None if fmad is None else bool(fmad),
            "opt": opt,
            "lineinfo": bool(lineinfo), "cache": bool(cache),
            "max_registers": max_registers, "launch_bounds": launch_bounds,
            "boundscheck": None if boundscheck is None else bool(boundscheck),
            "cpu_timeout": cpu_timeout, "sanitize": _sanitize_option(sanitize),
            "shared_memory_carveout": _carveout_option(shared_memory_carveout),
            "_dbg_optnone": bool(dbg_optnone)}


def _inline_mode(inline):
    """cuda.jit's inline= as kept on a function: "always", "never" or the
    cost-model function."""
    if is_cost_model(inline):
        return inline
    return "always" if inline in (True, "always") else "never"


class DeviceFunction:
    """A function compiled into the kernels that call it
    (``@cuda.jit(device=True)``); specialized per argument types."""

    def __init__(self, func, inline, signatures=(), options=None):
        if inline not in (False, True, "never", "always") and not is_cost_model(inline):
            raise ValueError("inline must be 'always', 'never', True, False or a "
                             "cost-model function")
        for s in signatures:
            core().parse_signature(s)  # SignatureError now, not at a call
        self._pcj_device_function_ = func
        # "always", "never", or a cost-model function asked per caller
        # (_inline.py).
        self._pcj_inline_ = _inline_mode(inline)
        # Explicit signatures: calls pick one (as kernels do) and convert
        # their arguments and result to its types.
        self._pcj_signatures_ = tuple(signatures)
        # cuda.jit's options, for inspect_asm (calls compile the function
        # with the calling kernel's options).
        self._pcj_options = options or {}
        self.py_func = func
        self.__name__ = func.__name__
        self.__qualname__ = func.__qualname__
        self.__doc__ = func.__doc__

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"device function '{self.__qualname__}' can only be called from a "
                           "kernel or another device function")

    def __getitem__(self, config):
        raise RuntimeError(f"Cannot compile a device function as a kernel: "
                           f"'{self.__qualname__}' is cuda.jit(device=True); launch a "
                           "kernel (cuda.jit without device=True) that calls it")

    def inspect_sass(self, signature=None, cc=None):
        raise RuntimeError("Cannot inspect SASS of a device function: it has no machine "
                           "code of its own; inspect_asm() gives its PTX, and the "
                           "inspect_sass() of a kernel calling it its code there")

    def inspect_asm(self, signature=None, cc=None):
        """The PTX of this function compiled on its own with its cuda.jit
        options, as compile_ptx(device=True) makes it, for ``signature``
        (dict signature -> text for the declared signatures without one)."""
        from ._compile_api import device_function_ptx
        if signature is not None:
            return device_function_ptx(self, signature, cc)
        return {s: device_function_ptx(self, s, cc) for s in self._pcj_signatures_}

    def inspect_llvm(self, signature=None, cc=None):
        """The LLVM IR of this function compiled on its own, as inspect_asm
        compiles it (dict signature -> text without ``signature``)."""
        from ._compile_api import device_function_ptx
        if signature is not None:
            return device_function_ptx(self, signature, cc, stage="llvm")
        return {s: device_function_ptx(self, s, cc, stage="llvm")
                for s in self._pcj_signatures_}

    @property
    def signatures(self):
        """The declared signatures, as given to cuda.jit (the keys of
        inspect_asm() / inspect_llvm()); empty when calls specialize it."""
        return list(self._pcj_signatures_)

    def __reduce__(self):
        from . import serialize
        return serialize.reduce_device_function(self)

    def __repr__(self):
        return f"<pycuda_jit device function {self.__qualname__}>"


def jit(func_or_sig=None, device=False, debug=False, fastmath=False, opt=3,
        lineinfo=False, cache=False, inline="never", max_registers=None,
        launch_bounds=None, fmad=None, boundscheck=None, cpu_timeout=None, sanitize=None,
        link=None, lto=False, forceinline=False, shared_memory_carveout=None,
        _dbg_optnone=False, **kwargs):
    """Compile a Python function into a CUDA kernel.

    ``@cuda.jit`` compiles lazily, once per distinct argument types;
    ``@cuda.jit("void(float32[:], float32)")`` (or a list of signatures)
    compiles eagerly.  Array accesses are bounds-checked on the CPU executor
    (an out-of-bounds index raises KernelIndexError) and, with ``debug=True``,
    on the GPU; ``boundscheck=True/False`` forces the checks on or off on
    both (``PYCUDA_JIT_BOUNDSCHECK=1/0`` overrides everything).
    ``cpu_timeout`` (seconds; default ``PYCUDA_JIT_CPU_TIMEOUT``, else none)
    stops a CPU-executor launch that runs longer with KernelTimeoutError;
    Ctrl-C stops one with KeyboardInterrupt.
    ``sanitize`` (default ``PYCUDA_JIT_SANITIZE``, else off): the CPU
    executor checks every access of the kernel: True for all checks, or some
    of "race", "init", "bounds", "sync" (a comma-separated string or a set);
    a finding raises a KernelSanitizerError subclass (KernelRaceError,
    KernelUninitializedReadError, KernelUseAfterFreeError) and
    ``cuda.sanitizer_report()`` lists them all.  Ignored on the GPU (use
    compute-sanitizer there).
    ``device=True`` makes a device function, callable from kernels and other
    device functions (``inline="always"`` forces inlining, also of a kernel
    that another kernel calls).  ``cache=True``
    (or ``PYCUDA_JIT_CACHE=1``) keeps compiled kernels on disk, keyed by
    everything they depend on.  ``fastmath`` is True or a set of LLVM flags
    (contract, afn, arcp, nsz, ninf, nnan, reassoc); ``max_registers`` and
    ``launch_bounds=(max_threads[, min_blocks[, max_cluster_rank]])`` bound
    register use (the cluster rank: compute capability 9.0 and later).
    ``fmad`` (default True, or ``PYCUDA_JIT_FMAD``): ``x * y + z`` may become
    one fused multiply-add, like nvcc's ``--fmad``; False rounds every
    operation separately (docs/language.md, "Floating-point contraction").
    ``link``: CUDA C/C++, PTX, LTO-IR, cubin, fatbin, object or library
    code (paths, or ``cuda.CUSource(...)`` objects) linked with the kernel,
    defining the functions of ``cuda.declare_device`` (ffi.py; on the CPU
    executor only CUDA C, compiled for the host).
    ``forceinline=True`` is ``inline="always"`` (both mark the function
    LLVM ``alwaysinline``).  ``shared_memory_carveout`` (-1..100 percent,
    "MaxL1", "MaxShared" or "default") is the GPU's preferred split of L1
    and shared memory for the kernel (no effect on the CPU executor).
    ``_dbg_optnone=True`` (numba-cuda's private debugging flag) with
    ``debug=True``: LLVM leaves the kernel and its device functions
    unoptimized (``optnone noinline``) whatever ``opt`` says.
    """
    if forceinline:
        inline = "always"
    if kwargs:
        raise TypeError(f"cuda.jit() got unexpected options: {', '.join(sorted(kwargs))}")
    # numba's cost-model functions (inline=callable): asked where a
    # function calls this one (_inline.py).
    if inline not in (False, True, "never", "always") and not is_cost_model(inline):
        raise ValueError("inline must be 'always', 'never', True, False or a "
                         "cost-model function")
    # A signature object (float32(float32)) is callable too: not a function.
    is_function = (callable(func_or_sig) and not isinstance(func_or_sig, (str, list, tuple))
                   and not isinstance(func_or_sig, _types.Type))
    opts = _options(debug, fastmath, opt, lineinfo, cache, max_registers, launch_bounds,
                    fmad, boundscheck, cpu_timeout, sanitize, shared_memory_carveout,
                    _dbg_optnone)
    _warn_option_conflicts(opts)
    if device:
        if link:
            raise NotImplementedError(
                "link= on a device function is not supported yet: give it to "
                "cuda.declare_device(..., link=) or to the kernel's cuda.jit(link=)")
        if is_function:
            return DeviceFunction(func_or_sig, inline, options=opts)
        # Without signatures, a device function is specialized per call
        # site's argument types; with them, calls convert to one of them.
        sigs = _signature_list(func_or_sig)
        return lambda func: DeviceFunction(func, inline, sigs, opts)
    # lto=True: the kernel also goes through libNVVM to LTO-IR, which
    # nvJitLink optimizes with the foreign LTO-IR and CUDA C++ (inlined);
    # no change on the CPU executor (docs/ffi section of docs/language.md).
    if lto:
        opts["lto"] = True
    if link:
        from .ffi import LinkList
        opts["link"] = LinkList(link)
    inline_mode = _inline_mode(inline)
    if is_function:
        return _build_kernel(func_or_sig, opts, [], inline_mode)
    sigs = _signature_list(func_or_sig)
    return lambda func: _build_kernel(func, opts, sigs, inline_mode)


def _warn_option_conflicts(opts):
    """numba-cuda's InvalidConfigWarnings for cuda.jit options that do not
    go together (the options still apply as given)."""
    if not opts["debug"]:
        return
    if opts["opt"]:
        warnings.warn("debug=True with optimization on (opt=True, the default) is not "
                      "supported by CUDA: cuda-gdb may show wrong values; pass opt=False "
                      "with debug=True", errors.InvalidConfigWarning,
                      stacklevel=_user_stacklevel())
    if opts["lineinfo"]:
        warnings.warn("debug and lineinfo are mutually exclusive: debug=True already "
                      "gives line information with full debug info; use lineinfo=True "
                      "alone for line information without it",
                      errors.InvalidConfigWarning, stacklevel=_user_stacklevel())


def _build_kernel(func, opts, sigs, inline="never"):
    """A kernel for ``func`` with the options of _options(); the explicit
    signatures compiled now."""
    k = _kernel_class()(func, opts)
    # The function's name, docstring and module (functools.update_wrapper's
    # set): help(kernel) and tools reading __doc__ see the function's.
    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(k, attr, getattr(func, attr, None))
    k.__wrapped__ = func
    for s in sigs:  # typed now, code generated on the compile pool
        k._compile_eager(_types.signature_text(s))
    # As written, for `python -m pycuda_jit compile`, inspect_sass() and
    # pickling by value (serialize.py).
    k._pcj_signature_strings = tuple(sigs)
    k._pcj_options = opts
    # Called from another kernel (as a device function), it is inlined
    # there with inline="always" or True, as in numba-cuda.
    k._pcj_inline_ = inline
    return k


def _signature_list(spec):
    """cuda.jit's signature argument as a list of signature texts: None, a
    string, a signature object, a tuple of argument types, or a list of
    those."""
    if spec is None:
        return []
    if isinstance(spec, list) or (isinstance(spec, tuple) and spec
                                  and all(isinstance(s, str) for s in spec)):
        return [_types.signature_text(s) for s in spec]
    try:
        return [_types.signature_text(spec)]
    except TypeError:
        raise TypeError("cuda.jit() expects a function, a signature ('void(float32[:])', "
                        "void(float32[:]) or a tuple of argument types) or a list of "
                        f"signatures, not {spec!r}") from None


from ._compile_api import (  # noqa: E402
    compile_ptx, compile, compile_all, compile_for_current_device)


def compile_stages(pyfunc, sig, stages=("bytecode", "cfg", "ir", "typed", "llvm", "llvm-opt", "ptx"),
                   cc=(9, 0), **options):
    """Compile for the GPU and return {stage: text} for the requested stages
    (bytecode, cfg, ir, typed, llvm, llvm-opt, nvvm, ptx; nvvm: the NVVM IR,
    only with lto or PYCUDA_JIT_VIA_NVVM=1).  Needs no GPU."""
    opts = _options(options.pop("debug", False), options.pop("fastmath", False),
                    options.pop("opt", 3), options.pop("lineinfo", False),
                    max_registers=options.pop("max_registers", None),
                    launch_bounds=options.pop("launch_bounds", None),
                    fmad=options.pop("fmad", None),
                    boundscheck=options.pop("boundscheck", None))
    # Compile read-only arrays as noalias, as launches do when the arguments
    # do not overlap (for inspecting that code without a GPU).
    opts["assume_noalias"] = bool(options.pop("assume_noalias", False))
    if options:
        raise TypeError(f"unexpected options: {', '.join(options)}")
    _ptx, _name, dumps, _ret = core().compile_ptx(pyfunc, _types.signature_text(sig), cc[0],
                                            cc[1], opts, list(stages))
    return {s: dumps[s] for s in stages if s in dumps}


def compile_ptx_for_current_device(pyfunc, sig, **kwargs):
    """compile_ptx for the compute capability of the current device."""
    dev = get_current_device()
    return compile_ptx(pyfunc, sig, cc=dev.compute_capability, **kwargs)


def link_ptx(ptx, cc=(9, 0), lineinfo=False, link=None):
    """PTX -> cubin bytes with nvJitLink (no GPU needed); ``lineinfo`` keeps
    the PTX's line table (``.loc``) in the cubin, as kernels compiled with
    ``lineinfo=True`` or ``debug=True`` are linked.  ``link``: more code to
    link, as cuda.declare_device's ``link=`` (``.cu`` files and CUSource are
    compiled by NVRTC for ``cc``).  ``ptx`` may also be LTO-IR bytes
    (``cuda.compile(..., output="ltoir")``): then the link optimizes it
    with ``link``'s code (nvJitLink -lto; CUDA C++ compiled to LTO-IR), as
    ``cuda.jit(lto=True)`` kernels are linked."""
    from . import ffi
    items = ffi.read_link_items([ffi._check_link_item(x) for x in ffi._link_list(link)])
    return core().link_ptx(ptx, cc[0], cc[1], bool(lineinfo), items)


class SanitizerReport(list):
    """What the CPU executor's sanitizer found (``cuda.sanitizer_report()``):
    a list of :class:`pycuda_jit.errors.SanitizerFinding`, one per kind,
    kernel and source lines, in the order found; ``dropped`` counts findings
    beyond the limit (``PYCUDA_JIT_SANITIZE_LIMIT``, default 1000)."""

    dropped = 0

    def __str__(self):
        if not self:
            return "no sanitizer findings"
        text = "\n\n".join(f"[{i + 1}] {f}" for i, f in enumerate(self))
        if self.dropped:
            text += f"\n\n({self.dropped} more findings beyond the limit)"
        return text


def sanitizer_report(clear=False):
    """Every finding of sanitized CPU-executor launches (``sanitize=`` or
    ``PYCUDA_JIT_SANITIZE``) since the process started or the last
    ``sanitizer_report(clear=True)``, deduplicated by kind, kernel and
    source lines: a :class:`SanitizerReport`."""
    findings, dropped = core().sanitizer_report(bool(clear))
    report = SanitizerReport(findings)
    report.dropped = dropped
    return report
