"""Golden-test machinery: compile tests/golden/kernels/<name>.py for sm_90
and return its stage dumps (SSA IR, typed IR, lowered LLVM IR, PTX)."""
import importlib.util
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "kernels")
STAGES = ("ir", "typed", "llvm", "ptx")
# File check prefix per stage.
PREFIX = {"ir": "CHECK-IR", "typed": "CHECK-TYPED", "llvm": "CHECK-LLVM", "ptx": "CHECK-PTX"}


def kernel_names():
    return sorted(f[:-3] for f in os.listdir(KERNELS) if f.endswith(".py"))


def kernel_path(name):
    return os.path.join(KERNELS, name + ".py")


def load(name):
    path = kernel_path(name)
    spec = importlib.util.spec_from_file_location(f"golden_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = open(path).read()
    sig = re.search(r"^# SIGNATURE: (.*)$", text, re.M).group(1).strip()
    return getattr(mod, name), sig, text


def options(text):
    """`# OPTIONS: key=value, ...` (Python literals) of a golden kernel."""
    import ast
    m = re.search(r"^# OPTIONS: (.*)$", text, re.M)
    if not m:
        return {}
    out = {}
    for part in re.split(r",\s*(?=\w+=)", m.group(1).strip()):
        key, value = part.split("=", 1)
        out[key.strip()] = ast.literal_eval(value.strip())
    return out


def compile_kernel(name, cc=(9, 0), raw=False):
    """The stage dumps, normalized for comparison with the goldens (raw:
    as compiled, e.g. to assemble the PTX)."""
    from pycuda_jit import cuda
    func, sig, text = load(name)
    dumps = cuda.compile_stages(func, sig, stages=STAGES, cc=cc, **options(text))
    if raw:
        return dumps
    return {stage: normalize(stage, d) for stage, d in dumps.items()}


def normalize(stage, text):
    # Line info and error messages name the kernel's file (PTX .file, LLVM
    # DIFile, the message strings of checked-mode sites): the same golden for
    # every checkout.  The path is text in LLVM IR but bytes in PTX arrays,
    # and its length is part of both arrays' sizes: such sizes are masked too.
    text = text.replace(KERNELS, "<kernels>")
    # The error-site table (pcj_error_sites) is masked whole
    # (tests/python/test_checked_mode_ptx.py checks its contents).
    m = re.search(r"@pcj_error_sites = .*?constant \[(\d+) x i8\] c\"[^\"]*\"", text)
    if m:
        text = text.replace(m.group(0), m.group(0).split(" c\"")[0] + " <site table>")
        text = text.replace(f"[{m.group(1)} x i8]", "[<size> x i8]")
    text = re.sub(r"(pcj_error_sites)\[\d+\] = \{[^}]*\}", r"\1[<size>] = {<site table>}", text)
    # LLVM strings that hold the path: their sizes
    for n in set(re.findall(r"\[(\d+) x i8\] c\"[^\"]*<kernels>", text)):
        text = text.replace(f"[{n} x i8]", "[<size> x i8]")
    # PTX byte arrays that hold the path: shown as their text

    def as_text(m):
        data = bytes(int(b) for b in m.group(3).split(","))
        if KERNELS.encode() not in data:
            return m.group(0)
        shown = data.rstrip(b"\0").decode("utf-8", "replace").replace(KERNELS, "<kernels>")
        return f"{m.group(1)}[<size>] = {{{shown!r}}}"
    text = re.sub(r"(\.b8 [\w$.]+)\[(\d+)\] = \{([\d, ]+)\}", as_text, text)
    # debug=True: the DWARF sections hold the path as bytes, and the offsets
    # after it depend on its length; shown as their entries and strings.
    text = re.sub(r"(\t\.section\t\.debug_(?:info|pubnames|pubtypes)\n\t\{\n)(.*?)(\n\t\})",
                  lambda m: m.group(1) + dwarf_summary(m.group(2)) + m.group(3), text, flags=re.S)
    return text


def dwarf_summary(body):
    """A DWARF section of PTX (`.b8 N` / `.b32 X` lines) as the strings it
    holds (printable bytes ended by a 0 byte), one per line, in order:
    names of files, functions, variables and types, without the offsets
    and sizes that depend on the path's length."""
    out, run = [], []
    for line in body.splitlines():
        m = re.match(r"\.b8\s+(\d+)$", line.strip())
        if not m:
            run = []
            continue
        b = int(m.group(1))
        if b == 0 and run:
            shown = bytes(run).decode("ascii").replace(KERNELS, "<kernels>")
            out.append("// " + json.dumps(shown))
        run = run + [b] if 32 <= b < 127 else []
        if b == 0:
            run = []
    return "\n".join(out)
