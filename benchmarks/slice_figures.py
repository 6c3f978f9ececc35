"""Figures for the vertical slice, measured side by side in one run on a GPU
machine (see the issue's "Verified on the H200" list):

  1. first call of saxpy in a fresh process, split into CUDA context creation
     and our compile + load (+ launch);
  2. compile-to-loaded time of a second kernel in the same process;
  3. host microseconds per launch of saxpy over 10,000 back-to-back launches,
     beside a plain C cuLaunchKernel loop on the same PTX (launch_floor.c) and
     numba-cuda (if installed).

    PYTHONPATH=. python3 benchmarks/slice_figures.py [--out DIR]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

OURS = textwrap.dedent(r"""
    import json, statistics, sys, time
    t0 = time.perf_counter()
    import numpy as np
    t1 = time.perf_counter()
    from pycuda_jit import cuda
    t2 = time.perf_counter()
    cuda.synchronize()                      # creates the CUDA context
    t3 = time.perf_counter()

    @cuda.jit
    def saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]

    n = 1 << 20
    x = cuda.to_device(np.ones(n, np.float32))
    y = cuda.to_device(np.ones(n, np.float32))
    out = cuda.device_array(n, np.float32)
    t4 = time.perf_counter()
    saxpy[n // 256, 256](np.float32(2.0), x, y, out)
    cuda.synchronize()
    t5 = time.perf_counter()
    assert (out.copy_to_host() == 3.0).all()

    @cuda.jit
    def second(a, x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] * x[i] - a
    t6 = time.perf_counter()
    second[n // 256, 256](np.float32(2.0), x, out)
    cuda.synchronize()
    t7 = time.perf_counter()

    # launch overhead: tiny grid, back-to-back
    small = cuda.device_array(256, np.float32)
    a = np.float32(2.0)
    for _ in range(1000):
        saxpy[1, 256](a, small, small, small)
    cuda.synchronize()
    reps = []
    for _ in range(5):
        s = time.perf_counter()
        for _ in range(10000):
            saxpy[1, 256](a, small, small, small)
        e = time.perf_counter()
        cuda.synchronize()
        reps.append((e - s) / 10000 * 1e6)
    print(json.dumps({
        "import_numpy_ms": (t1 - t0) * 1e3, "import_ms": (t2 - t1) * 1e3,
        "context_ms": (t3 - t2) * 1e3, "first_call_ms": (t5 - t4) * 1e3,
        "first_compile_ms": saxpy.stats["compile_ms"], "load_path": saxpy.stats["load_path"],
        "second_kernel_ms": (t7 - t6) * 1e3, "second_compile_ms": second.stats["compile_ms"],
        "launch_us": statistics.median(reps), "ptx": saxpy.inspect_asm(saxpy.signatures[0]),
        "kernel_name": saxpy.stats["name"],
    }))
""")

NUMBA = textwrap.dedent(r"""
    import json, statistics, time
    import numpy
    numpy.row_stack = numpy.vstack          # numba-cuda 0.30 vs numpy 2.5
    t1 = time.perf_counter()
    from numba import cuda
    t2 = time.perf_counter()
    cuda.synchronize()
    t3 = time.perf_counter()

    @cuda.jit
    def saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]

    n = 1 << 20
    x = cuda.to_device(numpy.ones(n, numpy.float32))
    y = cuda.to_device(numpy.ones(n, numpy.float32))
    out = cuda.device_array(n, numpy.float32)
    t4 = time.perf_counter()
    saxpy[n // 256, 256](numpy.float32(2.0), x, y, out)
    cuda.synchronize()
    t5 = time.perf_counter()

    @cuda.jit
    def second(a, x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] * x[i] - a
    t6 = time.perf_counter()
    second[n // 256, 256](numpy.float32(2.0), x, out)
    cuda.synchronize()
    t7 = time.perf_counter()
    small = cuda.device_array(256, numpy.float32)
    a = numpy.float32(2.0)
    for _ in range(1000):
        saxpy[1, 256](a, small, small, small)
    cuda.synchronize()
    reps = []
    for _ in range(5):
        s = time.perf_counter()
        for _ in range(10000):
            saxpy[1, 256](a, small, small, small)
        e = time.perf_counter()
        cuda.synchronize()
        reps.append((e - s) / 10000 * 1e6)
    print(json.dumps({"import_ms": (t2 - t1) * 1e3, "context_ms": (t3 - t2) * 1e3,
                      "first_call_ms": (t5 - t4) * 1e3, "second_kernel_ms": (t7 - t6) * 1e3,
                      "launch_us": statistics.median(reps)}))
""")


def run_py(code, env=None):
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, **(env or {})}, cwd=ROOT)
    if p.returncode != 0:
        return None, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1]), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=tempfile.mkdtemp())
    args = ap.parse_args()
    env = {"PYTHONPATH": ROOT, "PYCUDA_JIT_BACKEND": "cuda"}
    ours, err = run_py(OURS, env)
    if ours is None:
        print("ours failed:\n" + err)
        return 1
    numba, nerr = run_py(NUMBA)

    # C floor on the same PTX.
    ptx_path = os.path.join(args.out, "saxpy.ptx")
    with open(ptx_path, "w") as f:
        f.write(ours["ptx"])
    exe = os.path.join(args.out, "launch_floor")
    subprocess.run(["gcc", "-O2", os.path.join(HERE, "launch_floor.c"), "-ldl", "-o", exe], check=True)
    argspec = "f32=2.0," + ",".join(["ptr,i64=256,i64=4"] * 3)
    c = subprocess.run([exe, ptx_path, ours["kernel_name"], "--args", argspec, "--grid", "1",
                        "--block", "256"], capture_output=True, text=True)
    floor = None
    for tok in c.stdout.split():
        if tok.startswith("us_per_launch="):
            floor = float(tok.split("=")[1])
    print(c.stdout.strip() or c.stderr.strip())

    rows = [
        ("import (numpy excluded), ms", ours["import_ms"], numba and numba["import_ms"]),
        ("CUDA context creation, ms", ours["context_ms"], numba and numba["context_ms"]),
        ("saxpy first call: compile+load+launch, ms", ours["first_call_ms"], numba and numba["first_call_ms"]),
        ("  of which our compile (all stages), ms", ours["first_compile_ms"], None),
        ("second kernel: compile+load+launch, ms", ours["second_kernel_ms"], numba and numba["second_kernel_ms"]),
        ("  of which our compile (all stages), ms", ours["second_compile_ms"], None),
        ("saxpy launch, host us/launch (10k)", ours["launch_us"], numba and numba["launch_us"]),
        ("C cuLaunchKernel floor, same PTX, us/launch", floor, None),
    ]
    print(f"\nload path: {ours['load_path']}")
    print(f"{'figure':48s} {'pycuda_jit':>12s} {'numba-cuda':>12s}")
    for name, a, b in rows:
        fa = f"{a:12.2f}" if a is not None else f"{'-':>12s}"
        fb = f"{b:12.2f}" if b is not None else f"{'-':>12s}"
        print(f"{name:48s} {fa} {fb}")
    if floor:
        print(f"launch overhead above the C floor: {ours['launch_us'] - floor:+.2f} us")
    if numba is None:
        print("numba-cuda not measured:", (nerr or "")[-500:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
