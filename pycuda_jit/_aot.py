"""``python -m pycuda_jit compile file.py:kernel --sig ... --cc 9.0 -o out.ptx``:
ahead-of-time compilation of one kernel to PTX or (through nvJitLink) to a
cubin, with no GPU.  The file is imported as a module (its ``if __name__ ==
"__main__":`` block does not run); ``kernel`` names a ``@cuda.jit`` kernel or
a plain function.  Without ``--sig`` the kernel's own eager signature is used
when it has exactly one.
"""
import importlib.util
import os
import re
import sys

from . import errors
from ._lazy import core


class AotError(Exception):
    """A usage problem, reported without a traceback."""


def parse_cc(text):
    """'9.0', '90', 'sm_90', '9,0' -> (9, 0)."""
    m = re.fullmatch(r"(?:sm_|compute_)?(\d+)[.,]?(\d)?", text.strip())
    if not m:
        raise AotError(f"--cc must look like 9.0 or sm_90, not '{text}'")
    if m.group(2) is None:
        digits = m.group(1)
        if len(digits) < 2:
            raise AotError(f"--cc must look like 9.0 or sm_90, not '{text}'")
        return int(digits[:-1]), int(digits[-1])
    return int(m.group(1)), int(m.group(2))


def load_target(spec):
    """'path/to/file.py:name' -> (the object, the file path)."""
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise AotError(f"expected FILE.py:KERNEL, not '{spec}'")
    if not os.path.isfile(path):
        raise AotError(f"{path}: no such file")
    path = os.path.abspath(path)
    modname = "_pcj_aot_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    sys.path.insert(0, os.path.dirname(path))
    try:
        mod_spec = importlib.util.spec_from_file_location(modname, path)
        module = importlib.util.module_from_spec(mod_spec)
        sys.modules[modname] = module
        mod_spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    obj = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise AotError(f"{path} has no '{name}'")
        obj = getattr(obj, part)
    return obj, path


def compile_file(spec, sig=None, cc="9.0", output=None, options=None):
    """Compiles; returns (output path, entry point name, bytes written)."""
    from . import cuda
    obj, path = load_target(spec)
    if getattr(obj, "_pcj_device_function_", None) is not None:
        raise AotError(f"'{spec}' is a device function; compile a kernel that calls it")
    func = getattr(obj, "py_func", obj)
    if not callable(func) or not hasattr(func, "__code__"):
        raise AotError(f"'{spec}' is not a function")
    if sig is None:
        sigs = list(getattr(obj, "_pcj_signature_strings", None) or [])
        if len(sigs) != 1:
            raise AotError("--sig is needed (for example --sig 'void(float32[::1], float32)')")
        sig = str(sigs[0])
    major, minor = parse_cc(cc)
    kind = "ptx"
    if output is None:
        output = f"{func.__name__}.sm_{major}{minor}.ptx"
    ext = os.path.splitext(output)[1]
    if ext == ".cubin":
        kind = "cubin"
    elif ext != ".ptx":
        raise AotError(f"-o must end in .ptx or .cubin, not '{output}'")
    opts = cuda._options(**(options or {}))
    ptx, entry, _dumps, _ret = core().compile_ptx(func, sig, major, minor, opts)
    if kind == "ptx":
        data = ptx.encode()
    else:
        data = core().link_ptx(ptx, major, minor)
    with open(output, "wb") as f:
        f.write(data)
    return output, entry, len(data)


def main(args):
    options = {"debug": args.debug, "fastmath": args.fastmath, "opt": args.opt,
               "lineinfo": args.lineinfo, "max_registers": args.max_registers,
               "fmad": None if args.fmad is None else bool(args.fmad)}
    try:
        out, entry, n = compile_file(args.target, args.sig, args.cc, args.output, options)
    except (AotError, errors.CompileError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except RuntimeError as e:  # nvJitLink missing or failing
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"{out}: {n} bytes, entry point {entry}")
    return 0
