#!/usr/bin/env python3
"""Fused multiply-adds in every benchmark kernel: PTX and, when ptxas and
cuobjdump are found, SASS counts (no GPU needed).

    PYTHONPATH=. python3 benchmarks/fma_counts.py [--cc 9.0] [--fmad 0|1]

Per kernel: PTX fma.rn (f16/f32/f64), PTX unfused mul/add/sub (with .rn:
never fused by ptxas; without: ptxas may fuse), and SASS FFMA/DFMA/HFMA
against FMUL/FADD/DMUL/DADD, i.e. what runs after ptxas.  Compare two
compiler builds by running the script with each on PYTHONPATH.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import kernels  # noqa: E402  (binds pycuda_jit.cuda)
from pycuda_jit import cuda  # noqa: E402

F32 = "float32[::1]"
F32_2D = "float32[:, ::1]"
SIGNATURES = {
    "triad": f"void({F32}, {F32}, {F32}, float32)",
    "triad_gs": f"void({F32}, {F32}, {F32}, float32)",
    "reduce_sum": f"void({F32}, {F32})",
    "sgemm": f"void({F32_2D}, {F32_2D}, {F32_2D})",
    "stencil5": f"void({F32_2D}, {F32_2D}, float32, float32)",
    "nbody": f"void({F32_2D}, {F32_2D}, float32)",
    "black_scholes": f"void({F32}, {F32}, {F32}, {F32}, {F32}, float32, float32)",
    "softmax_small": f"void({F32_2D}, {F32_2D})",
    "softmax_large": f"void({F32_2D}, {F32_2D})",
    "histogram": "void(uint8[::1], int32[::1])",
    "mandelbrot": "void(int32[:, ::1], float64, float64, float64, float64, int64)",
    "fma_loop": f"void({F32}, {F32}, int32)",
}

PTX_FMA = re.compile(r"^\s*(?:@%p\d+\s+)?fma\.rn(?:\.ftz)?\.f(16|32|64)", re.M)
PTX_ARITH = re.compile(r"^\s*(?:@%p\d+\s+)?(add|sub|mul)(\.rn)?(?:\.ftz)?\.f(16|32|64)\s", re.M)
SASS_FMA = re.compile(r"\b(FFMA|DFMA|HFMA2)\b")
SASS_MULADD = re.compile(r"\b(FMUL|FADD|DMUL|DADD|HMUL2|HADD2)\b")


def sass_counts(ptx, cc):
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    cuobjdump = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    if not (os.path.exists(ptxas) and os.path.exists(cuobjdump)):
        return None
    arch = f"sm_{cc[0]}{cc[1]}"
    with tempfile.TemporaryDirectory() as d:
        src, obj = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        subprocess.run([ptxas, f"-arch={arch}", "-O3", src, "-o", obj], check=True)
        sass = subprocess.run([cuobjdump, "-sass", obj], check=True, capture_output=True,
                              text=True).stdout
    return len(SASS_FMA.findall(sass)), len(SASS_MULADD.findall(sass))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", default="9.0")
    ap.add_argument("--fmad", type=int, choices=(0, 1), default=None)
    a = ap.parse_args()
    cc = tuple(int(v) for v in a.cc.split("."))
    options = {} if a.fmad is None else {"fmad": bool(a.fmad)}
    print(f"{'kernel':<14} {'ptx fma':>8} {'ptx mul/add (.rn)':>18} {'sass fma':>9} {'sass mul/add':>13}")
    for name, sig in SIGNATURES.items():
        func = getattr(kernels, name).py_func
        ptx = cuda.compile_stages(func, sig, stages=("ptx",), cc=cc, **options)["ptx"]
        fma = len(PTX_FMA.findall(ptx))
        arith = PTX_ARITH.findall(ptx)
        rn = sum(1 for _op, r, _w in arith if r)
        sass = sass_counts(ptx, cc)
        s_fma, s_other = sass if sass else ("-", "-")
        print(f"{name:<14} {fma:>8} {f'{len(arith)} ({rn})':>18} {s_fma:>9} {s_other:>13}")


if __name__ == "__main__":
    main()
