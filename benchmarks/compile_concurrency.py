"""Compile concurrency (issue 13 item 5): a module of 32 distinct kernels with
eager signatures, imported (decorated) and each launched once, in a fresh
process per run.  Kernels are named anew per run (and hold a per-run
constant), so the driver's compute cache cannot hide ptxas.

Columns, wall milliseconds after context creation (medians of --repeat runs):
  ours         the default compile pool (PYCUDA_JIT_COMPILE_THREADS unset)
  ours serial  PYCUDA_JIT_COMPILE_THREADS=0: every kernel compiled at its
               decoration, one after another (the behaviour before the pool)
  numba-cuda   the same module with `from numba import cuda` (GPU only;
               --numba-python names an interpreter that has it)
Rows: the whole module (decorate + launch all 32), the decoration alone, and
the first call: import of a module with one eager kernel plus its launch.

    PYTHONPATH=. python3 benchmarks/compile_concurrency.py [--repeat 5] [--backend cpu|cuda]

Targets (H200 machine, 16 cores): whole module <= 150 ms, first call <= 30 ms.
On the CPU executor the figures only show the overlap the cores allow.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
COUNT = 32

# One kernel of the module; {j} and {salt} make each distinct per run.
KERNEL = textwrap.dedent('''
    @cuda.jit("void(float32[:], float32[:])")
    def k{j}_{salt}(x, out):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            acc = v * {j}.0 + {salt}.0
            for r in range({j} % 4 + 1):
                acc = acc * 0.5 + math.sin(v) * r
            out[i] = acc
''')

CHILD = textwrap.dedent(r'''
    import importlib, json, math, sys, time
    import numpy as np
    impl, folder, name, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    if impl == "numba":
        if not hasattr(np, "row_stack"):
            np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2.5
        from numba import cuda
    else:
        from pycuda_jit import cuda
    cuda.synchronize()                       # context creation, not counted
    sys.path.insert(0, folder)
    n = 1000
    x = np.linspace(-2, 2, n).astype(np.float32)
    dx = cuda.to_device(x)
    out = cuda.device_array(n, np.float32)
    t0 = time.perf_counter()
    mod = importlib.import_module(name)      # decoration: eager compiles start
    t1 = time.perf_counter()
    kernels = [getattr(mod, k) for k in sorted(vars(mod)) if k.startswith("k")]
    first = None
    for k in kernels:
        k[(n + 127) // 128, 128](dx, out)
        if first is None:
            cuda.synchronize()
            first = time.perf_counter()
    cuda.synchronize()
    t2 = time.perf_counter()
    # Check the last kernel's values (k{count-1}).
    j = int(kernels[-1].__name__[1:].split("_")[0]) if hasattr(kernels[-1], "__name__") else None
    res = {"decorate_ms": (t1 - t0) * 1e3, "total_ms": (t2 - t0) * 1e3,
           "first_ready_ms": (first - t0) * 1e3, "kernels": len(kernels),
           "out_sum": float(out.copy_to_host().astype(np.float64).sum())}
    print(json.dumps(res))
''')


def module_source(salt, count):
    body = "".join(KERNEL.format(j=j, salt=salt) for j in range(count))
    return "import math\nfrom CUDA_IMPORT import cuda\n" + body


def reference_sum(salt, j):
    import numpy as np
    x = np.linspace(-2, 2, 1000).astype(np.float32)
    acc = x * np.float32(j) + np.float32(salt)
    for r in range(j % 4 + 1):
        acc = acc * np.float32(0.5) + np.sin(x) * np.float32(r)
    return float(acc.astype(np.float64).sum())


def run_once(python, impl, salt, count, env):
    folder = tempfile.mkdtemp(prefix="pcj-cc-")
    name = f"cc_module_{salt}"
    src = module_source(salt, count).replace(
        "CUDA_IMPORT", "numba" if impl == "numba" else "pycuda_jit")
    with open(os.path.join(folder, name + ".py"), "w") as f:
        f.write(src)
    p = subprocess.run([python, "-c", CHILD, impl, folder, name, str(count)],
                       capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, **env})
    if p.returncode != 0:
        raise RuntimeError(f"{impl} failed:\n{p.stderr[-3000:]}")
    res = json.loads(p.stdout.strip().splitlines()[-1])
    # The last kernel launched is the last in sorted name order.
    last = sorted(range(count), key=lambda j: f"k{j}_{salt}")[-1]
    want = reference_sum(salt, last)
    if abs(res["out_sum"] - want) > 1e-3 * max(1.0, abs(want)):
        raise RuntimeError(f"{impl}: wrong values (sum {res['out_sum']} != {want})")
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--backend", default=os.environ.get("PYCUDA_JIT_BACKEND", "auto"))
    ap.add_argument("--numba-python", default=sys.executable)
    ap.add_argument("--count", type=int, default=COUNT)
    args = ap.parse_args()
    base = {"PYTHONPATH": ROOT, "PYCUDA_JIT_BACKEND": args.backend}
    base_env = {k: v for k, v in os.environ.items() if k != "PYCUDA_JIT_COMPILE_THREADS"}
    os.environ.clear()
    os.environ.update(base_env)
    salt0 = time.time_ns() % 10_000_000
    modes = [("ours", "ours", {}), ("ours serial", "ours", {"PYCUDA_JIT_COMPILE_THREADS": "0"})]
    if args.backend != "cpu":
        modes.append(("numba-cuda", "numba", {}))
    results = {}
    for r in range(args.repeat):
        for m, (label, impl, extra) in enumerate(modes):
            salt = salt0 + r * 10 + m
            python = args.numba_python if impl == "numba" else sys.executable
            try:
                results.setdefault(label, []).append(
                    run_once(python, impl, salt, args.count, {**base, **extra}))
            except RuntimeError as e:
                print(str(e).splitlines()[0], file=sys.stderr)
                results.setdefault(label, [])
    one = {}
    for label, impl, extra in modes:  # first call: one eager kernel
        try:
            one[label] = statistics.median(
                run_once(sys.executable if impl == "ours" else args.numba_python, impl,
                         salt0 + 5000 + r * 10 + k, 1, {**base, **extra})["first_ready_ms"]
                for k, r in enumerate(range(args.repeat)))
        except RuntimeError:
            one[label] = None

    def med(label, key):
        vals = [x[key] for x in results.get(label, [])]
        return statistics.median(vals) if vals else None

    print(f"{args.count} kernels with eager signatures, backend {args.backend}, "
          f"{os.cpu_count()} CPUs, medians of {args.repeat} fresh processes (ms, after context)")
    labels = [m[0] for m in modes]
    print(f"{'':34s}" + "".join(f"{l:>14s}" for l in labels))
    for key, title in (("total_ms", "decorate + launch all"), ("decorate_ms", "decoration alone"),
                       ("first_ready_ms", "until the first launch is done")):
        row = [med(l, key) for l in labels]
        print(f"{title:34s}" + "".join(f"{v:14.1f}" if v is not None else f"{'-':>14s}" for v in row))
    print(f"{'first call (1 kernel module)':34s}" +
          "".join(f"{one[l]:14.1f}" if one.get(l) is not None else f"{'-':>14s}" for l in labels))
    t, s = med("ours", "total_ms"), med("ours serial", "total_ms")
    if t and s:
        print(f"serial / pool = {s / t:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
