"""PTX -> cubin cost per ptxas option level (issue 13 item 5, ideas (a)/(b)).

The compile_concurrency benchmark's kernels (a loop calling math.sin, 1-4
iterations) and an empty kernel are compiled to PTX once (sm_90 by default),
then each is linked by nvJitLink many times per option set, in this process,
one link at a time.  Printed per kernel and option set: the median CPU ms of
nvJitLinkCreate, of nvJitLinkAddData (ptxas runs here, for PTX input) and of
nvJitLinkComplete, the cubin's size and, where the toolkit's nvdisasm is
found, the SASS instruction count.  CPU time (not wall) so that a loaded
machine gives the same figures; no GPU needed.

    PYTHONPATH=. python3 benchmarks/ptxas_levels.py [--repeat 15] [--cc 9.0]

What it showed on the 2-core build machine (CUDA 13.0's nvJitLink, sm_90):
the empty kernel alone costs ~4.5 ms of CPU per link (a fixed part of every
link: ~40% of the benchmark kernel's ~11 ms); -O0 and -Ofc=max cut ptxas's
time by ~25-30% and grow the code by ~55-75%; -Xptxas=-O1/-O2, -Ofc=min/mid
and --allow-expensive-optimizations=false change neither much.  A cheaper
first tier would save ~3-5 ms of a ~40 ms first call and cost one more ptxas
run per kernel, so the compile path keeps nvJitLink's default (-O3).
docs/compiler.md ("Compile latency") keeps the figures.
"""
import argparse
import ctypes
import ctypes.util
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compile_concurrency import KERNEL  # noqa: E402

LEVELS = ["", "-O0", "-Xptxas=-O1", "-Xptxas=-O2", "-Xptxas=-Ofc=min",
          "-Xptxas=-Ofc=mid", "-Xptxas=-Ofc=max",
          "-Xptxas=--allow-expensive-optimizations=false"]
PTX_INPUT = 2  # NVJITLINK_INPUT_PTX


def find_nvjitlink():
    roots = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")] + ["/usr/local/cuda"]
    for root in filter(None, roots):
        hits = sorted(glob.glob(os.path.join(root, "lib64", "libnvJitLink.so*")))
        if hits:
            return hits[0]
    return ctypes.util.find_library("nvJitLink")


def find_tool(name):
    roots = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")] + ["/usr/local/cuda"]
    for root in filter(None, roots):
        p = os.path.join(root, "bin", name)
        if os.access(p, os.X_OK):
            return p
    return shutil.which(name)


class Linker:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        vp = ctypes.c_void_p
        self.lib.nvJitLinkCreate.argtypes = [ctypes.POINTER(vp), ctypes.c_uint32,
                                             ctypes.POINTER(ctypes.c_char_p)]
        self.lib.nvJitLinkAddData.argtypes = [vp, ctypes.c_int, ctypes.c_char_p,
                                              ctypes.c_size_t, ctypes.c_char_p]
        self.lib.nvJitLinkComplete.argtypes = [vp]
        self.lib.nvJitLinkGetLinkedCubinSize.argtypes = [vp, ctypes.POINTER(ctypes.c_size_t)]
        self.lib.nvJitLinkGetLinkedCubin.argtypes = [vp, ctypes.c_char_p]
        self.lib.nvJitLinkDestroy.argtypes = [ctypes.POINTER(vp)]

    def link(self, ptx, arch, opt):
        """(create, add, complete) CPU ms and the cubin; None if refused."""
        opts = [f"-arch={arch}".encode()] + ([opt.encode()] if opt else [])
        argv = (ctypes.c_char_p * len(opts))(*opts)
        h = ctypes.c_void_p()
        c0 = time.process_time()
        if self.lib.nvJitLinkCreate(ctypes.byref(h), len(opts), argv) != 0:
            return None
        c1 = time.process_time()
        data = ptx.encode()
        rc = self.lib.nvJitLinkAddData(h, PTX_INPUT, data, len(data), b"kernel.ptx")
        c2 = time.process_time()
        rc = rc or self.lib.nvJitLinkComplete(h)
        c3 = time.process_time()
        cubin = None
        if rc == 0:
            n = ctypes.c_size_t()
            self.lib.nvJitLinkGetLinkedCubinSize(h, ctypes.byref(n))
            buf = ctypes.create_string_buffer(n.value)
            self.lib.nvJitLinkGetLinkedCubin(h, buf)
            cubin = buf.raw
        self.lib.nvJitLinkDestroy(ctypes.byref(h))
        if cubin is None:
            return None
        return ((c1 - c0) * 1e3, (c2 - c1) * 1e3, (c3 - c2) * 1e3), cubin


def sass_count(nvdisasm, cubin):
    if not nvdisasm:
        return None
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        p = subprocess.run([nvdisasm, "-c", f.name], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    return sum(1 for ln in p.stdout.splitlines() if re.match(r"\s+/\*[0-9a-f]{4,}\*/", ln))


def kernels_ptx(cc):
    from pycuda_jit import cuda
    ns = {}
    exec("def empty(x):\n    pass\n", ns)
    ptx, _ = cuda.compile_ptx(ns["empty"], "void(float32[:])", cc=cc)
    out = [("empty", ptx)]
    for j in range(4):
        src = "import math\nfrom pycuda_jit import cuda\n" + KERNEL.format(j=j, salt=7).replace(
            '@cuda.jit("void(float32[:], float32[:])")\n', "")
        ns = {}
        exec(compile(src, f"<k{j}>", "exec"), ns)
        ptx, _ = cuda.compile_ptx(ns[f"k{j}_7"], "void(float32[:], float32[:])", cc=cc)
        out.append((f"k{j} ({j % 4 + 1} iter)", ptx))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--cc", default="9.0")
    args = ap.parse_args()
    major, minor = (int(x) for x in args.cc.split("."))
    arch = f"sm_{major}{minor}"
    path = find_nvjitlink()
    if not path:
        print("nvJitLink not found (CUDA_HOME)", file=sys.stderr)
        return 1
    linker = Linker(path)
    nvdisasm = find_tool("nvdisasm")
    ptxs = kernels_ptx((major, minor))
    linker.link(ptxs[1][1], arch, "")  # warm: nvJitLink's first-use costs
    print(f"nvJitLink {path}, {arch}, CPU ms per link (median of {args.repeat}), "
          f"SASS from {nvdisasm or '(no nvdisasm: -)'}")
    print(f"{'kernel':16s} {'options':44s} {'create':>7s} {'ptxas':>7s} {'complete':>8s} "
          f"{'total':>7s} {'vs -O3':>7s} {'cubin':>6s} {'SASS':>5s}")
    med = statistics.median
    for name, ptx in ptxs:
        base = None
        for opt in LEVELS:
            runs = [linker.link(ptx, arch, opt) for _ in range(args.repeat)]
            if any(r is None for r in runs):
                print(f"{name:16s} {opt or '(default, -O3)':44s} refused by nvJitLink")
                continue
            parts = [med(r[0][i] for r in runs) for i in range(3)]
            total = med(sum(r[0]) for r in runs)
            base = base or total
            cubin = runs[-1][1]
            sass = sass_count(nvdisasm, cubin)
            print(f"{name:16s} {opt or '(default, -O3)':44s} {parts[0]:7.2f} {parts[1]:7.2f} "
                  f"{parts[2]:8.2f} {total:7.2f} {total / base:7.2f} {len(cubin):6d} "
                  f"{sass if sass is not None else '-':>5}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
