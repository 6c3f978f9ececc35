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

    PYTHONPATH=. python3 benchmarks/compile_concurrency.py [--repeat 5] [--backend cpu|cuda] [--stages]
        [--pool-threads 8,16]

--stages sets PYCUDA_JIT_TIMING=1 in the children and prints each mode's
per-kernel stage medians (codegen.libdevice/optimize/emit, load.link: ptxas
in nvJitLink, load.module: cuModuleLoadData).  --pool-threads 8,16 adds a
column per pool size (the default pool is min(cores, 16): on the H200's 16
cores, whether 16 threads finish the 32 kernels sooner or only slow each
link down is this column's question).

Targets (H200 machine, 16 cores): whole module <= 150 ms, first call <= 30 ms.
On the CPU executor the figures only show the overlap the cores allow.

--cubin: the GPU compile path up to the cubin, no GPU needed: the same 32
kernels through cuda.compile_ptx (sm_90) and nvJitLink (_core.link_ptx), in
a fresh process per run, first one kernel alone (cold: the code generator,
LLVM and nvJitLink load), then the other 31 on one thread ("serial") or on
--threads Python threads (compile_ptx and link_ptx release the GIL;
--threads 8,16 runs each count).
Printed: wall ms of the cold kernel and of the 31, each kernel's thread CPU
ms (compile_ptx, link; robust to a loaded machine), per thread count the
warm kernels' CPU against wall ms (CPU growing with the threads: the cores
are contended; wall growing alone: waiting), and the median of each stage
of PYCUDA_JIT_TIMING over the warm kernels.  --pythonpath runs another
tree (a baseline build) the same way.

    PYTHONPATH=. python3 benchmarks/compile_concurrency.py --cubin [--repeat 3] [--passes]

--passes (with --cubin): the serial runs set PYCUDA_JIT_TIMING=passes and
print the median self time of each pass of LLVM's optimisation pipeline per
warm kernel (codegen/PassTiming.cpp; wall time, so only an idle machine's
figures are worth comparing).  benchmarks/ptxas_levels.py times the link
itself per ptxas option level.

Where a kernel's time goes (docs/compiler.md, "Compile latency").
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


# --cubin: compile_ptx + link_ptx of the module's kernels (undecorated).
CUBIN_CHILD = textwrap.dedent(r'''
    import json, math, sys, time
    from concurrent.futures import ThreadPoolExecutor
    from pycuda_jit import cuda
    from pycuda_jit._lazy import core
    threads = int(sys.argv[1])
    ns = {}
    exec(compile(sys.stdin.read(), "<cc_cubin>", "exec"), ns)
    fns = [ns[k] for k in sorted(ns) if k.startswith("k")]

    def one(f):
        c0, w0 = time.thread_time(), time.perf_counter()
        ptx, _ = cuda.compile_ptx(f, "void(float32[:], float32[:])", cc=(9, 0))
        c1, w1 = time.thread_time(), time.perf_counter()
        cubin = core().link_ptx(ptx, 9, 0)
        c2, w2 = time.thread_time(), time.perf_counter()
        assert cubin[:4] == b"\x7fELF", "nvJitLink gave no cubin"
        return {"ptx_cpu": (c1 - c0) * 1e3, "link_cpu": (c2 - c1) * 1e3,
                "ptx_wall": (w1 - w0) * 1e3, "link_wall": (w2 - w1) * 1e3}

    t0 = time.perf_counter()
    first = one(fns[0])
    t1 = time.perf_counter()
    if threads <= 1:
        rest = [one(f) for f in fns[1:]]
    else:
        with ThreadPoolExecutor(threads) as ex:
            rest = list(ex.map(one, fns[1:]))
    t2 = time.perf_counter()
    print(json.dumps({"first_ms": (t1 - t0) * 1e3, "rest_ms": (t2 - t1) * 1e3,
                      "first": first, "rest": rest}))
''')


def stage_times(stderr):
    """PYCUDA_JIT_TIMING lines -> [{stage: ms}] in the order printed."""
    out = []
    for line in stderr.splitlines():
        if not line.startswith("pycuda_jit timing") or "]:" not in line:
            continue
        stages = {}
        for item in line.split("]:", 1)[1].split():
            name, _, ms = item.partition("=")
            if ms.endswith("ms"):
                stages[name] = float(ms[:-2])
        out.append(stages)
    return out


def pass_times(stderr):
    """PYCUDA_JIT_TIMING=passes lines -> [{pass: self ms}] in the order printed."""
    out = []
    for line in stderr.splitlines():
        if not line.startswith("pycuda_jit passes") or "]:" not in line:
            continue
        passes = {}
        for item in line.split("]:", 1)[1].split(" (+")[0].split():
            name, _, ms = item.partition("=")
            passes[name] = float(ms[:-2] if ms.endswith("ms") else ms)
        out.append(passes)
    return out


def run_cubin(python, pythonpath, salt, count, threads, passes=False):
    src = "import math\nfrom pycuda_jit import cuda\n" + "".join(
        KERNEL.format(j=j, salt=salt).replace(
            '@cuda.jit("void(float32[:], float32[:])")\n', "")
        for j in range(count))
    env = {**os.environ, "PYTHONPATH": pythonpath,
           "PYCUDA_JIT_TIMING": "passes" if passes else "1",
           "PYCUDA_JIT_BACKEND": "cpu"}
    p = subprocess.run([python, "-c", CUBIN_CHILD, str(threads)], input=src,
                       capture_output=True, text=True, cwd=pythonpath, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"--cubin child failed:\n{p.stderr[-3000:]}")
    res = json.loads(p.stdout.strip().splitlines()[-1])
    res["stages"] = stage_times(p.stderr)
    res["passes"] = pass_times(p.stderr)
    return res


def cubin_main(args):
    counts = [int(t) for t in str(args.threads or min(os.cpu_count() or 1, 16)).split(",")]
    salt0 = time.time_ns() % 10_000_000
    runs = {"serial": 1, **{f"{t} threads": t for t in counts}}
    runs = {label: (t, []) for label, t in runs.items()}
    for r in range(args.repeat):
        for m, (label, (t, out)) in enumerate(runs.items()):
            out.append(run_cubin(sys.executable, args.pythonpath, salt0 + r * 100 + m,
                                 args.count, t, passes=args.passes and label == "serial"))
    runs = {label: out for label, (t, out) in runs.items()}
    med = statistics.median
    print(f"--cubin: {args.count} kernels, compile_ptx(sm_90) + nvJitLink, tree "
          f"{args.pythonpath}, {os.cpu_count()} CPUs, medians of {args.repeat} fresh processes")
    for label, rs in runs.items():
        print(f"  {label:12s} cold kernel {med(x['first_ms'] for x in rs):7.1f} ms wall, "
              f"other {args.count - 1}: {med(x['rest_ms'] for x in rs):7.1f} ms wall")
    rs = runs["serial"]
    for key, title in (("ptx_cpu", "compile_ptx"), ("link_cpu", "link (nvJitLink)")):
        cold = med(x["first"][key] for x in rs)
        warm = med(med(k[key] for k in x["rest"]) for x in rs)
        print(f"  CPU per kernel, {title:17s} cold {cold:6.2f} ms, warm {warm:6.2f} ms")
    # Per warm kernel on the threads: CPU (thread time) against wall.  CPU
    # rising with the thread count is contention for the cores (shared
    # caches, SMT siblings); wall rising with CPU flat is waiting (a lock,
    # the GIL, too few cores).
    for label, rs in runs.items():
        cells = []
        for what in ("ptx", "link"):
            cpu = med(med(k[what + "_cpu"] for k in x["rest"]) for x in rs)
            wall = med(med(k[what + "_wall"] for k in x["rest"]) for x in rs)
            cells.append(f"{what} {cpu:6.2f} CPU / {wall:6.2f} wall")
        print(f"  per warm kernel, {label:12s} " + ", ".join(cells) + " ms")
    names = []
    for x in rs:
        for st in x["stages"]:
            names += [n for n in st if n not in names]
    print("  stages (serial, ms wall): " + ", ".join(
        f"{n} {med(med(st.get(n, 0.0) for st in x['stages'][1:]) for x in rs):.2f}"
        for n in names) + " (warm); cold total " +
        f"{med(x['stages'][0].get('total', 0.0) for x in rs):.2f}")
    if args.passes:
        print_pass_medians([x["passes"][1:] for x in rs])
    return 0


def print_pass_medians(runs):
    """--passes: each pass's median self ms per warm kernel (the optimisation
    pipeline only; NVPTX emission is codegen.emit), the costliest first."""
    med = statistics.median
    names = {n for r in runs for k in r for n in k if n != "total"}
    per = {n: med(med(k.get(n, 0.0) for k in r) for r in runs if r) for n in names}
    total = med(med(k.get("total", 0.0) for k in r) for r in runs if r)
    top = sorted(per.items(), key=lambda kv: -kv[1])[:20]
    print(f"  optimize pipeline per pass (serial, median self ms per warm kernel; "
          f"total {total:.2f}):")
    for n, ms in top:
        print(f"    {n:48s} {ms:6.2f}  {100 * ms / total if total else 0:5.1f}%")


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
    res["stages"] = stage_times(p.stderr)
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
    ap.add_argument("--stages", action="store_true",
                    help="PYCUDA_JIT_TIMING in the children: per-stage medians")
    ap.add_argument("--cubin", action="store_true",
                    help="stop at the cubin: compile_ptx + nvJitLink, no GPU")
    ap.add_argument("--passes", action="store_true",
                    help="--cubin: PYCUDA_JIT_TIMING=passes, per-pass medians of LLVM's pipeline")
    ap.add_argument("--threads", default="",
                    help="--cubin: Python threads, or a comma list of counts "
                         "(default min(cores, 16))")
    ap.add_argument("--pool-threads", default="",
                    help="comma list of pool sizes to run as extra columns "
                         "(PYCUDA_JIT_COMPILE_THREADS=N), e.g. 8,12,16")
    ap.add_argument("--pythonpath", default=ROOT,
                    help="--cubin: the tree to import pycuda_jit from")
    args = ap.parse_args()
    if args.cubin:
        return cubin_main(args)
    base = {"PYTHONPATH": ROOT, "PYCUDA_JIT_BACKEND": args.backend}
    if args.stages:
        base["PYCUDA_JIT_TIMING"] = "1"
    base_env = {k: v for k, v in os.environ.items() if k != "PYCUDA_JIT_COMPILE_THREADS"}
    os.environ.clear()
    os.environ.update(base_env)
    salt0 = time.time_ns() % 10_000_000
    modes = [("ours", "ours", {}), ("ours serial", "ours", {"PYCUDA_JIT_COMPILE_THREADS": "0"})]
    for n in filter(None, args.pool_threads.split(",")):
        modes.append((f"ours {int(n)} thr", "ours", {"PYCUDA_JIT_COMPILE_THREADS": str(int(n))}))
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
    for label in labels if args.stages else ():
        runs = [x["stages"] for x in results.get(label, []) if x["stages"]]
        names = []
        for st in (st for r in runs for st in r):
            names += [n for n in st if n not in names]
        if runs:
            print(f"  {label} stages (ms, median per kernel): " + ", ".join(
                f"{n} {statistics.median(statistics.median(st.get(n, 0.0) for st in r) for r in runs):.2f}"
                for n in names))
    t, s = med("ours", "total_ms"), med("ours serial", "total_ms")
    if t and s:
        print(f"serial / pool = {s / t:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
