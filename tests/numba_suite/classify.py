"""Suggested ledger reasons, read off a failure.

A suggestion is a start: run.py --update-ledger marks it " [auto]" until
someone has read the failure and confirmed or corrected the reason in
RESULTS.md.  The rules name topics precisely, so that the "not yet" lines
group into the work list of the next waves.
"""
import re

_TYPE_NAMES = set("""
boolean b1 int8 int16 int32 int64 uint8 uint16 uint32 uint64 i1 i2 i4 i8 u1 u2 u4 u8
intp uintp intc uintc float16 float32 float64 f2 f4 f8 bfloat16 complex64 complex128
c8 c16 void none byte char short int_ long_ float_ double Array CPointer
Tuple UniTuple Record NamedTuple NamedUniTuple Integer Float Complex Boolean
from_dtype typeof
""".split())
TYPE_OBJECTS = "type objects (numba.cuda.types, float32, void, from_dtype, tuple signatures)"
DIVERGENCE = "documented divergence: docs/migration.md#"

# Skips: (pattern on the skip reason, ledger reason).
_SKIPS = [
    (r"more than 1 gpu|two GPUs|multiple GPUs|Windows only", "needs hardware we lack"),
    (r"cupy|CuPy|ml_dtypes", "needs a GPU"),
    (r"simulator|cudasim|[Uu]sable with hardware", "tests numba internals"),
    (r"Wrappers no longer exist|insert_unresolved_ref|Requires PR|CUDA_DEBUG_POLY",
     "tests numba internals"),
    (r"Issue #317", "numba-cuda skips it: 'Disabled temporarily due to Issue #317' "
                    "(Stream.add_callback / async_done; ours: tests/kernels/test_host_driver_api.py)"),
    (r"necessary binaries not generated",
     "numba-cuda skips it: 'necessary binaries not generated' (NUMBA_CUDA_TEST_BIN_DIR: "
     "test_device_functions.{a,cubin,cu,fatbin,o,ptx,ltoir}, built in numba-cuda's source "
     "tree, not in its wheel; ours: tests/python/test_linkable_code.py, tests/kernels/test_foreign_cu.py)"),
    (r"writes are preventable", DIVERGENCE + "the-disk-cache"),
    (r"stride semantics differ for transpose", "tests numba internals"),
    # test_inspect_sass_{eager,lazy,cfg} skip without nvdisasm, and with it
    # call skip_on_cuda_version_issues(), an unconditional skip.
    (r"nvdisasm needed", "numba-cuda skips it: without nvdisasm, and with it always "
                         "('Relocation information required for analysis not preserved'); "
                         "ours: tests/python/test_tools.py"),
    (r"LTO should not error", "not yet: missing API: jit(lto=...)"),
    (r"^Skipped$", "needs hardware we lack"),
]

# Failures whose message (or detail) names a known topic: (pattern, reason).
_KNOWN = [
    # the CPU executor cannot run CUDA C/PTX (docs/language.md, "Foreign functions")
    (r"foreign code runs on the GPU only",
     "needs a GPU"),
    (r"lto=True\) is not supported yet", "not yet: missing API: jit(lto=...)"),
    # constructs the compiler refuses
    (r"is a _kernel_class.<locals>.Kernel object",
     "not yet: refused construct: calling a @cuda.jit kernel from a kernel (as a device function)"),
    (r"cannot pass a intrinsic\(cuda\.atomic",
     "not yet: refused construct: cuda.atomic.* passed to a device function as an argument"),
    (r"is a device array \(global device arrays",
     "not yet: refused construct: device arrays captured as globals or closure variables"),
    (r"has no attribute '(reshape|copy|view|dtype|real|imag)' in kernels",
     "not yet: refused construct: array.{0} in kernels"),
    (r"'array\(Record.* has no attribute",
     "not yet: refused construct: record fields as attributes of record arrays (arr.field)"),
    (r"has no attribute 'bit_count'", "not yet: refused construct: int.bit_count()"),
    (r"raise statements are not supported", "not yet: refused construct: raise in kernels"),
    (r"nested functions and lambdas", "not yet: refused construct: closures and lambdas in kernels"),
    (r"'op' is a builtin_function_or_method",
     "not yet: refused construct: operator-module functions as values (operator.add)"),
    (r"is a EnumType object|kernels cannot take a Color",
     "not yet: refused construct: Enum and IntEnum in kernels"),
    (r"is a CPUDispatcher object",
     "not yet: refused construct: calling @numba.jit / @njit functions from kernels"),
    (r"pow\(\) of complex numbers", "not yet: refused construct: pow() of complex numbers"),
    (r"print\(\) in kernels cannot print|print\(cuda\.threadIdx\)|print_tuple|print_too_many",
     "not yet: refused construct: print() of tuples, dim3 and more than 32 arguments"),
    (r"np\.sin\(\) takes 1 argument, got 2", "not yet: refused construct: ufunc out= argument in kernels"),
    (r"'is' is only supported for comparisons with None",
     "not yet: refused construct: 'is' between values other than None"),
    (r"assigning to an array slice", "not yet: refused construct: assigning to an array slice"),
    (r"dtype '[<|][USa]\d+'", "not yet: refused construct: string and bytes dtypes in kernels"),
    (r"dtype '[<>]?[Mm]8", "not yet: refused construct: datetime64 / timedelta64 in kernels"),
    (r"structured dtypes with array fields",
     "not yet: refused construct: structured dtypes with array fields"),
    (r"module 'cuda' has no attribute '(\w+x\d)'", "not yet: missing API: cuda.vector_types"),
    (r"module 'cuda' has no attribute 'types'", "not yet: missing API: " + TYPE_OBJECTS),
    (r"cuda\.(shared|local)\.array\(shape, dtype\) takes exactly",
     "not yet: missing API: cuda.shared.array / cuda.local.array (alignment=...)"),
    (r"device functions are not supported yet",
     "not yet: missing API: compile_ptx(..., device=True)"),
    (r"argument 2 must be str, not tuple|signatures must be strings|KeyError: \(",
     "not yet: missing API: " + TYPE_OBJECTS),
    (r"name '\w+' is not defined", "not yet: different behaviour: an undefined name raises "
                                   "NameResolutionError, not TypingError"),
    (r"used before it is assigned", "not yet: different behaviour: a variable bound on some "
                                    "paths only is refused at compile time (issue 12 W3)"),
    # behaviour
    (r"cannot pickle '(Kernel|DeviceNDArray)'",
     "not yet: missing API: pickling kernels and device arrays"),
    (r"'dict' object has no attribute 'cache_hits'",
     "not yet: missing API: Kernel.stats.cache_hits / cache_misses"),
    (r"'numpy.ndarray' object has no attribute '__cuda_array_interface__'",
     "not yet: different behaviour: mapped_array() / managed_array() return numpy arrays "
     "without __cuda_array_interface__"),
    (r"cannot be used by the CPU executor",
     "not yet: missing API: __cuda_array_interface__ objects on the CPU executor (issue 12 W4)"),
    (r"pcj_numba_layer\.missing\.(\w+Warning)",
     "not yet: missing API: the warnings numba-cuda gives ({0})"),
    (r"Tuples differ: \(16, 192\) != \(40, 8\)", DIVERGENCE + "device-array-views-copies-and-transposes"),
    (r"__pycache__|\.nb[ci]'|AssertionError: 0 != \d+ : \[\]|comparing 15 and 6",
     DIVERGENCE + "the-disk-cache"),
    (r"RequireLiteralValue|No matching definition|Mask type must be an integer|"
     r"invalid axes \(|cannot type infer runaway recursion|griddim must be a sequence|"
     r"input operand has more dimensions|operands could not be broadcast|"
     r"`copy=False` is not",
     DIVERGENCE + "error-messages"),
]

_INTERNAL = "[numba internals]"
_MISSING = re.compile(r"\[missing API\] \S+?: .*pycuda_jit has no (\S+)")
_NO_ATTR = re.compile(r"AttributeError: (?:module '([\w.]+)'|'([\w.]+)' object) has no attribute '(\w+)'")
_OWNERS = {"pycuda_jit.cuda": "cuda", "pycuda_jit.devicearray": "devicearray",
           "pycuda_jit._core.Launcher": "Kernel[config]"}


def api_topic(target):
    """The missing-API topic of a pycuda_jit name that does not exist
    (pycuda_jit.types.int32 -> type objects; pycuda_jit.cuda.libdevice.sin
    -> cuda.libdevice)."""
    parts = target.split(".")
    if parts[0] == "pycuda_jit":
        parts = parts[1:]
    if not parts:
        return "pycuda_jit"
    if parts[0] == "types" or parts[-1] in _TYPE_NAMES:
        return TYPE_OBJECTS
    return ".".join(parts[:2])


def _strip_location(message):
    return message.split('  File "')[0].strip()


def suggest(record):
    """A reason from the fixed list, for one non-passing result record."""
    status = record["status"]
    msg = record.get("message") or ""
    text = msg + "\n" + (record.get("detail") or "")
    touched = record.get("touched") or []
    if status == "skip":
        for pattern, reason in _SKIPS:
            if re.search(pattern, msg):
                return reason
        return f"not yet: different behaviour: skipped ({msg[:80]})"
    if _INTERNAL in text or any(t.endswith("-> numba internals") for t in touched[-1:]):
        return "tests numba internals"
    for pattern, reason in _KNOWN:
        m = re.search(pattern, text)
        if m:
            return reason.format(*m.groups())
    m = _MISSING.search(text)
    if m:
        return "not yet: missing API: " + api_topic(m.group(1))
    if "is a Placeholder object" in msg and touched:
        return "not yet: missing API: " + api_topic(touched[-1].split(" -> ")[-1])
    if "CudaSupportError" in msg or "no CUDA GPU" in msg:
        return "needs a GPU"
    m = _NO_ATTR.search(msg)
    if m:
        owner = _OWNERS.get(m.group(1) or m.group(2), m.group(1) or m.group(2))
        if owner == "cuda" and m.group(3) in ("cudadrv", "devicearray", "descriptor"):
            return "tests numba internals"  # numba-cuda's modules through the cuda namespace
        if m.group(3).startswith("_") and not m.group(3).startswith("__"):
            return "tests numba internals"  # numba's private attributes
        return f"not yet: missing API: {owner}.{m.group(3)}"
    m = re.search(r"(\w+)\(\) got (?:an )?unexpected (?:keyword argument|options):? '?([\w, ]+)", msg)
    if m:
        return f"not yet: missing API: {m.group(1)}({m.group(2).strip()}=...)"
    if msg.startswith(("hang:", "crash:")) or "not run: the file crashed" in msg:
        return "not yet: wrong value / crash: " + msg[:100]
    m = re.match(r"pycuda_jit\.errors\.(UnsupportedError|TypingError|NameResolutionError|"
                 r"SignatureError|CompileError): (.*)", msg)
    if m:
        return "not yet: refused construct: " + _strip_location(m.group(2))[:100]
    if status == "fail" and re.search(r"Arrays are not|Not equal to tolerance|"
                                      r"when comparing|not almost equal", msg):
        return "not yet: wrong value / crash: " + msg[:100]
    return "not yet: different behaviour: " + msg[:100]
