"""Compile time against program size, to see how it grows: a kernel taking
an N-element tuple (indexed at run time and iterated), and a generated
N-statement kernel (the shape of tests/kernels/test_compile_scale.py).  For
each size: the PTX compile (frontend + LLVM + PTX emission, no GPU needed)
and the CPU executor's compile (frontend + LLVM + host JIT) with its stage
split.  Milliseconds of process CPU time (the compiler runs in this thread),
so a loaded machine skews them less than wall time.

    PYTHONPATH=. python3 benchmarks/compile_scaling.py [--sizes 100,500,...]
"""
import argparse
import os
import sys
import time

os.environ.setdefault("PYCUDA_JIT_BACKEND", "cpu")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from pycuda_jit import cuda  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tests", "kernels"))
from test_compile_scale import generated_kernel  # noqa: E402


def tuple_kernel(tag):
    src = (f"def tuple_sum_{tag}(t, idx, out):\n"
           "    i = cuda.grid(1)\n"
           "    if i < idx.size:\n"
           "        s = t[0] * 0\n"
           "        for v in t:\n"
           "            s += v\n"
           "        out[i] = t[idx[i]] + s\n")
    ns = {"cuda": cuda}
    exec(compile(src, f"<tuple kernel {tag}>", "exec"), ns)
    return ns[f"tuple_sum_{tag}"]


def statement_kernel(n):
    """The generated n-statement kernel of tests/kernels/test_compile_scale.py
    (one generator: the test checks its values, this times its compile)."""
    return generated_kernel(n)[0]


def cpu_ms(fn):
    t = time.process_time()
    fn()
    return (time.process_time() - t) * 1e3


def stages(k):
    tm = k.stats["timings_ms"]
    front = sum(tm.get(s, 0) for s in ("decode", "cfg", "ssa", "typeinfer", "transforms"))
    return (f"frontend {front:7.1f}  lower {tm.get('lower', 0):7.1f}  "
            f"optimize {tm.get('codegen.optimize', 0):7.1f}  jit {tm.get('codegen.jit', 0):7.1f}")


def run_tuple(n):
    sig = "void((" + ", ".join(["float32"] * n) + "), int64[:], float32[:])"
    ptx = cpu_ms(lambda: cuda.compile_ptx(tuple_kernel(f"p{n}"), sig))
    k = cuda.jit(tuple_kernel(f"c{n}"))
    vals = np.arange(n, dtype=np.float32)
    out = np.zeros(4, np.float32)
    host = cpu_ms(lambda: k[1, 4](tuple(vals), np.arange(4), out))
    assert out[1] == 1 + vals.sum(), out
    print(f"tuple      {n:6d}: ptx {ptx:8.1f} ms | cpu executor {host:8.1f} ms ({stages(k)})",
          flush=True)


def run_statements(n):
    ptx = cpu_ms(lambda: cuda.compile_ptx(statement_kernel(n), "void(float64[:], float64[:, :])"))
    k = cuda.jit(statement_kernel(n))
    host = cpu_ms(lambda: k[1, 4](np.ones(16), np.zeros((4, 8))))
    print(f"statements {n:6d}: ptx {ptx:8.1f} ms | cpu executor {host:8.1f} ms ({stages(k)})",
          flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100,500,1000,2000,3000,5000")
    ap.add_argument("--only", choices=["tuple", "statements"])
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    print(f"# compile time (process CPU ms) vs size; {os.cpu_count()} CPUs")
    for n in sizes:
        if a.only != "statements":
            run_tuple(n)
    for n in sizes:
        if a.only != "tuple":
            run_statements(n)


if __name__ == "__main__":
    main()
