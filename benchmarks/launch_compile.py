"""Issue 7's table, measured in one run on a GPU machine, beside a C
cuLaunchKernel loop (launch_floor.c, on the same PTX) and numba-cuda:

  saxpy launch with our device arrays / CuPy arrays / torch tensors,
  a launch with 16 scalar arguments, `import pycuda_jit`, a second kernel's
  compile-to-loaded time, the first call in a fresh process beyond context
  creation, and a disk-cache hit in a fresh process beyond context creation.

    PYTHONPATH=. python3 benchmarks/launch_compile.py [--out DIR] [--repeat N]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

KERNELS = textwrap.dedent(r"""
    @cuda.jit{opts}
    def saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]

    @cuda.jit{opts}
    def k16(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15):
        if a0 > 1e30 and cuda.grid(1) == 0:
            print(a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15)
""")

# Launch overheads, the same in both children: WARM untimed launches, then the
# median over REPS rounds of COUNT launches (numba's are slower: fewer).
LAUNCHES = textwrap.dedent(r"""
    def per_launch(fn):
        for _ in range(WARM):
            fn()
        cuda.synchronize()
        reps = []
        for _ in range(REPS):
            s = time.perf_counter()
            for _ in range(COUNT):
                fn()
            e = time.perf_counter()
            cuda.synchronize()
            reps.append((e - s) / COUNT * 1e6)
        return statistics.median(reps)

    small = cuda.device_array(256, np.float32)
    res["launch_ours_us"] = per_launch(lambda: saxpy[128, 256](a, small, small, small))
    args16 = tuple(np.float32(k) for k in range(16))
    res["launch_16_us"] = per_launch(lambda: k16[128, 32](*args16))
    try:
        import cupy
        c = cupy.zeros(256, cupy.float32)
        res["launch_cupy_us"] = per_launch(lambda: saxpy[128, 256](a, c, c, c))
    except Exception as e:
        res["cupy_error"] = repr(e)[:200]
    try:
        import torch
        t = torch.zeros(256, dtype=torch.float32, device="cuda")
        res["launch_torch_us"] = per_launch(lambda: saxpy[128, 256](a, t, t, t))
    except Exception as e:
        res["torch_error"] = repr(e)[:200]
""")


def launches(indent, warm, reps, count):
    code = LAUNCHES.replace("WARM", str(warm)).replace("REPS", str(reps)).replace("COUNT", str(count))
    return textwrap.indent(code, indent).strip() + "\n"


# Fresh process: phases of the first call, then launch overheads.
OURS = textwrap.dedent(r"""
    import json, statistics, sys, time
    cache = sys.argv[1] == "cache"
    t0 = time.perf_counter()
    import numpy as np
    t1 = time.perf_counter()
    import pycuda_jit
    from pycuda_jit import cuda
    t2 = time.perf_counter()
    from pycuda_jit._lazy import core
    core()                                  # the extension (no LLVM: it loads on the first compile)
    t3 = time.perf_counter()
    cuda.synchronize()                      # CUDA context creation
    t4 = time.perf_counter()
    KERNELS
    n = 1 << 20
    x = cuda.to_device(np.ones(n, np.float32))
    y = cuda.to_device(np.ones(n, np.float32))
    out = cuda.device_array(n, np.float32)
    a = np.float32(2.0)
    t5 = time.perf_counter()
    saxpy[n // 256, 256](a, x, y, out)
    cuda.synchronize()
    t6 = time.perf_counter()
    assert (out.copy_to_host() == 3.0).all()
    res = {"import_numpy_ms": (t1 - t0) * 1e3, "import_ms": (t2 - t1) * 1e3,
           "extension_ms": (t3 - t2) * 1e3, "context_ms": (t4 - t3) * 1e3,
           "first_call_ms": (t6 - t5) * 1e3, "stats": saxpy.stats}
    if not cache:
        # A kernel new to this machine each run (a constant from argv), so
        # the driver's ptxas cache cannot serve it.
        ns = {}
        exec("@cuda.jit\ndef second(a, x, out):\n    i = cuda.grid(1)\n    if i < x.size:\n"
             f"        out[i] = a * x[i] * x[i] - a + {int(sys.argv[2])}.0\n", {"cuda": cuda}, ns)
        second = ns["second"]
        t7 = time.perf_counter()
        second[n // 256, 256](a, x, out)
        cuda.synchronize()
        res["second_ms"] = (time.perf_counter() - t7) * 1e3
        res["second_stats"] = second.stats

        LAUNCHES
        res["ptx_saxpy"] = saxpy.inspect_asm(saxpy.signatures[0])
        res["name_saxpy"] = saxpy.stats["name"]
        res["ptx_k16"] = k16.inspect_asm(k16.signatures[0])
        res["name_k16"] = k16.stats["name"]
    print(json.dumps(res))
""").replace("LAUNCHES", launches("    ", 1000, 7, 10000)).replace("KERNELS", textwrap.dedent("""
    # Kernels named anew for each run (argv[2]), so that no earlier run left
    # their ptxas output in the driver's compute cache.
    salt = sys.argv[2]
    ns = {"cuda": cuda, "cache": cache}
    exec(KSRC.replace("def saxpy(", "def saxpy_" + salt + "(")
             .replace("def k16(", "def k16_" + salt + "("), ns)
    saxpy, k16 = ns["saxpy_" + salt], ns["k16_" + salt]
""").replace("KSRC", repr(KERNELS.format(opts="(cache=cache)"))))

NUMBA = textwrap.dedent(r"""
    import json, statistics, time
    t0 = time.perf_counter()
    import numpy as np
    np.row_stack = np.vstack          # numba-cuda 0.30 vs numpy 2.5
    t1 = time.perf_counter()
    from numba import cuda
    t2 = time.perf_counter()
    cuda.synchronize()
    t3 = time.perf_counter()
    KERNELS
    n = 1 << 20
    x = cuda.to_device(np.ones(n, np.float32))
    y = cuda.to_device(np.ones(n, np.float32))
    out = cuda.device_array(n, np.float32)
    a = np.float32(2.0)
    t4 = time.perf_counter()
    saxpy[n // 256, 256](a, x, y, out)
    cuda.synchronize()
    t5 = time.perf_counter()
    @cuda.jit
    def second(a, x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] * x[i] - a
    t6 = time.perf_counter()
    second[n // 256, 256](a, x, out)
    cuda.synchronize()
    t7 = time.perf_counter()
    res = {"import_ms": (t2 - t1) * 1e3, "context_ms": (t3 - t2) * 1e3,
           "first_call_ms": (t5 - t4) * 1e3, "second_ms": (t7 - t6) * 1e3}
    LAUNCHES
    print(json.dumps(res))
""").replace("LAUNCHES", launches("", 200, 5, 2000)).replace("KERNELS", KERNELS.format(opts=""))


# Launches use a grid of 128 blocks, ours, numba-cuda's and the C floor's
# alike: the smallest grid that does not warn about low occupancy (both
# libraries warn at every kernel[...] below it, and the launch figure would
# then measure Python's warnings module, ~1 us, instead of the launch path
# real grids take).  The kernels check i < x.size, so the extra blocks do
# nothing and the GPU keeps up with the host.
GRID = 128

# The CPUs every measured process (ours, numba-cuda's, the C floor) is
# pinned to (--cpus): the same cores for all, so that a process placed on a
# slower core or the GPU's far NUMA node does not pass for launch overhead.
PIN = None


def _pin():
    if PIN:
        os.sched_setaffinity(0, PIN)


def run_py(code, args=(), env=None):
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                       preexec_fn=_pin,
                       env={**os.environ, **(env or {})}, cwd=ROOT)
    if p.returncode != 0:
        return None, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1]), None


def floor(exe, ptx_path, name, argspec, block):
    c = subprocess.run([exe, ptx_path, name, "--args", argspec, "--grid", str(GRID), "--block", str(block)],
                       preexec_fn=_pin,
                       capture_output=True, text=True)
    for tok in c.stdout.split():
        if tok.startswith("us_per_launch="):
            return float(tok.split("=")[1])
    print("launch_floor failed:", c.stdout, c.stderr)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=tempfile.mkdtemp())
    ap.add_argument("--repeat", type=int, default=1,
                    help="fresh processes for ours and the C floor (medians reported)")
    ap.add_argument("--cpus", default="2,3",
                    help="pin every measured process to these CPUs ('' : no pinning)")
    args = ap.parse_args()
    global PIN
    avail = os.sched_getaffinity(0)
    want = {int(c) for c in args.cpus.split(",") if c.strip()}
    PIN = (want & avail) or None
    print(f"measured processes pinned to CPUs {sorted(PIN) if PIN else 'none (not pinned)'}")
    cache_dir = tempfile.mkdtemp(prefix="pcj-cache-")
    env = {"PYTHONPATH": ROOT, "PYCUDA_JIT_BACKEND": "cuda", "PYCUDA_JIT_CACHE_DIR": cache_dir}
    salt = time.time_ns() % 1000000
    exe = os.path.join(args.out, "launch_floor")
    subprocess.run(["gcc", "-O2", os.path.join(HERE, "launch_floor.c"), "-ldl", "-o", exe], check=True)
    # Bytecode for the package first, as an installed wheel has it: without
    # it the first process (all of them under PYTHONDONTWRITEBYTECODE) pays
    # for compiling the package's Python source (~35 ms) inside `import`.
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(ROOT, "pycuda_jit")],
                   check=True)
    runs = []
    for r in range(args.repeat):
        ours, err = run_py(OURS, ["nocache", str(salt + r)], env)
        if ours is None:
            print("ours failed:\n" + err)
            return 1
        p1 = os.path.join(args.out, "saxpy.ptx")
        p2 = os.path.join(args.out, "k16.ptx")
        open(p1, "w").write(ours["ptx_saxpy"])
        open(p2, "w").write(ours["ptx_k16"])
        ours["floor_saxpy"] = floor(exe, p1, ours["name_saxpy"],
                                    "f32=2.0," + ",".join(["ptr,i64=256,i64=4"] * 3), 256)
        ours["floor_16"] = floor(exe, p2, ours["name_k16"], ",".join(["f32=1.0"] * 16), 32)
        runs.append(ours)
    # The same with PTX loaded by the driver's JIT instead of nvJitLink.
    djit, _ = run_py(OURS, ["nocache", str(salt + 1000)],
                     {**env, "PYCUDA_JIT_NVJITLINK": "/nonexistent"})
    run_py(OURS, ["cache", str(salt + 2000)], env)              # fills the cache
    hit, herr = run_py(OURS, ["cache", str(salt + 2000)], env)  # a fresh process hits it
    numba, nerr = run_py(NUMBA)

    def med(key, f=None):
        vals = [(f(r) if f else r.get(key)) for r in runs]
        vals = [v for v in vals if v is not None]
        return statistics.median(vals) if vals else None

    ours = runs[-1]
    f_saxpy, f_16 = med("floor_saxpy"), med("floor_16")

    def beyond(r):
        return r["extension_ms"] + r["first_call_ms"]

    rows = [
        ("saxpy launch, our device arrays (us)", med("launch_ours_us"), numba and numba.get("launch_ours_us"), f_saxpy, "floor + 1.0"),
        ("saxpy launch, CuPy arrays (us)", med("launch_cupy_us"), numba and numba.get("launch_cupy_us"), f_saxpy, "floor + 3"),
        ("saxpy launch, torch tensors (us)", med("launch_torch_us"), numba and numba.get("launch_torch_us"), f_saxpy, "floor + 3"),
        ("launch with 16 scalar args (us)", med("launch_16_us"), numba and numba.get("launch_16_us"), f_16, "floor + 1.5"),
        ("import pycuda_jit / numba.cuda (ms)", med("import_ms"), numba and numba["import_ms"], None, "<= 50"),
        ("second kernel, compile to loaded (ms)", med("second_ms"), numba and numba["second_ms"], None, "<= 10"),
        ("first call, fresh process, beyond context (ms)", med(None, beyond), numba and numba["first_call_ms"], None, "<= 60"),
        ("cache hit, fresh process, beyond context (ms)", hit and beyond(hit), None, None, "<= 5"),
    ]
    if args.repeat > 1:
        print(f"medians of {args.repeat} fresh processes (ours and the C floor)")
    print(f"\n{'what':48s} {'pycuda_jit':>11s} {'numba-cuda':>11s} {'C floor':>8s}  target")
    for name, a, b, f, tgt in rows:
        fa = f"{a:11.2f}" if a is not None else f"{'-':>11s}"
        fb = f"{b:11.2f}" if b is not None else f"{'-':>11s}"
        ff = f"{f:8.2f}" if f is not None else f"{'-':>8s}"
        print(f"{name:48s} {fa} {fb} {ff}  {tgt}")
    if args.repeat > 1:
        for key, fl in (("launch_ours_us", "floor_saxpy"), ("launch_cupy_us", "floor_saxpy"),
                        ("launch_torch_us", "floor_saxpy"), ("launch_16_us", "floor_16")):
            per = [f"{r[key] - r[fl]:+.2f}" for r in runs if r.get(key) is not None and r.get(fl)]
            print(f"{key} - floor, per process: {' '.join(per)} us")
        print("second kernel per process: " + " ".join(f"{r['second_ms']:.1f}" for r in runs) + " ms")
    print(f"\nours: extension load {ours['extension_ms']:.1f} ms, context {ours['context_ms']:.1f} ms, "
          f"first call {ours['first_call_ms']:.1f} ms, timings {ours['stats']['timings_ms']}")
    print(f"second kernel timings {ours['second_stats']['timings_ms']}")
    if djit:
        print(f"with the driver JIT instead of nvJitLink: second kernel {djit['second_ms']:.1f} ms, "
              f"first call {djit['first_call_ms']:.1f} ms, timings {djit['second_stats']['timings_ms']}, "
              f"saxpy launch {djit['launch_ours_us']:.2f} us")
    if hit:
        print(f"cache hit: extension {hit['extension_ms']:.1f} ms, first call {hit['first_call_ms']:.1f} ms, "
              f"cache={hit['stats']['cache']}, timings {hit['stats']['timings_ms']}")
    else:
        print("cache run failed:", herr)
    if numba is None:
        print("numba-cuda failed:", (nerr or "")[-800:])
    for k in ("cupy_error", "torch_error"):
        if k in ours:
            print(k, ours[k])
    shutil.rmtree(cache_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
