"""Golden-test machinery: compile tests/golden/kernels/<name>.py for sm_90
and return its stage dumps (SSA IR, typed IR, lowered LLVM IR, PTX)."""
import importlib.util
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


def compile_kernel(name, cc=(9, 0)):
    from pycuda_jit import cuda
    func, sig, text = load(name)
    dumps = cuda.compile_stages(func, sig, stages=STAGES, cc=cc, **options(text))
    return {stage: normalize(stage, d) for stage, d in dumps.items()}


def normalize(stage, text):
    # Line info names the kernel's file (PTX .file, LLVM DIFile): the same
    # golden for every checkout.
    return text.replace(KERNELS, "<kernels>")
