"""numba-cuda's kernel-object API on top of _core.Dispatcher: ``forall``,
``overloads``, ``specialize`` / ``specializations``, and the function
attributes (``get_regs_per_thread`` & co.).

Mixed into the ``Kernel`` class of cuda.py.  Ordinary launches
(``kernel[grid, block](*args)``) run none of this; ``kernel.forall(n)(*args)``
adds one Python call that launches ``kernel[blocks, tpb]``.
"""
import collections

from . import errors
from . import types as _types

# Threads per block of kernel.forall(n) when tpb is not given (numba-cuda
# asks the driver's occupancy calculator; a fixed block of 128 threads runs
# on every GPU and keeps the grid large enough to fill one).
FORALL_THREADS_PER_BLOCK = 128

# CU_FUNC_ATTRIBUTE_* (runtime/CudaTypes.h)
_MAX_THREADS_PER_BLOCK, _SHARED_SIZE_BYTES, _CONST_SIZE_BYTES = 0, 1, 2
_LOCAL_SIZE_BYTES, _NUM_REGS = 3, 4

# The CPU executor's answer for the attributes host code has (the launch
# limit it enforces, the static shared memory it reserves); the others are
# facts of the GPU's machine code.
_CPU_MAX_THREADS_PER_BLOCK = 1024  # MAX_THREADS_PER_BLOCK of its devices


class ForAll:
    """``kernel.forall(ntasks)``: a launch with at least ``ntasks`` threads in
    one dimension (``ceil(ntasks / tpb)`` blocks of ``tpb`` threads)."""

    def __init__(self, kernel, ntasks, tpb, stream, sharedmem):
        ntasks = int(ntasks)
        if ntasks < 0:
            raise ValueError(f"Can't create ForAll with negative task count: {ntasks}")
        self.kernel = kernel
        self.ntasks = ntasks
        self.thread_per_block = int(tpb) or FORALL_THREADS_PER_BLOCK
        self.stream = stream
        self.sharedmem = sharedmem

    def __call__(self, *args):
        if self.ntasks == 0:  # a launch of no blocks is an error on the GPU
            return None
        blocks = (self.ntasks + self.thread_per_block - 1) // self.thread_per_block
        return self.kernel[blocks, self.thread_per_block, self.stream,
                           self.sharedmem](*args)


class Overload:
    """One compiled specialization of a kernel (``kernel.overloads[sig]``)."""

    def __init__(self, kernel, signature):
        self._kernel = kernel
        self.signature = signature

    @property
    def cooperative(self):
        """Whether launches are cooperative (the kernel uses grid sync)."""
        return bool(self._kernel._info(self.signature).get("uses_grid_sync"))

    @property
    def name(self):
        return self._kernel._info(self.signature)["name"]

    def inspect_asm(self, cc=None):
        return self._kernel.inspect_asm(self.signature, cc)

    def inspect_llvm(self):
        return self._kernel.inspect_llvm(self.signature)

    def inspect_sass(self, cc=None):
        return self._kernel.inspect_sass(self.signature, cc)

    def inspect_types(self):
        return self._kernel.inspect_types(self.signature)

    def max_cooperative_grid_blocks(self, blockdim, dynsmem=0):
        """The most blocks of ``blockdim`` threads a cooperative launch (grid
        sync) of this overload can have on the current device.  The CPU
        executor runs any grid cooperatively: its largest grid."""
        if isinstance(blockdim, (tuple, list)):
            threads = 1
            for d in blockdim:
                threads *= int(d)
        else:
            threads = int(blockdim)
        n = self._kernel._max_cooperative_blocks(self.signature, threads, int(dynsmem))
        if n is None:
            from .devices import get_current_device
            return get_current_device().MAX_GRID_DIM_X
        return n

    def __repr__(self):
        return f"<overload of {self._kernel.py_func.__qualname__} for {self.signature}>"


class KernelStats(dict):
    """``kernel.stats``: the last specialization's facts (``_info()``), and
    per signature how its compiled code was found: ``cache_hits`` (loaded
    from the disk cache) and ``cache_misses`` (compiled with ``cache=True``
    but not found), as numba-cuda's counters.  Without ``cache=True`` both
    are empty."""

    def __init__(self, kernel):
        super().__init__(kernel._info() if kernel.signatures else {})
        self.cache_hits = collections.Counter()
        self.cache_misses = collections.Counter()
        for i, sig in enumerate(kernel.signatures):
            outcome = kernel._info(i).get("cache", "")
            if outcome.startswith("hit"):
                self.cache_hits[sig] += 1
            elif outcome.startswith("miss"):
                self.cache_misses[sig] += 1


class BySignature(dict):
    """Per-specialization values keyed by signature string; a tuple of
    argument types or a signature object finds its entry too."""

    def __init__(self, kernel, items):
        super().__init__(items)
        self._kernel = kernel

    def __missing__(self, signature):
        return self[Overloads(self._kernel)._key(signature)]


class Overloads:
    """``kernel.overloads``: signature -> Overload, one entry per compiled
    specialization.  Keys are the signature strings of ``kernel.signatures``;
    a signature object or a tuple of argument types finds its entry too."""

    def __init__(self, kernel):
        self._kernel = kernel

    def _key(self, signature):
        key = self._kernel._which(signature)
        if key in self._kernel.signatures:
            return key
        # A type tuple written as a signature text: compare by the
        # compiler's spelling of the argument types.
        if not isinstance(signature, str):
            args = key[:key.rfind(" -> ")] if " -> " in key else key
            for sig in self._kernel.signatures:
                if sig.startswith(args + " -> "):
                    return sig
        raise KeyError(signature)

    def __getitem__(self, signature):
        return Overload(self._kernel, self._key(signature))

    def __contains__(self, signature):
        try:
            self._key(signature)
            return True
        except KeyError:
            return False

    def __len__(self):
        return len(self._kernel.signatures)

    def __iter__(self):
        return iter(self._kernel.signatures)

    def keys(self):
        return list(self._kernel.signatures)

    def values(self):
        return [Overload(self._kernel, s) for s in self._kernel.signatures]

    def items(self):
        return [(s, Overload(self._kernel, s)) for s in self._kernel.signatures]

    def __repr__(self):
        return f"<overloads of {self._kernel.py_func.__qualname__}: {self.keys()}>"


def _argument_type(value):
    """specialize()'s argument: a type object as it is, a value by typeof."""
    if isinstance(value, _types.Type):
        return value
    return _types.typeof(value)


class KernelApi:
    """The numba-cuda Dispatcher methods that are plain Python."""

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launcher for ``ntasks`` threads in one dimension:
        ``kernel.forall(n)(*args)``; ``tpb`` threads per block (default
        FORALL_THREADS_PER_BLOCK).  ``ntasks == 0`` launches nothing."""
        return ForAll(self, ntasks, tpb, stream, sharedmem)

    @property
    def overloads(self):
        """The compiled specializations: signature -> Overload."""
        return Overloads(self)

    @property
    def specializations(self):
        """The kernels specialize() made: argument types -> kernel."""
        spec = self.__dict__.get("_pcj_specializations")
        if spec is None:
            spec = self.__dict__["_pcj_specializations"] = {}
        return spec

    @property
    def specialized(self):
        """Whether the kernel compiles only for fixed signatures (given to
        cuda.jit, or made by specialize())."""
        return bool(getattr(self, "_pcj_signature_strings", ()))

    def _attribute(self, attr, signature):
        """cuFuncGetAttribute for one specialization (an int), or for each
        (a BySignature dict; an int when the kernel has one fixed
        signature)."""
        if signature is None and self.specialized and len(self.signatures) == 1:
            signature = self.signatures[0]
        if signature is None:
            return BySignature(self, {s: self._attribute(attr, s)
                                      for s in self.signatures})
        key = Overloads(self)._key(signature)
        value = self._function_attribute(key, attr)  # the C method
        if value is not None:
            return value
        if attr == _MAX_THREADS_PER_BLOCK:  # the executor's limit, or launch_bounds'
            bounds = self._pcj_options.get("launch_bounds")
            if bounds:
                bound = bounds if isinstance(bounds, int) else bounds[0]
                return min(_CPU_MAX_THREADS_PER_BLOCK, int(bound))
            return _CPU_MAX_THREADS_PER_BLOCK
        if attr == _SHARED_SIZE_BYTES:
            return self._info(key)["static_shared_bytes"]
        raise errors.CudaSupportError(
            "registers, local and constant memory per kernel are facts of the GPU's "
            "machine code: the CPU executor has none (run on a GPU)")

    def get_regs_per_thread(self, signature=None):
        """Registers each thread uses (per signature without one)."""
        return self._attribute(_NUM_REGS, signature)

    def get_shared_mem_per_block(self, signature=None):
        """Bytes of static shared memory per block."""
        return self._attribute(_SHARED_SIZE_BYTES, signature)

    def get_const_mem_size(self, signature=None):
        """Bytes of constant memory the kernel uses."""
        return self._attribute(_CONST_SIZE_BYTES, signature)

    def get_local_mem_per_thread(self, signature=None):
        """Bytes of local memory (stack, spills) per thread."""
        return self._attribute(_LOCAL_SIZE_BYTES, signature)

    def get_max_threads_per_block(self, signature=None):
        """The most threads per block a launch of the kernel can have."""
        return self._attribute(_MAX_THREADS_PER_BLOCK, signature)

    def specialize(self, *args):
        """A kernel compiled now for the types of ``args`` (values, or type
        objects such as ``float32[::1]``), cached per argument types."""
        if self.specialized:
            raise RuntimeError(f"Dispatcher already specialized: {self!r} compiles only "
                               f"for {list(self._pcj_signature_strings)}")
        argtypes = tuple(_argument_type(a) for a in args)
        key = tuple(str(t) for t in argtypes)
        kernel = self.specializations.get(key)
        if kernel is None:
            from .cuda import _build_kernel
            kernel = _build_kernel(self.py_func, self._pcj_options,
                                   [_types.signature_text(argtypes)], self._pcj_inline_)
            self.specializations[key] = kernel
        return kernel
