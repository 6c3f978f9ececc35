"""Where each numba name seen by numba-cuda's test code resolves.

One table, read by pcj_numba_layer (and printed as the table in
tests/numba_suite/README.md by ``run.py --names``).  A dotted numba name
(``numba.cuda.types.int32``) resolves by its longest matching prefix:

  ours      the pycuda_jit object at the target path (the prefix replaced);
            if pycuda_jit has no such object: a "missing API" placeholder
  helper    numba-cuda's (or numba's) own object: test infrastructure only
            (unittest base classes, skip decorators, config flags)
  cpu       real numba's CPU-side object (njit...): not part of CUDA, so a
            user who switches keeps it; it never compiles CUDA code
  internal  a "numba internals" placeholder: numba-cuda's implementation
            modules (typing, lowering, extension API, NRT, driver bindings)
            are not pycuda_jit and are never handed to test code

A placeholder imports fine; using it (attribute, call, index, truth value,
iteration) raises NotProvidedError, whose message names the numba name and
the reason, so that a test touching it fails with a precise symptom.
"""

OURS, HELPER, CPU, INTERNAL = "ours", "helper", "cpu", "internal"

# (numba prefix, kind, pycuda_jit target prefix or None, why)
RULES = [
    # -- the CUDA namespace: ours -----------------------------------------------
    ("numba.cuda", OURS, "pycuda_jit.cuda", "the module users import"),
    ("numba.cuda.types", OURS, "pycuda_jit.types", "type objects (issue 14 part 3)"),
    ("numba.cuda.types.Type", INTERNAL, None, "base class of extension types (extension API)"),
    ("numba.types.Type", INTERNAL, None, "base class of extension types (extension API)"),
    ("numba.cuda.errors", OURS, "pycuda_jit.errors", "exception classes"),
    ("numba.cuda.core.errors", OURS, "pycuda_jit.errors", "exception classes (TypingError...)"),
    ("numba.cuda.cudadrv.error", OURS, "pycuda_jit.errors", "CudaSupportError, CudaDriverError"),
    ("numba.cuda.cudadrv.driver.CudaAPIError", OURS, "pycuda_jit.errors.CudaDriverError",
     "a failed driver call"),
    ("numba.cuda.cudadrv.driver.LinkerError", OURS, "pycuda_jit.errors.LinkerError",
     "a failed link"),
    ("numba.cuda.core.errors.NumbaWarning", OURS, "pycuda_jit.errors.PycudaJitWarning",
     "base class of the warnings"),
    ("numba.cuda.core.errors.NumbaPerformanceWarning", OURS, "pycuda_jit.errors.PerformanceWarning",
     "slow-launch warnings"),
    ("numba.cuda.core.errors.NumbaInvalidConfigWarning", OURS, "pycuda_jit.errors.InvalidConfigWarning",
     "conflicting options"),
    ("numba.cuda.core.errors.NumbaDebugInfoWarning", OURS, "pycuda_jit.errors.DebugInfoWarning",
     "debug info not made"),
    ("numba.core.errors.NumbaWarning", OURS, "pycuda_jit.errors.PycudaJitWarning",
     "base class of the warnings"),
    ("numba.core.errors.NumbaPerformanceWarning", OURS, "pycuda_jit.errors.PerformanceWarning",
     "slow-launch warnings"),
    ("numba.core.errors.NumbaInvalidConfigWarning", OURS, "pycuda_jit.errors.InvalidConfigWarning",
     "conflicting options"),
    ("numba.core.errors.NumbaDebugInfoWarning", OURS, "pycuda_jit.errors.DebugInfoWarning",
     "debug info not made"),
    ("numba.cuda.cudadrv.devicearray", INTERNAL, None, "numba-cuda's device array module"),
    ("numba.cuda.cudadrv.devicearray.DeviceNDArray", OURS, "pycuda_jit.devicearray.DeviceNDArray",
     "the device array class"),
    ("numba.cuda.cudadrv.devicearray.DeviceRecord", OURS, "pycuda_jit.devicearray.DeviceRecord",
     "the device record class"),
    ("numba.cuda.cudadrv.linkable_code", OURS, "pycuda_jit.cuda",
     "CUSource, PTXSource... (numba.cuda re-exports them)"),
    ("numba.cuda.api", OURS, "pycuda_jit.cuda", "numba.cuda re-exports it"),
    ("numba.cuda.decorators", OURS, "pycuda_jit.cuda", "numba.cuda re-exports it"),
    ("numba.cuda.args", OURS, "pycuda_jit.cuda", "In, Out, InOut (re-exported)"),
    ("numba.cuda.stubs", OURS, "pycuda_jit.cuda", "kernel intrinsics (re-exported)"),
    ("numba.cuda.intrinsics", OURS, "pycuda_jit.cuda", "kernel intrinsics (re-exported)"),
    ("numba.cuda.random", OURS, "pycuda_jit.cuda.random", "the xoroshiro128+ RNG"),
    ("numba.cuda.cg", OURS, "pycuda_jit.cuda.cg", "cooperative groups"),
    ("numba.cuda.fp16", OURS, "pycuda_jit.cuda.fp16", "half-precision intrinsics"),
    ("numba.cuda.bf16", OURS, "pycuda_jit.cuda.bf16", "bfloat16 intrinsics"),
    ("numba.cuda._internal.cuda_bf16", OURS, "pycuda_jit.cuda.bf16",
     "the bfloat16 bindings under cuda_bf16.h's names (__hadd, nv_bfloat16)"),
    ("numba.cuda._internal.cuda_fp8", OURS, "pycuda_jit.cuda.fp8",
     "the fp8 bindings (fp8_e4m3..., cvt_*_to_fp8, saturation_t)"),
    ("numba.cuda.libdevice", OURS, "pycuda_jit.cuda.libdevice", "libdevice functions"),
    ("numba.cuda.vector_types", OURS, "pycuda_jit.cuda.vector_types", "float32x4 & co."),
    ("numba.cuda.launchconfig", OURS, "pycuda_jit.cuda.launchconfig",
     "launch configuration introspection"),
    ("numba.cuda.kernels.transpose.transpose", OURS, "pycuda_jit.cuda.transpose",
     "library kernel"),
    ("numba.cuda.compiler.compile", OURS, "pycuda_jit.cuda.compile", "public compile API"),
    ("numba.cuda.compiler.compile_all", OURS, "pycuda_jit.cuda.compile_all", "public compile API"),
    ("numba.cuda.compiler.compile_for_current_device", OURS,
     "pycuda_jit.cuda.compile_for_current_device", "public compile API"),
    ("numba.cuda.compiler.compile_ptx", OURS, "pycuda_jit.cuda.compile_ptx", "public compile API"),
    ("numba.cuda.compiler.compile_ptx_for_current_device", OURS,
     "pycuda_jit.cuda.compile_ptx_for_current_device", "public compile API"),
    ("numba.cuda.np.numpy_support.from_dtype", OURS, "pycuda_jit.from_dtype",
     "numba.from_dtype: type objects"),
    ("numba.cuda.np.numpy_support.as_dtype", OURS, "pycuda_jit.types.as_dtype",
     "the NumPy dtype of a type object"),
    ("numba.cuda.typing.signature", OURS, "pycuda_jit.types.signature",
     "a signature from type objects (signature(int32, float32))"),
    ("numba.cuda.typing.typeof.typeof", OURS, "pycuda_jit.types.typeof",
     "the type of a value (numba.typeof)"),
    ("numba.cuda.np.numpy_support.carray", OURS, "pycuda_jit.carray", "numba.carray"),
    ("numba.cuda.np.numpy_support.farray", OURS, "pycuda_jit.farray", "numba.farray"),
    ("numba.cuda.misc.special.literal_unroll", OURS, "pycuda_jit.literal_unroll",
     "numba.literal_unroll"),
    # -- numba-cuda's test infrastructure: theirs --------------------------------
    ("numba.cuda.testing", HELPER, None, "CUDATestCase, skip decorators"),
    ("numba.cuda.tests", HELPER, None,
     "support.py; test files and usecases run as test code (layer's finder)"),
    ("numba.cuda.config", HELPER, None, "flags the tests read (ENABLE_CUDASIM...)"),
    ("numba.cuda.core.config", HELPER, None, "the same module"),
    ("numba.cuda.HAS_NUMBA", HELPER, None, "whether numba is installed"),
    ("numba.cuda.utils.PYVERSION", HELPER, None, "the Python version"),
    ("numba.cuda.np.numpy_support.numpy_version", HELPER, None,
     "the NumPy version (tests choose inputs by it)"),
    ("numba.cuda.libdevicefuncs", HELPER, None,
     "test data: the libdevice functions test_libdevice generates tests from"),
    ("numba.cuda.cudadrv.driver.device_to_host", OURS, "pycuda_jit.cudadrv.device_to_host",
     "driver-level copies (cuda.driver)"),
    ("numba.cuda.cudadrv.driver.host_to_device", OURS, "pycuda_jit.cudadrv.host_to_device",
     "driver-level copies (cuda.driver)"),
    ("numba.cuda.cudadrv.driver.device_to_device", OURS,
     "pycuda_jit.cudadrv.device_to_device", "driver-level copies (cuda.driver)"),
    ("numba.cuda.cudadrv.driver.device_memset", OURS, "pycuda_jit.cudadrv.device_memset",
     "driver-level memset (cuda.driver)"),
    ("numba.cuda.cudadrv.driver._have_nvjitlink", HELPER, None,
     "environment probe in skip conditions"),
    ("numba.tests", HELPER, None, "numba's own test helpers"),
    # -- top-level numba --------------------------------------------------------
    ("numba", OURS, "pycuda_jit",
     "names numba exports for CUDA use (float32, void, vectorize, typeof...)"),
    ("numba.types", OURS, "pycuda_jit.types", "type objects"),
    ("numba.errors", OURS, "pycuda_jit.errors", "exception classes"),
    ("numba.core.errors", OURS, "pycuda_jit.errors", "exception classes"),
    ("numba.njit", CPU, None, "numba's CPU compiler: a user who switches keeps it"),
    ("numba.jit", CPU, None, "numba's CPU compiler"),
    ("numba.objmode", CPU, None, "numba's CPU compiler"),
    ("numba.prange", CPU, None, "numba's CPU compiler"),
    ("numba.version_info", CPU, None, "numba's version"),
    ("numba.__version__", CPU, None, "numba's version"),
    # -- numba internals ---------------------------------------------------------
    ("numba.core", INTERNAL, None, "numba's compiler internals"),
    ("numba.extending", INTERNAL, None, "the extension API (overload, intrinsic...)"),
    ("numba.np", INTERNAL, None, "numba's NumPy support internals"),
    ("numba.misc", INTERNAL, None, "numba internals"),
    ("numba.typed", INTERNAL, None, "typed containers (NRT)"),
    ("numba.experimental", INTERNAL, None, "jitclass & co. (NRT)"),
    ("numba.analysis", INTERNAL, None, "numba internals"),
    ("numba.controlflow", INTERNAL, None, "numba internals"),
]

# numba.cuda.<X> where X is one of numba-cuda's own modules (not listed
# above) is numba internals: compiler, descriptor, typing, typeconv,
# extending, cudaimpl, target, dispatcher, datamodel, cudadrv.driver, nvvm...
# (decided from the installed package's files, so no list to keep current).
CUDA_SUBMODULES_DEFAULT = INTERNAL

_TABLE = {prefix: (kind, target) for prefix, kind, target, _why in RULES}


def rule_for(name):
    """(kind, target, matched prefix) for a dotted numba name."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        prefix = ".".join(parts[:n])
        if prefix in _TABLE:
            kind, target = _TABLE[prefix]
            return kind, target, prefix
    return None, None, None


def markdown_table():
    rows = ["| numba name (prefix) | resolves to | pycuda_jit target | what |",
            "|---|---|---|---|"]
    for prefix, kind, target, why in RULES:
        rows.append(f"| `{prefix}` | {kind} | {f'`{target}`' if target else ''} | {why} |")
    rows.append("| `numba.cuda.<module>.*` (any other module of numba-cuda), "
                "`numba.<module>.*` (any other module of numba) | internal | | "
                "compiler, typing, lowering, extension API, NRT, driver bindings |")
    return "\n".join(rows)
