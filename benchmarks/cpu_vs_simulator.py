"""CPU executor vs numba's CUDA simulator on the same kernels (issue: CPU
executor speed).  Both run on the host CPU in one run:

  - a 2-D 5-point stencil and a tiled (shared-memory, syncthreads) SGEMM;
  - pycuda_jit with PYCUDA_JIT_BACKEND=cpu at 1024x1024;
  - numba with NUMBA_ENABLE_CUDASIM=1: its simulator runs one Python thread
    per CUDA thread, so it is timed at a smaller size and its per-element
    (stencil) / per-FMA (SGEMM) time is compared.

    PYTHONPATH=. python3 benchmarks/cpu_vs_simulator.py [--sim-n 64]
"""
import argparse
import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KERNELS = textwrap.dedent(r"""
    import numpy as np
    TILE = 16

    @cuda.jit
    def stencil(a, out):
        i, j = cuda.grid(2)
        n, m = a.shape
        if 0 < i < n - 1 and 0 < j < m - 1:
            out[i, j] = 0.2 * (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])

    @cuda.jit
    def sgemm(A, B, C):
        sA = cuda.shared.array((TILE, TILE), np.float32)
        sB = cuda.shared.array((TILE, TILE), np.float32)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        row = cuda.blockIdx.y * TILE + ty
        col = cuda.blockIdx.x * TILE + tx
        acc = np.float32(0.0)
        for t in range(A.shape[1] // TILE):
            sA[ty, tx] = A[row, t * TILE + tx]
            sB[ty, tx] = B[t * TILE + ty, col]
            cuda.syncthreads()
            for k in range(TILE):
                acc += sA[ty, k] * sB[k, tx]
            cuda.syncthreads()
        C[row, col] = acc

    def run(n, reps):
        import time
        rng = np.random.default_rng(0)
        a = rng.random((n, n)).astype(np.float32)
        b = rng.random((n, n)).astype(np.float32)
        out = np.full((n, n), np.nan, np.float32)
        da, db, dout = cuda.to_device(a), cuda.to_device(b), cuda.to_device(out)
        grid = (n // TILE, n // TILE)
        block = (TILE, TILE)
        res = {}
        for name, fn, args in (("stencil", stencil, (da, dout)), ("sgemm", sgemm, (da, db, dout))):
            fn[grid, block](*args)          # compile + warm up
            times = []
            for _ in range(reps):
                t = time.perf_counter()
                fn[grid, block](*args)
                cuda.synchronize()
                times.append(time.perf_counter() - t)
            res[name] = min(times)
            host = dout.copy_to_host()
            if name == "stencil":
                ref = 0.2 * (a[1:-1, 1:-1] + a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
                assert np.allclose(host[1:-1, 1:-1], ref, rtol=1e-5), "stencil mismatch"
            else:
                assert np.allclose(host, a @ b, rtol=1e-4), "sgemm mismatch"
        return res
""")

OURS = "from pycuda_jit import cuda\n" + KERNELS + textwrap.dedent("""
    import json, sys
    print(json.dumps({str(n): run(n, 5) for n in map(int, sys.argv[1:])}))
""")

NUMBA = ("import numpy\nnumpy.row_stack = numpy.vstack\nfrom numba import cuda\n" + KERNELS +
         textwrap.dedent("""
    import json, sys
    print(json.dumps({str(n): run(n, 1) for n in map(int, sys.argv[1:])}))
"""))


def run(code, sizes, env):
    p = subprocess.run([sys.executable, "-c", code, *map(str, sizes)], capture_output=True,
                       text=True, env={**os.environ, **env}, cwd=ROOT)
    if p.returncode:
        raise SystemExit(p.stderr[-3000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--sim-n", type=int, default=64)
    args = ap.parse_args()
    ours = run(OURS, [args.sim_n, args.n], {"PYTHONPATH": ROOT, "PYCUDA_JIT_BACKEND": "cpu"})
    sim = run(NUMBA, [args.sim_n], {"NUMBA_ENABLE_CUDASIM": "1"})
    print(f"host threads: {os.cpu_count()}")
    print(f"{'kernel':8s} {'size':>6s} {'pycuda_jit cpu s':>17s} {'numba sim s':>12s} {'speed-up':>9s}")
    work = {"stencil": lambda n: n * n, "sgemm": lambda n: n ** 3}
    for k in ("stencil", "sgemm"):
        o = ours[str(args.sim_n)][k]
        s = sim[str(args.sim_n)][k]
        print(f"{k:8s} {args.sim_n:6d} {o:17.5f} {s:12.3f} {s / o:8.0f}x")
        big = ours[str(args.n)][k]
        per_ours = big / work[k](args.n)
        per_sim = s / work[k](args.sim_n)
        print(f"{k:8s} {args.n:6d} {big:17.5f} {'(' + format(per_sim * work[k](args.n), '.0f') + ' est)':>12s}"
              f" {per_sim / per_ours:8.0f}x  (simulator extrapolated from n={args.sim_n} per unit of work)")


if __name__ == "__main__":
    main()
