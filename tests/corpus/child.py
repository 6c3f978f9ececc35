"""Runs corpus cases in this (child) process and reports each as one JSON
line, then compiles and runs a good kernel:

    python -m tests.corpus.child tests.corpus.lang_control k_try k_with ...

Each case is isolated by try/except; a line {"case": name, "start": true}
is printed before it runs, so a crash or a hang is attributed to it.
"""
import importlib
import json
import os
import sys
import traceback
import warnings

warnings.simplefilter("ignore")

from pycuda_jit import cuda, errors  # noqa: E402

from tests.conformance.harness import HostArray  # noqa: E402 - no numpy needed
from tests.corpus import cases  # noqa: E402

LEAKS = (".cpp", "pcj::", "std::", "llvm::")
# Python exception types for bad host calls (besides pycuda_jit.errors
# classes, which subclass them where it fits); RuntimeError: a device
# function or intrinsic called outside a kernel.
DOCUMENTED = (TypeError, ValueError, IndexError, MemoryError, OverflowError, RuntimeError)


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def default_args():
    return (HostArray("f4", [0.0] * 8),)


def describe(case, exc, tb):
    """The facts the parent checks, computed where the classes live."""
    file = case.file()
    frames = [(f.filename, f.lineno) for f in traceback.extract_tb(tb)]
    mine = [ln for fn, ln in frames if os.path.samefile(fn, file)] if frames else []
    msg = str(exc)
    rec = {
        "case": case.name,
        "exc": f"{type(exc).__module__}.{type(exc).__qualname__}",
        "is_expected": isinstance(exc, case.expect),
        "is_pcj": type(exc).__module__.startswith("pycuda_jit"),
        "is_compile_error": isinstance(exc, errors.CompileError),
        "is_documented": isinstance(exc, DOCUMENTED),
        "msg": msg[:3000],
        "leaks": [x for x in LEAKS if x in msg],
        "want_file": file,
        "want_line": case.expected_line(),
        "tb_line": mine[-1] if mine else None,
    }
    if isinstance(exc, errors.CompileError):
        rec["file"] = exc.file
        rec["line"] = exc.line
        src = exc.source_line().strip()
        rec["shows_source"] = bool(src) and src in msg
    if case.match:
        import re
        rec["matches"] = re.search(case.match, msg) is not None
    return rec


def run_case(case):
    try:
        if case.kind == "lang":
            args = case.args() if case.args else default_args()
            cuda.jit(case.fn)[1, 1](*args)
        else:
            case.fn()
        cuda.synchronize()
    except Exception as e:  # noqa: BLE001 - every exception is the result
        return describe(case, e, e.__traceback__)
    return {"case": case.name, "exc": None}


def good_kernel():
    """A kernel never compiled before in this process, launched and checked."""
    salt = int.from_bytes(os.urandom(4), "little") % 1000

    @cuda.jit
    def add_salt(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * 2 + salt

    x = HostArray("i8", list(range(100)))
    out = HostArray("i8", [-1] * 100)
    add_salt[4, 32](x, out)
    return out.tolist() == [v * 2 + salt for v in range(100)]


def main(argv):
    module, names = argv[0], argv[1:]
    importlib.import_module(module)
    table = {c.name: c for c in cases.LANG.get(module, []) + cases.HOST.get(module, [])}
    for name in names:
        emit({"case": name, "start": True})
        emit(run_case(table[name]))
    emit({"good": good_kernel()})


if __name__ == "__main__":
    main(sys.argv[1:])
