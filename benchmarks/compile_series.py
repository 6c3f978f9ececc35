"""Compile-to-loaded time of a series of distinct kernels in one process,
stage by stage: our frontend + LLVM (`codegen`), PTX -> cubin (`link`,
nvJitLink), module load.  The PTX -> cubin step runs ptxas, whose results
the CUDA driver caches on disk (~/.nv/ComputeCache, CUDA_CACHE_PATH), so
the same series runs in two fresh processes: the first compiles kernels
never seen on this machine (ptxas runs), the second the same kernels again
(ptxas results come from the driver's cache).

    PYTHONPATH=. python3 benchmarks/compile_series.py [--kernels N]
"""
import argparse
import os
import subprocess
import sys
import textwrap
import time

CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    from pycuda_jit import cuda
    cuda.synchronize()
    x = cuda.to_device(np.ones(1024, np.float32))
    out = cuda.device_array(1024, np.float32)
    salt = int(sys.argv[2])
    for j in range(int(sys.argv[1])):
        ns = {}
        exec(f'''
    @cuda.jit
    def k(a, x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] * x[i] - a + {salt + j}.0
    ''', {"cuda": cuda}, ns)
        k = ns["k"]
        t = time.perf_counter()
        k[4, 256](np.float32(2.0), x, out)
        cuda.synchronize()
        ms = (time.perf_counter() - t) * 1e3
        tm = k.stats["timings_ms"]
        front = sum(tm.get(s, 0) for s in ("decode", "cfg", "ssa", "typeinfer", "transforms"))
        print(f"kernel {j}: {ms:6.2f} ms = frontend {front:5.2f} + lower {tm.get('lower', 0):5.2f}"
              f" + codegen {tm.get('codegen', 0):5.2f} + link {tm.get('load.link', 0):6.2f}"
              f" + module {tm.get('load.module', 0):5.2f}")
""")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", type=int, default=6)
    a = ap.parse_args()
    env = {**os.environ, "PYCUDA_JIT_BACKEND": "cuda"}
    salt = str(time.time_ns() % 1000000)  # kernels new to this machine
    for label in ("new kernels (ptxas runs)", "the same kernels, new process (driver's ptxas cache)"):
        print(f"-- {label}", flush=True)
        r = subprocess.run([sys.executable, "-c", CHILD, str(a.kernels), salt], env=env)
        if r.returncode:
            return r.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
