"""Compile once per machine: N processes started together need the same
kernel.  With the disk cache shared (one directory), one of them compiles
and the others wait for its entry (runtime/CacheLock.cpp); as the baseline,
each process gets its own empty cache directory and compiles.

    python benchmarks/compile_once.py [--procs 16] [--repeat 3] [--json out.json]

Every process imports pycuda_jit and defines the kernel, then all wait at
one barrier and launch together; each reports its cache status
(kernel.stats["cache"]: "miss" = it compiled) and the time from the barrier
to its launch returning.  Printed per mode (median of --repeat runs): the
number of compiles, the wall time from the barrier to the last process
done, and the CPU seconds the processes spent compiling or waiting.  Runs
on whatever backend PYCUDA_JIT_BACKEND selects (the CPU executor here, the
GPU on the H200).
"""
import argparse
import json
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import time
import warnings

KERNEL = '''
import math
from pycuda_jit import cuda

@cuda.jit(cache=True)
def kernel(x, out):
    i = cuda.grid(1)
    if i < out.size:
        v = x[i]
        acc = 0.0
        for k in range(16):
            acc += math.sin(v * k) * math.exp(-0.1 * k) + math.sqrt(abs(v) + k)
        out[i] = acc
'''


def worker(cache_dir, barrier, queue):
    warnings.simplefilter("ignore")
    os.environ["PYCUDA_JIT_CACHE_DIR"] = cache_dir
    import numpy as np
    ns = {"__name__": "compile_once_bench"}
    exec(compile(KERNEL, "<compile_once>", "exec"), ns)
    k = ns["kernel"]
    x = np.linspace(0, 1, 1024)
    out = np.zeros(1024)
    barrier.wait()
    t0 = time.perf_counter()
    c0 = time.process_time()
    k[8, 128](x, out)
    queue.put((k.stats["cache"], time.perf_counter() - t0, time.process_time() - c0,
               time.time(), float(out.sum())))


def run(procs, shared):
    ctx = multiprocessing.get_context("spawn")
    barrier, queue = ctx.Barrier(procs + 1), ctx.Queue()
    root = tempfile.mkdtemp(prefix="pcj-compile-once-")
    dirs = [root if shared else os.path.join(root, str(k)) for k in range(procs)]
    ps = [ctx.Process(target=worker, args=(d, barrier, queue)) for d in dirs]
    for p in ps:
        p.start()
    barrier.wait()  # everyone imported and ready
    start = time.time()
    results = [queue.get(timeout=600) for _ in range(procs)]
    for p in ps:
        p.join()
    shutil.rmtree(root, ignore_errors=True)
    sums = {round(r[4], 9) for r in results}
    assert len(sums) == 1, f"processes disagree: {sums}"
    return {
        "compiles": sum(r[0].startswith("miss") for r in results),
        "wall_s": max(r[3] for r in results) - start,
        "cpu_s": sum(r[2] for r in results),
        "slowest_launch_s": max(r[1] for r in results),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--procs", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    from pycuda_jit import cuda
    out = {"procs": args.procs, "backend": cuda.backend(), "cores": os.cpu_count()}
    for mode, shared in (("shared cache, compile once", True),
                         ("independent compiles", False)):
        runs = [run(args.procs, shared) for _ in range(args.repeat)]
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        med["compiles_each_run"] = [r["compiles"] for r in runs]
        out[mode] = med
        print(f"{mode:28s}: {med['compiles_each_run']} compiles, "
              f"wall {med['wall_s']:.2f} s, CPU {med['cpu_s']:.2f} s, "
              f"slowest launch {med['slowest_launch_s']:.2f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
