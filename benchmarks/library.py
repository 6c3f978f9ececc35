"""Library benchmarks: GPU ufuncs, cuda.reduce and cuda.random state
initialization, side by side with the fastest alternative and numba-cuda.

    PYTHONPATH=. python3 benchmarks/library.py [--json FILE]      # the H200 run
    PYTHONPATH=. PYCUDA_JIT_BACKEND=cpu python3 benchmarks/library.py --smoke

1. vectorize: out = a * 2.5 + b on 1 GiB float32 inputs (2**28 elements, our
   device arrays; peers see the same buffers through
   __cuda_array_interface__): our ufunc, our hand-written kernel, CuPy's
   ElementwiseKernel, numba-cuda's vectorize.  Target: ours >= 0.9x the
   hand-written kernel.
2. host overhead: the same calls on 1024 elements with out= (device arrays),
   microseconds per call over 2000 calls, vs our plain launch of the
   hand-written kernel.  Target: ufunc - plain launch <= 3 us.
3. cuda.reduce: sum of 1 GiB float32, result on the host: ours, CuPy's sum
   (CUB), numba-cuda's cuda.reduce.  Target: ours >= 0.9x CuPy and >= numba.
4. cuda.random: create_xoroshiro128p_states(10**7): ours (initialized on the
   device) vs numba-cuda (initialized on the host, then copied); the states
   are compared for equality.

Times are medians of wall-clock runs ending in a synchronization (each
after a warm-up that compiles).  Peers that are not installed, or that need
a GPU on the CPU executor, are reported as skipped.  Runs in about a minute
on the H200.
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np

from pycuda_jit import cuda, vectorize

SCALE = np.float32(2.5)


def axpb(a, b):
    return a * SCALE + b


@cuda.jit
def hand_written(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] * SCALE + b[i]


ours_ufunc = vectorize(["float32(float32, float32)"])(axpb)


def timed(fn, sync, repeat, warm=True):
    """Median seconds of fn() followed by sync() (after one unmeasured call
    when ``warm``)."""
    if warm:
        fn()
        sync()
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def per_call(fn, sync, calls):
    fn()
    sync()
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best


def peers(gpu):
    """(cupy or None, numba.cuda or None, why-not texts)."""
    why = {}
    cp = nb = None
    if not gpu:
        why["cupy"] = why["numba"] = "needs a GPU"
        return cp, nb, why
    try:
        import cupy as cp
    except Exception as e:  # noqa: BLE001
        why["cupy"] = f"not importable ({type(e).__name__})"
    try:
        if not hasattr(np, "row_stack"):
            np.row_stack = np.vstack  # numba-cuda 0.30.4 on NumPy 2.5
        from numba import cuda as nb
    except Exception as e:  # noqa: BLE001
        why["numba"] = f"not importable ({type(e).__name__})"
    return cp, nb, why


def row(results, section, name, seconds, unit_work, note=""):
    results.append({"section": section, "variant": name, "seconds": seconds,
                    "rate": None if seconds is None else unit_work / seconds, "note": note})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smoke", action="store_true", help="tiny sizes (CPU executor)")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    gpu = cuda.backend() == "cuda"
    n = 1 << 16 if args.smoke else 1 << 28
    states_n = 1000 if args.smoke else 10**7
    repeat = 3 if args.smoke else 10
    calls = 50 if args.smoke else 2000
    cp, nb, why = peers(gpu)
    sync = cuda.synchronize
    results = []
    t_start = time.perf_counter()
    rng = np.random.default_rng(1)

    # ---- 1. vectorize on big arrays
    block = rng.random(1 << 16, dtype=np.float32)
    a = cuda.to_device(np.resize(block, n))
    b = cuda.to_device(np.resize(block[::-1], n))
    out = cuda.device_array(n, np.float32)
    want = np.resize(block, n) * SCALE + np.resize(block[::-1], n)
    gb = 3 * n * 4 / 1e9

    def check(dev_out):
        # a * 2.5 + b may be one fused multiply-add (fmad, the default)
        step = max(1, n // 4096)
        return bool(np.allclose(dev_out.copy_to_host()[::step], want[::step], rtol=1e-6))

    grid = (n + 255) // 256
    row(results, "vectorize", "ours hand-written kernel",
        timed(lambda: hand_written[grid, 256](a, b, out), sync, repeat), gb)
    ok_hand = check(out)
    out[:] = 0
    row(results, "vectorize", "ours vectorize", timed(lambda: ours_ufunc(a, b, out=out), sync,
                                                      repeat), gb)
    ok_ours = check(out)
    if cp is not None:
        ca, cb, co = (cp.asarray(x) for x in (a, b, out))
        ek = cp.ElementwiseKernel("float32 a, float32 b", "float32 out", "out = a * 2.5f + b",
                                  "axpb")
        row(results, "vectorize", "CuPy ElementwiseKernel",
            timed(lambda: ek(ca, cb, co), cp.cuda.Device().synchronize, repeat), gb)
    else:
        row(results, "vectorize", "CuPy ElementwiseKernel", None, gb, why["cupy"])
    if nb is not None:
        na, nbb, no = (nb.as_cuda_array(x) for x in (a, b, out))
        nb_ufunc = nb.vectorize(["float32(float32, float32)"])(axpb)
        row(results, "vectorize", "numba-cuda vectorize",
            timed(lambda: nb_ufunc(na, nbb, out=no), nb.synchronize, repeat), gb)
    else:
        row(results, "vectorize", "numba-cuda vectorize", None, gb, why["numba"])

    # ---- 2. host overhead
    small = 1024
    sa, sb, so = a[:small], b[:small], out[:small]
    plain = per_call(lambda: hand_written[4, 256](sa, sb, so), sync, calls)
    row(results, "overhead", "ours plain launch", plain, 1e-6)
    row(results, "overhead", "ours vectorize (out=)", per_call(
        lambda: ours_ufunc(sa, sb, out=so), sync, calls), 1e-6)
    if cp is not None:
        sca, scb, sco = (cp.asarray(x) for x in (sa, sb, so))
        row(results, "overhead", "CuPy ElementwiseKernel", per_call(
            lambda: ek(sca, scb, sco), cp.cuda.Device().synchronize, calls), 1e-6)
    if nb is not None:
        sna, snb, sno = (nb.as_cuda_array(x) for x in (sa, sb, so))
        row(results, "overhead", "numba-cuda vectorize (out=)", per_call(
            lambda: nb_ufunc(sna, snb, out=sno), nb.synchronize, calls), 1e-6)

    # ---- 3. reduce
    gb_in = n * 4 / 1e9
    ours_sum = cuda.reduce(lambda x, y: x + y)
    got = {}
    row(results, "reduce", "ours cuda.reduce",
        timed(lambda: got.__setitem__("ours", ours_sum(a)), lambda: None, repeat), gb_in)
    exact = float(np.resize(block, n).astype(np.float64).sum())
    if cp is not None:
        ca = cp.asarray(a)
        row(results, "reduce", "CuPy sum (CUB)",
            timed(lambda: got.__setitem__("cupy", float(cp.sum(ca))), lambda: None, repeat),
            gb_in)
    else:
        row(results, "reduce", "CuPy sum (CUB)", None, gb_in, why["cupy"])
    if nb is not None:
        nb_sum = nb.reduce(lambda x, y: x + y)
        na = nb.as_cuda_array(a)
        row(results, "reduce", "numba-cuda cuda.reduce",
            timed(lambda: got.__setitem__("numba", nb_sum(na)), lambda: None, repeat), gb_in)
    else:
        row(results, "reduce", "numba-cuda cuda.reduce", None, gb_in, why["numba"])
    rel = {k: abs(float(v) - exact) / exact for k, v in got.items()}

    # ---- 4. random state initialization
    states = {}
    from pycuda_jit.cuda.random import create_xoroshiro128p_states
    create_xoroshiro128p_states(16, seed=3)  # compile
    row(results, "random", f"ours create_xoroshiro128p_states({states_n}) (device init)",
        timed(lambda: states.__setitem__("ours", create_xoroshiro128p_states(states_n, seed=3)),
              sync, 1 if not args.smoke else repeat, warm=False), states_n)
    same = None
    if nb is not None:
        from numba.cuda.random import create_xoroshiro128p_states as nb_create
        nb_create(16, seed=3)  # compile
        row(results, "random", f"numba-cuda create_xoroshiro128p_states({states_n}) (host init)",
            timed(lambda: states.__setitem__("numba", nb_create(states_n, seed=3)),
                  nb.synchronize, 1, warm=False), states_n)
        same = bool(np.array_equal(states["ours"].copy_to_host().view(np.uint64),
                                   states["numba"].copy_to_host().view(np.uint64)))
    else:
        row(results, "random", "numba-cuda create_xoroshiro128p_states (host init)", None,
            states_n, why["numba"])

    # ---- report
    device = cuda.get_current_device().name if gpu else "CPU executor"
    print(f"# Library benchmarks on {device} ({'smoke' if args.smoke else 'full'}; "
          f"{time.perf_counter() - t_start:.0f} s)")
    units = {"vectorize": "GB/s moved", "overhead": "us per call", "reduce": "GB/s read",
             "random": "states/s"}
    for section in ("vectorize", "overhead", "reduce", "random"):
        print(f"\n## {section} ({units[section]})")
        base = next(r for r in results if r["section"] == section)
        for r in (r for r in results if r["section"] == section):
            if r["seconds"] is None:
                print(f"  {r['variant']:<58} skipped: {r['note']}")
            elif section == "overhead":
                print(f"  {r['variant']:<58} {r['seconds'] * 1e6:8.2f} us  "
                      f"(+{(r['seconds'] - plain) * 1e6:.2f} us over the plain launch)")
            else:
                ratio = base["seconds"] / r["seconds"]
                print(f"  {r['variant']:<58} {r['seconds'] * 1e3:9.3f} ms  {r['rate']:12.4g}  "
                      f"{ratio:5.2f}x the first row's speed")
    print(f"\nchecks: hand-written {ok_hand}, vectorize {ok_ours}; sum relative errors "
          + ", ".join(f"{k} {v:.1e}" for k, v in rel.items())
          + ("" if same is None else f"; states equal to numba-cuda's: {same}"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": device, "smoke": args.smoke, "results": results,
                       "sum_relative_errors": rel, "states_equal_numba": same}, f, indent=1)
    ok = ok_hand and ok_ours and all(v < 1e-3 for v in rel.values()) and same is not False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
