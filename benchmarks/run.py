#!/usr/bin/env python3
"""The kernel benchmark suite: pycuda_jit vs numba-cuda vs CUDA C++ (nvcc),
side by side in ONE run on the same device buffers.

    PYTHONPATH=. python3 benchmarks/run.py --out benchmarks/           # GPU machine
    PYTHONPATH=. PYCUDA_JIT_BACKEND=cpu python3 benchmarks/run.py --smoke   # anywhere

Each kernel exists three times: (1) ours, benchmarks/kernels.py compiled by
pycuda_jit; (2) the SAME file exec'd with numba.cuda as ``cuda`` and compiled
by numba-cuda; (3) a CUDA C++ twin in benchmarks/cuda/kernels.cu, built here
with nvcc into a shared library and launched through ctypes.  All buffers are
pycuda_jit device arrays (numba views them through __cuda_array_interface__,
the twins get their raw pointers); everything runs on the legacy default
stream of the primary context.

Per kernel and variant: compile, one checked run against numpy (outputs are
poisoned first; a mismatch is reported as FAIL and not timed), warm-up, then
>= 50 back-to-back launches with a CUDA event recorded between consecutive
launches (one extra launch is queued first, so the GPU never waits for the
host and the intervals are pure kernel time); the median interval is
reported.  See benchmarks/README.md for the columns.

--smoke: tiny sizes, a few repetitions, on whatever backend is present (the
CPU executor on machines without a GPU); numba-cuda and nvcc are skipped
where they cannot run.
"""
import argparse
import ctypes
import datetime
import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

T0 = time.perf_counter()

# Nominal H200 SXM peaks (NVIDIA data sheet).  The bandwidth peak is not
# nominal: it is measured in the same run (device-to-device copy).
FP32_PEAK_GFLOPS = 67_000.0
FP64_PEAK_GFLOPS = 34_000.0


def log(msg):
    print(f"[{time.perf_counter() - T0:7.1f}s] {msg}", flush=True)


def first_line(e, limit=160):
    s = f"{type(e).__name__}: {e}".strip().splitlines()
    s = s[0] if s else type(e).__name__
    return s if len(s) <= limit else s[:limit - 3] + "..."


# ---- variants ----------------------------------------------------------------------------

def load_kernels(cuda_module, tag):
    """Execute kernels.py with ``cuda`` bound to the given module: the same
    source for both Python compilers."""
    path = os.path.join(HERE, "kernels.py")
    with open(path) as f:
        src = f.read()
    ns = {"__name__": f"bench_kernels_{tag}", "__file__": path, "cuda": cuda_module}
    exec(compile(src, path, "exec"), ns)
    return ns


class PyVariant:
    """A Python compiler (ours or numba-cuda) running kernels.py."""

    def __init__(self, name, cuda_module, wrap):
        self.name = name
        self.cuda = cuda_module
        self.wrap = wrap                   # our device array -> this framework's array
        self.ns = load_kernels(cuda_module, name)

    def launcher(self, b):
        kernel = self.ns[b.kernel]
        args = b.py_args(self.wrap)
        grid, block = b.grid, b.block

        def launch():
            kernel[grid, block](*args)
        return launch

    def event(self):
        return self.cuda.event()

    def record(self, e):
        e.record()

    def event_sync(self, e):
        e.synchronize()

    def elapsed(self, a, b):
        return self.cuda.event_elapsed_time(a, b)

    def sync(self):
        self.cuda.synchronize()


class NvccVariant:
    """The CUDA C++ twins: a shared library built by nvcc, called with ctypes."""

    name = "nvcc"

    def __init__(self, lib):
        self.lib = lib
        P, I, F = ctypes.c_void_p, ctypes.c_int, ctypes.c_float
        lib.bench_event_create.restype = P
        lib.bench_event_record.argtypes = [P]
        lib.bench_event_synchronize.argtypes = [P]
        lib.bench_event_elapsed_ms.argtypes = [P, P]
        lib.bench_event_elapsed_ms.restype = F
        lib.bench_event_destroy.argtypes = [P]
        lib.bench_memcpy_d2d.argtypes = [P, P, ctypes.c_size_t]
        lib.bench_memset.argtypes = [P, I, ctypes.c_size_t]
        lib.bench_error_string.argtypes = [I]
        lib.bench_error_string.restype = ctypes.c_char_p
        self._events = []

    def check(self, rc, what):
        if rc:
            msg = self.lib.bench_error_string(rc).decode(errors="replace")
            raise RuntimeError(f"{what}: CUDA error {rc} ({msg})")

    def launcher(self, b):
        fn = getattr(self.lib, b.c_name)
        fn.argtypes = b.c_types
        fn.restype = ctypes.c_int
        args = b.c_args(dptr)
        name = b.c_name

        def launch():
            rc = fn(*args)
            if rc:
                self.check(rc, name)
        return launch

    def event(self):
        e = self.lib.bench_event_create()
        if not e:
            raise RuntimeError("cudaEventCreate failed")
        self._events.append(e)
        return e

    def record(self, e):
        self.check(self.lib.bench_event_record(e), "cudaEventRecord")

    def event_sync(self, e):
        self.check(self.lib.bench_event_synchronize(e), "cudaEventSynchronize")

    def elapsed(self, a, b):
        ms = self.lib.bench_event_elapsed_ms(a, b)
        if ms < 0:
            raise RuntimeError("cudaEventElapsedTime failed")
        return ms

    def sync(self):
        self.check(self.lib.bench_synchronize(), "cudaDeviceSynchronize")

    def free_events(self):
        for e in self._events:
            self.lib.bench_event_destroy(e)
        self._events = []


def dptr(arr):
    """The raw device pointer of a device array."""
    return arr.__cuda_array_interface__["data"][0]


def find_nvcc():
    cands = [shutil.which("nvcc")]
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        if os.environ.get(var):
            cands.append(os.path.join(os.environ[var], "bin", "nvcc"))
    cands.append("/usr/local/cuda/bin/nvcc")
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def build_twins(nvcc, arch, builddir):
    src = os.path.join(HERE, "cuda", "kernels.cu")
    so = os.path.join(builddir, "libbench_twins.so")
    cmd = [nvcc, "-O3", f"-arch={arch}", "-shared", "-Xcompiler", "-fPIC", "-o", so, src]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("nvcc failed:\n" + (p.stderr or p.stdout)[-3000:])
    return so, " ".join(["nvcc"] + cmd[1:-3] + ["-o", "libbench_twins.so", "benchmarks/cuda/kernels.cu"])


# ---- the benchmark description -------------------------------------------------------------

class Bench:
    """One kernel: its launch for the Python variants and the twin, its
    numpy check, and the work one run does."""

    def __init__(self, name, size, unit, work, formula, peak, kernel, grid, block, py_args,
                 c_name, c_types, c_args, check, prepare=None, note=""):
        self.name = name
        self.size = size          # human-readable problem size
        self.unit = unit          # "GB/s" or "GFLOP/s"
        self.work = work          # bytes or flops per run (may be a callable, evaluated after the checks)
        self.formula = formula    # how work is counted
        self.peak = peak          # "copy", "fp32" or "fp64"
        self.kernel = kernel
        self.grid = grid
        self.block = block
        self.py_args = py_args    # wrap -> tuple of kernel arguments
        self.c_name = c_name
        self.c_types = c_types
        self.c_args = c_args      # ptr -> tuple of ctypes arguments
        self.check = check        # () -> (ok, detail)
        self.prepare = prepare    # () -> None: poison outputs / zero accumulators
        self.note = note


P = ctypes.c_void_p
I32 = ctypes.c_int
I64 = ctypes.c_longlong
F32 = ctypes.c_float
F64 = ctypes.c_double

FULL = dict(
    triad_n=1 << 28,            # 1 GiB per array
    reduce_n=1 << 28,           # 1 GiB
    sgemm=(4096, 4096, 4096),   # M, N, K
    stencil=(16384, 16384),     # 1 GiB per array
    nbody_n=1 << 17,
    bs_n=1 << 26,               # 256 MiB per array, 5 arrays
    softmax_small=(1 << 21, 128),   # 1 GiB
    softmax_large=(16384, 16384),   # 1 GiB
    hist_n=1 << 30,             # 1 GiB of uint8
    mandel=(4096, 4096, 512),   # rows, cols, max iterations
    fma_iters=8192,
    copy_n=1 << 28,
    period=1 << 22,             # inputs repeat every 4 Mi elements (see Env)
    reps_min=50, reps_max=200, budget_per_variant_s=0.5, warmup=3,
)

SMOKE = dict(
    triad_n=(1 << 14) + 3,
    reduce_n=(1 << 14) + 5,
    sgemm=(70, 90, 100),
    stencil=(40, 72),
    nbody_n=512,
    bs_n=4099,
    softmax_small=(67, 128),
    softmax_large=(5, 3000),
    hist_n=(1 << 16) + 7,
    mandel=(48, 64, 100),
    fma_iters=300,
    copy_n=1 << 20,
    period=1000,
    reps_min=3, reps_max=3, budget_per_variant_s=0.0, warmup=1,
)


class Env:
    """Device buffers (ours), host data, helpers shared by the benchmarks.

    Large inputs are PERIODIC: a random block of ``period`` elements is
    uploaded once and replicated on the device (doubling device-to-device
    copies), so x[i] == block[i % period].  Values repeating does not change
    what a kernel costs (caches see addresses, not values), and it makes the
    numpy reference cheap: the reference of one period, compared against
    every period of the output, chunk by chunk -- every output element is
    checked, with little host time and memory."""

    def __init__(self, cuda, cfg, sms, twins_lib, smoke):
        self.cuda = cuda
        self.cfg = cfg
        self.sms = sms
        self.lib = twins_lib
        self.smoke = smoke
        self.period = cfg["period"]
        self.rng = np.random.default_rng(20261130)

    def to_device(self, a):
        return self.cuda.to_device(np.ascontiguousarray(a))

    def empty(self, shape, dtype):
        return self.cuda.device_array(shape, dtype)

    def tiled(self, block, n):
        """A 1-d device array of n elements, x[i] == block[i % block.size]."""
        block = np.ascontiguousarray(block).ravel()
        m = min(block.size, n)
        d = self.cuda.device_array(n, block.dtype)
        d[0:m].copy_to_device(block[:m])
        k = m
        while k < n:
            ln = min(k, n - k)
            d[k:k + ln].copy_to_device(d[0:ln])
            k += ln
        self.cuda.synchronize()
        return d

    def fill(self, arr, value):
        """Fill a device array: "poison" (NaN for floats, -1 for ints) or 0."""
        if self.lib is not None and value in ("poison", 0):
            byte = 0xFF if value == "poison" else 0
            rc = self.lib.bench_memset(dptr(arr), byte, arr.size * arr.dtype.itemsize)
            if rc:
                raise RuntimeError(f"cudaMemsetAsync failed ({rc})")
            self.lib.bench_synchronize()
            return
        if value == "poison":
            value = np.nan if arr.dtype.kind == "f" else -1
        arr.copy_to_device(np.full(arr.shape, value, arr.dtype))

    def host(self, a):
        self.cuda.synchronize()
        return a.copy_to_host()

    def check_periodic(self, out, ref_of_chunk, chunk, rtol, atol):
        """Compare every element of the device array ``out`` (viewed flat)
        against a float64 reference, ``chunk`` elements at a time;
        ref_of_chunk(lo, hi) gives the reference of out.flat[lo:hi] (usually
        the same cached array for every chunk).  NaN (the poison) fails."""
        self.cuda.synchronize()
        flat = out.ravel()
        n = flat.size
        buf = np.empty(min(chunk, n), out.dtype)
        tol_cache = {}
        maxerr = 0.0
        for lo in range(0, n, chunk):
            hi = min(n, lo + chunk)
            got = buf[:hi - lo]
            flat[lo:hi].copy_to_host(got)
            ref = ref_of_chunk(lo, hi)
            key = (id(ref), hi - lo)
            if key not in tol_cache:
                tol_cache.clear()
                ref32 = ref.astype(out.dtype)
                tol_cache[key] = (ref, ref32, (atol + rtol * np.abs(ref)).astype(out.dtype))
            _, ref32, tol = tol_cache[key]
            err = np.abs(got - ref32)
            ok = err <= tol                       # NaN -> False
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                nbad = int(np.count_nonzero(~ok))
                return False, (f"{nbad} elements in [{lo}, {hi}) outside rtol={rtol:g} atol={atol:g}; "
                               f"first at flat index {lo + i}: got {got[i]!r} want {ref[i]!r}")
            maxerr = max(maxerr, float(err.max()))
        return True, f"all {n:,} elements, max abs err {maxerr:.3g} (rtol={rtol:g}, atol={atol:g})"


def allclose_detail(got, ref, rtol, atol):
    got64 = got.astype(np.float64)
    err = np.abs(got64 - ref)
    bad = ~(err <= atol + rtol * np.abs(ref))      # NaN counts as bad
    nbad = int(np.count_nonzero(bad))
    finite = err[np.isfinite(err)]
    maxerr = float(finite.max()) if finite.size else float("nan")
    if nbad:
        idx = int(np.flatnonzero(bad)[0])
        return False, (f"{nbad} of {got.size} outside rtol={rtol:g} atol={atol:g}; first at "
                       f"{np.unravel_index(idx, got.shape)}: got {got.flat[idx]!r} want {ref.flat[idx]!r}")
    return True, f"max abs err {maxerr:.3g} (rtol={rtol:g}, atol={atol:g})"


def periodic_ref(ref_block):
    """ref_of_chunk for an output whose flat index i has reference ref_block[i % size]
    (check_periodic is called with chunk == ref_block.size)."""
    return lambda lo, hi: ref_block if hi - lo == ref_block.size else ref_block[:hi - lo]


def sample_rows(n, k):
    return np.unique(np.linspace(0, n - 1, min(n, k)).astype(np.int64))


# ---- the kernels -------------------------------------------------------------------------------------

def setup_triad(env):
    n = env.cfg["triad_n"]
    m = min(n, env.period)
    s = np.float32(3.0)
    hb = env.rng.random(m, dtype=np.float32)
    hc = env.rng.random(m, dtype=np.float32)
    ref = hb.astype(np.float64) + float(s) * hc.astype(np.float64)
    a, b, c = env.empty(n, np.float32), env.tiled(hb, n), env.tiled(hc, n)
    threads = 256
    blocks_gs = env.sms * 8

    def check():
        return env.check_periodic(a, periodic_ref(ref), m, 1e-6, 1e-7)

    common = dict(size=f"n={n:,} float32 ({n * 4 / 2**30:.2f} GiB/array)", unit="GB/s",
                  work=12 * n, formula="12*n bytes (read b, c; write a)", peak="copy",
                  c_types=[P, P, P, F32, I64, I32, I32], check=check,
                  prepare=lambda: env.fill(a, "poison"))
    return [
        Bench("triad", kernel="triad", grid=(n + threads - 1) // threads, block=threads,
              py_args=lambda w: (w(a), w(b), w(c), s), c_name="launch_triad",
              c_args=lambda p: (p(a), p(b), p(c), s, n, (n + threads - 1) // threads, threads),
              note=f"one element per thread, block {threads}", **common),
        Bench("triad_gs", kernel="triad_gs", grid=blocks_gs, block=threads,
              py_args=lambda w: (w(a), w(b), w(c), s), c_name="launch_triad_gs",
              c_args=lambda p: (p(a), p(b), p(c), s, n, blocks_gs, threads),
              note=f"grid-stride loop, {blocks_gs} blocks x {threads}", **common),
    ]


def setup_reduce(env):
    n = env.cfg["reduce_n"]
    m = min(n, env.period)
    hx = env.rng.random(m, dtype=np.float32)
    x = env.tiled(hx, n)
    ref = (n // m) * float(np.sum(hx, dtype=np.float64)) + float(np.sum(hx[:n % m], dtype=np.float64))
    out = env.empty(1, np.float32)
    threads, blocks = 256, env.sms * 8

    def check():
        got = float(env.host(out)[0])
        rel = abs(got - ref) / abs(ref)
        ok = rel <= 2e-4
        return ok, f"sum {got:.7g} vs {ref:.7g}, rel err {rel:.2g} (tol 2e-4)"

    return [Bench("reduce_sum", size=f"n={n:,} float32 ({n * 4 / 2**30:.2f} GiB)", unit="GB/s",
                  work=4 * n, formula="4*n bytes (read x)", peak="copy", kernel="reduce_sum",
                  grid=blocks, block=threads, py_args=lambda w: (w(x), w(out)),
                  c_name="launch_reduce_sum", c_types=[P, P, I64, I32, I32],
                  c_args=lambda p: (p(x), p(out), n, blocks, threads), check=check,
                  prepare=lambda: env.fill(out, 0),
                  note=f"{blocks} blocks x {threads}; timed runs keep accumulating into out")]


def setup_sgemm(env):
    M, N, K = env.cfg["sgemm"]
    hA = env.rng.uniform(-1, 1, (M, K)).astype(np.float32)
    hB = env.rng.uniform(-1, 1, (K, N)).astype(np.float32)
    rows = sample_rows(M, 64)
    ref = hA[rows].astype(np.float64) @ hB.astype(np.float64)
    A, B, C = env.to_device(hA), env.to_device(hB), env.empty((M, N), np.float32)
    del hA, hB
    T = 32
    grid = ((N + T - 1) // T, (M + T - 1) // T)

    def check():
        got_all = env.host(C)
        if not np.isfinite(got_all).all():
            return False, f"{np.count_nonzero(~np.isfinite(got_all))} non-finite outputs"
        got = got_all[rows].astype(np.float64)
        rel = float(np.abs(got - ref).max() / np.abs(ref).max())
        return rel <= 1e-4, (f"all finite; {len(rows)} sampled rows: max abs err / max abs ref "
                             f"{rel:.2g} (tol 1e-4)")

    return [Bench("sgemm", size=f"{M}x{K} @ {K}x{N} float32", unit="GFLOP/s", work=2 * M * N * K,
                  formula="2*M*N*K flops", peak="fp32", kernel="sgemm", grid=grid, block=(T, T),
                  py_args=lambda w: (w(A), w(B), w(C)), c_name="launch_sgemm",
                  c_types=[P, P, P, I32, I32, I32], c_args=lambda p: (p(A), p(B), p(C), M, N, K),
                  check=check, prepare=lambda: env.fill(C, "poison"),
                  note="32x32 shared-memory tiles, one output per thread, block (32, 32)")]


def setup_stencil(env):
    ny, nx = env.cfg["stencil"]
    pr = max(1, min(ny, env.period // nx))          # rows per period
    hu = env.rng.random((pr, nx), dtype=np.float32)
    u = env.tiled(hu, ny * nx).reshape(ny, nx)
    out = env.empty((ny, nx), np.float32)
    c0, c1 = np.float32(0.5), np.float32(0.125)
    u64 = hu.astype(np.float64)
    cache = {}

    def ref_rows(r0, r1):
        """Reference of output rows [r0, r1) (a whole number of periods
        apart from the last chunk)."""
        key = (r0 == 0, r1 == ny, r1 - r0)
        if key not in cache:
            cache.clear()
            rr = np.arange(r0, r1)
            mid = u64[rr % pr]
            up = u64[(rr - 1) % pr]
            down = u64[(rr + 1) % pr]
            ref = mid.copy()
            ref[:, 1:-1] = float(c0) * mid[:, 1:-1] + float(c1) * (
                up[:, 1:-1] + down[:, 1:-1] + mid[:, :-2] + mid[:, 2:])
            if r0 == 0:
                ref[0] = mid[0]
            if r1 == ny:
                ref[-1] = mid[-1]
            cache[key] = ref.ravel()
        return cache[key]

    bx, by = 32, 8
    grid = ((nx + bx - 1) // bx, (ny + by - 1) // by)

    def check():
        return env.check_periodic(out, lambda lo, hi: ref_rows(lo // nx, hi // nx), pr * nx,
                                  1e-6, 1e-6)

    return [Bench("stencil5", size=f"{ny}x{nx} float32 ({ny * nx * 4 / 2**30:.2f} GiB/array)",
                  unit="GB/s", work=8 * ny * nx,
                  formula="8*ny*nx bytes (read u once, write out; neighbours assumed cached)",
                  peak="copy", kernel="stencil5", grid=grid, block=(bx, by),
                  py_args=lambda w: (w(u), w(out), c0, c1), c_name="launch_stencil5",
                  c_types=[P, P, I32, I32, F32, F32, I32, I32],
                  c_args=lambda p: (p(u), p(out), ny, nx, c0, c1, bx, by), check=check,
                  prepare=lambda: env.fill(out, "poison"), note=f"block ({bx}, {by})")]


def setup_nbody(env):
    n = env.cfg["nbody_n"]
    T = 256
    assert n % T == 0
    hpos = np.empty((n, 4), np.float32)
    hpos[:, :3] = env.rng.uniform(-1, 1, (n, 3))
    hpos[:, 3] = env.rng.uniform(0.5, 1.0, n) / n
    eps2 = np.float32(0.01)
    sample = sample_rows(n, 128)
    p64 = hpos.astype(np.float64)
    d = p64[None, :, :3] - p64[sample, None, :3]                 # (s, n, 3)
    r2 = (d * d).sum(-1) + float(eps2)
    w = p64[None, :, 3] / (r2 * np.sqrt(r2))
    ref = (w[:, :, None] * d).sum(1)                             # (s, 3)
    del d, r2, w, p64
    pos, acc = env.to_device(hpos), env.empty((n, 4), np.float32)

    def check():
        got_all = env.host(acc)
        if not np.isfinite(got_all).all():
            return False, f"{np.count_nonzero(~np.isfinite(got_all))} non-finite outputs"
        got = got_all[sample, :3]
        rel = float(np.abs(got - ref).max() / np.abs(ref).max())
        return rel <= 1e-3, (f"all finite; {len(sample)} sampled bodies: max abs err / max abs ref "
                             f"{rel:.2g} (tol 1e-3)")

    return [Bench("nbody", size=f"N={n:,} bodies, float32", unit="GFLOP/s", work=20 * n * n,
                  formula="20*N^2 flops (the usual count per interaction; sqrt and / count 1 each)",
                  peak="fp32", kernel="nbody", grid=n // T, block=T,
                  py_args=lambda w: (w(pos), w(acc), eps2), c_name="launch_nbody",
                  c_types=[P, P, I32, F32], c_args=lambda p: (p(pos), p(acc), n, eps2),
                  check=check, prepare=lambda: env.fill(acc, "poison"),
                  note="tiles of 256 bodies in shared memory, block 256")]


def bs_reference(S, X, T, R, V):
    S, X, T = (a.astype(np.float64) for a in (S, X, T))

    def cnd(d):
        k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        c = 0.39894228040143267793994605993438 * np.exp(-0.5 * d * d) * (
            k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
        return np.where(d > 0, 1.0 - c, c)

    sqrt_t = np.sqrt(T)
    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrt_t)
    d2 = d1 - V * sqrt_t
    c1, c2 = cnd(d1), cnd(d2)
    e = np.exp(-R * T)
    return S * c1 - X * e * c2, X * e * (1.0 - c2) - S * (1.0 - c1)


def setup_black_scholes(env):
    n = env.cfg["bs_n"]
    m = min(n, env.period)
    hS = env.rng.uniform(5.0, 30.0, m).astype(np.float32)
    hX = env.rng.uniform(1.0, 100.0, m).astype(np.float32)
    hT = env.rng.uniform(0.25, 10.0, m).astype(np.float32)
    R, V = np.float32(0.02), np.float32(0.30)
    ref_call, ref_put = bs_reference(hS, hX, hT, float(R), float(V))
    S, X, T = env.tiled(hS, n), env.tiled(hX, n), env.tiled(hT, n)
    call, put = env.empty(n, np.float32), env.empty(n, np.float32)
    threads = 256

    def check():
        ok1, d1 = env.check_periodic(call, periodic_ref(ref_call), m, 1e-4, 2e-4)
        ok2, d2 = env.check_periodic(put, periodic_ref(ref_put), m, 1e-4, 2e-4)
        return ok1 and ok2, f"call: {d1}; put: {d2}"

    def prepare():
        env.fill(call, "poison")
        env.fill(put, "poison")

    return [Bench("black_scholes", size=f"n={n:,} options, float32 ({n * 4 / 2**20:.0f} MiB/array)",
                  unit="GB/s", work=20 * n, formula="20*n bytes (read S, X, T; write call, put)",
                  peak="copy", kernel="black_scholes", grid=(n + threads - 1) // threads,
                  block=threads, py_args=lambda w: (w(call), w(put), w(S), w(X), w(T), R, V),
                  c_name="launch_black_scholes", c_types=[P, P, P, P, P, F32, F32, I64, I32],
                  c_args=lambda p: (p(call), p(put), p(S), p(X), p(T), R, V, n, threads),
                  check=check, prepare=prepare,
                  note="CND polynomial (float32 module constants), math.exp/log/sqrt, block 256")]


def softmax_ref(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def setup_softmax(env):
    benches = []
    for kind in ("small", "large"):
        rows, cols = env.cfg[f"softmax_{kind}"]
        pr = max(1, min(rows, env.period // cols))       # rows per period
        hx = env.rng.standard_normal((pr, cols), dtype=np.float32) * np.float32(4.0)
        ref = softmax_ref(hx).ravel()
        x = env.tiled(hx, rows * cols).reshape(rows, cols)
        out = env.empty((rows, cols), np.float32)
        if kind == "small":
            assert cols == 128
            threads = 256
            grid = (rows * 32 + threads - 1) // threads
            c_name, c_types = "launch_softmax_small", [P, P, I32, I32]
            c_args = (lambda x, out, rows, threads: lambda p: (p(x), p(out), rows, threads))(
                x, out, rows, threads)
            note = "one warp per row (4 values per lane), block 256"
        else:
            threads = 512
            grid = rows
            c_name, c_types = "launch_softmax_large", [P, P, I32, I32, I32]
            c_args = (lambda x, out, rows, cols, threads: lambda p: (p(x), p(out), rows, cols, threads))(
                x, out, rows, cols, threads)
            note = "one block of 512 per row; block max/sum via shuffles + shared memory"

        def check(out=out, ref=ref, m=pr * cols):
            return env.check_periodic(out, periodic_ref(ref), m, 1e-4, 1e-9)

        benches.append(Bench(
            f"softmax_{kind}", size=f"{rows:,} rows x {cols} float32 ({rows * cols * 4 / 2**30:.2f} GiB)",
            unit="GB/s", work=8 * rows * cols,
            formula="8*rows*cols bytes (read x once, write out; re-reads of a row assumed cached)",
            peak="copy", kernel=f"softmax_{kind}", grid=grid, block=threads,
            py_args=(lambda x, out: lambda w: (w(x), w(out)))(x, out),
            c_name=c_name, c_types=c_types, c_args=c_args, check=check,
            prepare=(lambda out: lambda: env.fill(out, "poison"))(out), note=note))
    return benches


def setup_histogram(env):
    n = env.cfg["hist_n"]
    m = min(n, env.period)
    hd = np.frombuffer(env.rng.bytes(m), dtype=np.uint8)
    ref = (n // m) * np.bincount(hd, minlength=256).astype(np.int64) + \
        np.bincount(hd[:n % m], minlength=256).astype(np.int64)
    data = env.tiled(hd, n)
    hist = env.empty(256, np.int32)
    threads, blocks = 256, env.sms * 8

    def check():
        got = env.host(hist).astype(np.int64)
        nbad = int(np.count_nonzero(got != ref))
        if nbad:
            b = int(np.flatnonzero(got != ref)[0])
            return False, f"{nbad} of 256 bins differ; bin {b}: got {got[b]} want {ref[b]}"
        return True, "all 256 bins exact"

    return [Bench("histogram", size=f"n={n:,} uint8 ({n / 2**30:.2f} GiB), 256 bins", unit="GB/s",
                  work=n, formula="n bytes (read data)", peak="copy", kernel="histogram",
                  grid=blocks, block=threads, py_args=lambda w: (w(data), w(hist)),
                  c_name="launch_histogram", c_types=[P, P, I64, I32, I32],
                  c_args=lambda p: (p(data), p(hist), n, blocks, threads), check=check,
                  prepare=lambda: env.fill(hist, 0),
                  note=f"shared-memory atomics, {blocks} blocks x {threads}")]


def mandel_reference(x0, y0, dx, dy, maxit, rows, cols):
    ii, jj = np.meshgrid(rows, cols, indexing="ij")
    c = (x0 + jj * dx) + 1j * (y0 + ii * dy)
    c = c.ravel()
    z = np.zeros_like(c)
    n = np.zeros(c.shape, np.int64)
    active = np.arange(c.size)
    for _ in range(maxit):
        za = z[active]
        keep = np.abs(za) <= 2.0
        active = active[keep]
        if active.size == 0:
            break
        z[active] = za[keep] * za[keep] + c[active]
        n[active] += 1
    return n.reshape(ii.shape)


def setup_mandelbrot(env):
    h, w, maxit = env.cfg["mandel"]
    x0, y0 = -2.0, -1.25
    dx, dy = 2.5 / w, 2.5 / h
    out = env.empty((h, w), np.int32)
    step = 16 if h * w > 1 << 20 else 1
    rows, cols = np.arange(0, h, step), np.arange(0, w, step)
    ref = mandel_reference(x0, y0, dx, dy, maxit, rows, cols)
    bx, by = 32, 8
    grid = ((w + bx - 1) // bx, (h + by - 1) // by)
    state = {}

    def check():
        got_all = env.host(out)
        if (got_all < 0).any() or (got_all > maxit).any():
            return False, "iteration counts out of range (or not written)"
        got = got_all[np.ix_(rows, cols)]
        state.setdefault("iters", int(got_all.astype(np.int64).sum()))
        frac = float(np.count_nonzero(got != ref)) / ref.size
        return frac <= 1e-2, (f"all in range; {ref.size} sampled pixels, {frac:.3%} differ (tol 1%: "
                              "escape times of boundary points depend on rounding)")

    def work():
        return 11 * state["iters"]

    return [Bench("mandelbrot", size=f"{h}x{w} pixels, max {maxit} iterations, complex128",
                  unit="GFLOP/s", work=work,
                  formula="11 flops per iteration (z*z: 6, +c: 2, abs: 3 counting hypot as "
                          "2 mul + 1 add; sqrt and compare not counted) x total iterations "
                          "(counted from the first checked output)",
                  peak="fp64", kernel="mandelbrot", grid=grid, block=(bx, by),
                  py_args=lambda w_: (w_(out), x0, y0, dx, dy, maxit), c_name="launch_mandelbrot",
                  c_types=[P, I32, I32, F64, F64, F64, F64, I32, I32, I32],
                  c_args=lambda p: (p(out), h, w, x0, y0, dx, dy, maxit, bx, by), check=check,
                  prepare=lambda: env.fill(out, "poison"), note=f"block ({bx}, {by})")]


def setup_fma(env):
    iters = env.cfg["fma_iters"]
    threads = 256
    n = env.sms * 2048 * 4            # 4 full waves at 2048 threads per SM
    hx = env.rng.random(n, dtype=np.float32)
    x, out = env.to_device(hx), env.empty(n, np.float32)
    sample = sample_rows(n, 256)
    a = hx[sample].astype(np.float64)[:, None] + np.arange(8) * 0.125
    c = (np.arange(8) + 1) * 0.0001
    for _ in range(iters):
        a = a * 0.9999 + c
    ref = a.sum(axis=1)

    def check():
        got_all = env.host(out)
        if not np.isfinite(got_all).all():
            return False, f"{np.count_nonzero(~np.isfinite(got_all))} non-finite outputs"
        ok, d = allclose_detail(got_all[sample], ref, 1e-3, 0.0)
        return ok, f"all finite; {len(sample)} sampled threads: {d}"

    return [Bench("fma_loop", size=f"{n:,} threads x {iters} iterations x 8 chains", unit="GFLOP/s",
                  work=2 * 8 * iters * n, formula="2*8*iters*threads flops (8 FMA chains)",
                  peak="fp32", kernel="fma_loop", grid=(n + threads - 1) // threads,
                  # iters as int32, the C kernel's `int iters` (a Python int
                  # would be int64 in both JITs: a 64-bit loop counter)
                  block=threads, py_args=lambda w: (w(x), w(out), np.int32(iters)),
                  c_name="launch_fma_loop", c_types=[P, P, I64, I32, I32],
                  c_args=lambda p: (p(x), p(out), n, iters, threads), check=check,
                  prepare=lambda: env.fill(out, "poison"),
                  note="plain Python float literals: float32 in ours, float64 in numba-cuda; "
                       "iters passed as np.int32 like the C kernel's int; block 256")]


SETUPS = [setup_triad, setup_reduce, setup_sgemm, setup_stencil, setup_nbody,
          setup_black_scholes, setup_softmax, setup_histogram, setup_mandelbrot, setup_fma]
ALL_NAMES = ["triad", "triad_gs", "reduce_sum", "sgemm", "stencil5", "nbody", "black_scholes",
             "softmax_small", "softmax_large", "histogram", "mandelbrot", "fma_loop"]
SETUP_OF = {"triad": setup_triad, "triad_gs": setup_triad, "reduce_sum": setup_reduce,
            "sgemm": setup_sgemm, "stencil5": setup_stencil, "nbody": setup_nbody,
            "black_scholes": setup_black_scholes, "softmax_small": setup_softmax,
            "softmax_large": setup_softmax, "histogram": setup_histogram,
            "mandelbrot": setup_mandelbrot, "fma_loop": setup_fma}


# ---- measuring ---------------------------------------------------------------------------------------

def time_launches(v, launch, cfg):
    """Median-able list of per-launch milliseconds (see the module docstring)."""
    for _ in range(cfg["warmup"]):
        launch()
    v.sync()
    e0, e1 = v.event(), v.event()
    v.record(e0)
    launch()
    v.record(e1)
    v.event_sync(e1)
    est_ms = max(v.elapsed(e0, e1), 1e-3)
    reps = int(min(cfg["reps_max"], max(cfg["reps_min"], cfg["budget_per_variant_s"] * 1e3 / est_ms)))
    evs = [v.event() for _ in range(reps + 1)]
    launch()                          # in flight while the timed launches are queued
    v.record(evs[0])
    for r in range(reps):
        launch()
        v.record(evs[r + 1])
    v.event_sync(evs[-1])
    return [v.elapsed(evs[r], evs[r + 1]) for r in range(reps)]


def run_variant(v, b, cfg):
    res = {"status": "ERROR"}
    try:
        t = time.perf_counter()
        launch = v.launcher(b)
        if b.prepare:
            b.prepare()
        v.sync()
        launch()                      # compiles on first use
        v.sync()
        res["first_call_s"] = time.perf_counter() - t
        ok, detail = b.check()
        res["check"] = detail
        if not ok:
            res["status"] = "FAIL"
            return res
        times = time_launches(v, launch, cfg)
        res.update(status="ok", median_ms=statistics.median(times), min_ms=min(times),
                   max_ms=max(times), reps=len(times))
    except Exception as e:       # noqa: BLE001 -- every failure is reported, none is fatal
        res["status"] = "ERROR"
        res["error"] = first_line(e)
        res["error_full"] = "".join(traceback.format_exception_only(type(e), e))[-2500:]
    finally:
        try:
            v.sync()
        except Exception as e:   # noqa: BLE001
            res.setdefault("error", first_line(e))
    return res


def measure_copy_bw(env, variants):
    """Device-to-device copy bandwidth (bytes read + written per second),
    via cudaMemcpyAsync in the twins' library and via our copy_to_device."""
    n = env.cfg["copy_n"]
    src, dst = env.empty(n, np.float32), env.empty(n, np.float32)
    nbytes = n * 4
    cfg = dict(env.cfg, reps_min=20, reps_max=50)
    if env.smoke:
        cfg["reps_min"] = cfg["reps_max"] = 3
    out = {}
    for v in variants:
        try:
            if v.name == "nvcc":
                lib = v.lib

                def launch():
                    v.check(lib.bench_memcpy_d2d(dptr(dst), dptr(src), nbytes), "cudaMemcpyAsync")
            elif v.name == "ours":
                def launch():
                    dst.copy_to_device(src)
            else:
                continue
            t = statistics.median(time_launches(v, launch, cfg))
            out[v.name] = 2 * nbytes / (t * 1e-3) / 1e9
        except Exception as e:   # noqa: BLE001
            log(f"copy bandwidth via {v.name} failed: {first_line(e)}")
        finally:
            if isinstance(v, NvccVariant):
                v.free_events()
    return out, nbytes


# ---- environment facts -------------------------------------------------------------------------------

def git_commit(arg):
    if arg:
        return arg
    if shutil.which("git"):
        try:
            h = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                               text=True, timeout=10).stdout.strip()
            if h:
                st = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                                    capture_output=True, text=True, timeout=30).stdout.strip()
                return h + (" (working tree has uncommitted changes)" if st else "")
        except Exception:        # noqa: BLE001
            pass
    gitdir = os.path.join(ROOT, ".git")
    try:
        if os.path.isfile(gitdir):       # worktree / submodule: "gitdir: <path>"
            with open(gitdir) as f:
                gitdir = os.path.join(ROOT, f.read().split(":", 1)[1].strip())
        with open(os.path.join(gitdir, "HEAD")) as f:
            head = f.read().strip()
        if not head.startswith("ref:"):
            return head + " (read from .git/HEAD)"
        ref = head.split(":", 1)[1].strip()
        for base in (gitdir, os.path.join(gitdir, "..")):
            p = os.path.join(base, ref)
            if os.path.isfile(p):
                with open(p) as f:
                    return f.read().strip() + f" ({ref}, read from .git)"
        packed = os.path.join(gitdir, "packed-refs")
        if os.path.isfile(packed):
            with open(packed) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 2 and parts[1] == ref:
                        return parts[0] + f" ({ref}, read from .git/packed-refs)"
    except Exception:            # noqa: BLE001
        pass
    return "unknown (no git, no .git; pass --commit)"


def gpu_facts(cuda, lib):
    facts = {"gpu": None, "driver": None}
    try:
        dev = cuda.get_current_device()
        facts["gpu"] = dev.name
        facts["cc"] = "%d.%d" % tuple(dev.compute_capability)
    except Exception as e:       # noqa: BLE001
        facts["gpu"] = f"unknown ({first_line(e)})"
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            p = subprocess.run([smi, "--query-gpu=name,driver_version,memory.total",
                                "--format=csv,noheader", "-i", "0"],
                               capture_output=True, text=True, timeout=20)
            parts = [s.strip() for s in p.stdout.strip().split(",")]
            if len(parts) >= 2 and p.returncode == 0:
                facts["gpu"] = parts[0]
                facts["driver"] = parts[1]
                if len(parts) > 2:
                    facts["memory"] = parts[2]
        except Exception:        # noqa: BLE001
            pass
    if lib is not None:
        dv = lib.bench_driver_version()
        facts["driver_cuda"] = f"{dv // 1000}.{(dv % 1000) // 10}"
        if not facts["driver"]:
            facts["driver"] = f"CUDA {facts['driver_cuda']} driver API (nvidia-smi not found)"
    return facts


def versions(nvcc):
    out = {"python": platform.python_version(), "numpy": np.__version__}
    try:
        import pycuda_jit
        out["pycuda_jit"] = pycuda_jit.__version__
    except Exception:            # noqa: BLE001
        pass
    try:
        from importlib import metadata
        for dist in ("numba", "numba-cuda"):
            try:
                out[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                pass
    except Exception:            # noqa: BLE001
        pass
    if nvcc:
        try:
            p = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=30)
            lines = [ln for ln in p.stdout.splitlines() if "release" in ln]
            out["nvcc"] = lines[0].strip() if lines else p.stdout.strip().splitlines()[-1]
        except Exception:        # noqa: BLE001
            pass
    return out


# ---- reporting ---------------------------------------------------------------------------------------

VARIANTS = ("ours", "numba", "nvcc")


def rate_of(b, res):
    if res.get("status") != "ok":
        return None
    work = res.get("work")
    if work is None:
        return None
    return work / (res["median_ms"] * 1e-3) / 1e9


def peak_of(b, copy_peak):
    return {"copy": copy_peak, "fp32": FP32_PEAK_GFLOPS, "fp64": FP64_PEAK_GFLOPS}[b["peak"]]


def cell_time(res):
    st = res.get("status")
    if st == "ok":
        return f"{res['median_ms']:.3f}"
    if st == "FAIL":
        return "**FAIL**"
    if st == "ERROR":
        return "**ERROR**"
    return res.get("why", "—")


def ratio(a, b):
    if a is None or b is None or b <= 0:
        return None
    return a / b


def fmt_rate(r, peak):
    if r is None:
        return "—"
    if peak:
        return f"{r:,.0f} ({100 * r / peak:.0f}%)"
    return f"{r:,.0f}"


def write_results(out_dir, rows, meta, smoke):
    os.makedirs(out_dir, exist_ok=True)
    md = os.path.join(out_dir, "RESULTS.md")
    copy_peak = meta.get("copy_peak_GBs")
    L = []
    L.append("# Kernel benchmarks: pycuda_jit vs numba-cuda vs CUDA C++ (nvcc)" +
             (" — SMOKE RUN (tiny sizes, not performance data)" if smoke else ""))
    L.append("")
    L.append("Generated by `benchmarks/run.py` (see benchmarks/README.md for what every column means).")
    L.append("")
    L.append("| | |")
    L.append("|---|---|")
    for k, label in (("date", "date (UTC)"), ("gpu", "GPU"), ("driver", "driver"),
                     ("backend", "pycuda_jit backend"), ("sms", "multiprocessors"),
                     ("commit", "git commit"), ("command", "command"),
                     ("twins_build", "twins built with"), ("versions", "versions"),
                     ("copy_bw", "measured copy bandwidth (D2D, read+write)"),
                     ("compute_peak", "compute peaks (nominal)"), ("total_s", "total run time")):
        if meta.get(k) is not None:
            val = meta[k]
            if k in ("command", "commit", "twins_build"):
                val = f"`{val}`"
            L.append(f"| {label} | {val} |")
    L.append("")
    L.append("Times are medians of back-to-back launches timed with CUDA events (ms per launch); "
             "rates are GB/s or GFLOP/s from the median, with the fraction of the peak in "
             "parentheses (GB/s: the measured copy bandwidth above; GFLOP/s: nominal FP32 "
             "67 TFLOP/s, or FP64 34 TFLOP/s for mandelbrot).  Ratios are throughput ratios "
             "(the other's time / our time): above 1 means ours is faster.")
    L.append("")
    L.append("| kernel | size | unit | ours ms | ours rate | numba ms | numba rate | nvcc ms | "
             "nvcc rate | ours/nvcc | ours/numba |")
    L.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        peak = peak_of(r, copy_peak) if r["peak"] != "copy" or copy_peak else None
        rates = {v: r["rates"].get(v) for v in VARIANTS}
        rn = ratio(rates["ours"], rates["nvcc"])
        rb = ratio(rates["ours"], rates["numba"])
        L.append(f"| {r['name']} | {r['size']} | {r['unit']} | "
                 + " | ".join(f"{cell_time(r['results'].get(v, {}))} | {fmt_rate(rates[v], peak)}"
                              for v in VARIANTS)
                 + f" | {'—' if rn is None else f'{rn:.2f}'} | {'—' if rb is None else f'{rb:.2f}'} |")
    L.append("")
    L.append("## How each kernel is counted and checked")
    L.append("")
    L.append("| kernel | work per run | launch | check (ours / numba / nvcc) |")
    L.append("|---|---|---|---|")
    for r in rows:
        checks = " / ".join(r["results"].get(v, {}).get("check", r["results"].get(v, {}).get("why", "—"))
                            for v in VARIANTS).replace("|", "\\|")
        L.append(f"| {r['name']} | {r['formula']} | {r['note']} | {checks} |")
    L.append("")
    details = []
    for r in rows:
        for v in VARIANTS:
            res = r["results"].get(v, {})
            if res.get("status") in ("FAIL", "ERROR"):
                msg = res.get("error_full") or res.get("check") or res.get("error") or ""
                details.append(f"### {r['name']} — {v}: {res['status']}\n\n```\n{msg.strip()}\n```\n")
    if details:
        L.append("## Failures")
        L.append("")
        L.extend(details)
    L.append("## Spread (ms per launch: min / median / max, repetitions, first call incl. compile)")
    L.append("")
    L.append("| kernel | ours | numba | nvcc |")
    L.append("|---|---|---|---|")
    for r in rows:
        cells = []
        for v in VARIANTS:
            res = r["results"].get(v, {})
            if res.get("status") == "ok":
                cells.append(f"{res['min_ms']:.3f} / {res['median_ms']:.3f} / {res['max_ms']:.3f}, "
                             f"n={res['reps']}, first {res['first_call_s']:.2f} s")
            else:
                cells.append(res.get("status", "—") if res.get("status") != "skipped" else res.get("why", "—"))
        L.append(f"| {r['name']} | " + " | ".join(cells) + " |")
    L.append("")
    if meta.get("chart"):
        L.append(f"![ours/nvcc and ours/numba per kernel]({os.path.basename(meta['chart'])})")
        L.append("")
    elif meta.get("chart_missing"):
        L.append(f"_Chart not drawn: {meta['chart_missing']}_")
        L.append("")
    with open(md, "w") as f:
        f.write("\n".join(L))
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1, default=str)
    return md


def draw_chart(out_dir, rows, smoke):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:       # noqa: BLE001
        return None, f"matplotlib is not available ({first_line(e)})"
    names = [r["name"] for r in rows]

    def why(r, other):
        for v in ("ours", other):
            st = r.get("results", {}).get(v, {}).get("status")
            if st and st != "ok":
                return f"n/a ({v} {st if st != 'skipped' else 'skipped'})"
        return "n/a"

    vs_nvcc = [ratio(r["rates"].get("ours"), r["rates"].get("nvcc")) for r in rows]
    vs_numba = [ratio(r["rates"].get("ours"), r["rates"].get("numba")) for r in rows]
    fig, ax = plt.subplots(figsize=(10, 0.55 * len(rows) + 2.2))
    y = np.arange(len(rows))
    h = 0.38
    top = max([v for v in vs_nvcc + vs_numba if v is not None] + [1.0])
    for off, vals, label, color, other in ((-h / 2, vs_nvcc, "ours / nvcc (CUDA C++)", "#4c72b0", "nvcc"),
                                           (h / 2, vs_numba, "ours / numba-cuda", "#dd8452", "numba")):
        ax.barh(y + off, [v if v is not None else 0 for v in vals], height=h, label=label, color=color)
        for yi, v, r in zip(y + off, vals, rows):
            ax.text((v or 0) + top * 0.01, yi, why(r, other) if v is None else f"{v:.2f}",
                    va="center", fontsize=8)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_xlim(0, top * 1.18)
    ax.set_yticks(y)
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.set_xlabel("throughput ratio (other's time / our time); > 1: ours faster")
    ax.set_title("pycuda_jit vs CUDA C++ and numba-cuda, same kernels, same run"
                 + (" (SMOKE: not performance data)" if smoke else ""))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08 - 1.0 / (len(rows) + 4)), ncol=2, frameon=False)
    fig.tight_layout()
    path = os.path.join(out_dir, "RESULTS.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path, None


# ---- main ----------------------------------------------------------------------------------------------

def import_numba():
    os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
    import numpy
    numpy.row_stack = numpy.vstack           # numba-cuda 0.30.4 does not import under numpy 2.5 without it
    from numba import cuda as ncuda
    try:
        from numba.core.errors import NumbaPerformanceWarning
        warnings.simplefilter("ignore", NumbaPerformanceWarning)
    except Exception:            # noqa: BLE001
        pass
    if not ncuda.is_available():
        raise RuntimeError("numba.cuda.is_available() is False")
    return ncuda


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="directory for RESULTS.md, RESULTS.png and results.json "
                                  "(default: benchmarks/ for a full run; smoke runs write nothing unless given)")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, few repetitions, any backend")
    ap.add_argument("--only", help="comma-separated kernel names (default: all): " + ",".join(ALL_NAMES))
    ap.add_argument("--commit", help="git commit to record (default: git rev-parse, else .git/HEAD)")
    ap.add_argument("--no-numba", action="store_true")
    ap.add_argument("--no-nvcc", action="store_true")
    ap.add_argument("--arch", help="nvcc -arch (default: sm_XY of the current device, else sm_90)")
    ap.add_argument("--budget", type=float, default=330.0,
                    help="seconds: kernels not started by then are skipped (default 330)")
    args = ap.parse_args()

    cfg = dict(SMOKE if args.smoke else FULL)
    out_dir = args.out if args.out else (None if args.smoke else HERE)
    only = None
    if args.only:
        only = [s.strip() for s in args.only.split(",") if s.strip()]
        unknown = [s for s in only if s not in ALL_NAMES]
        if unknown:
            ap.error(f"unknown kernels {unknown}; choose from {ALL_NAMES}")

    warnings.simplefilter("ignore", RuntimeWarning)      # the CPU-executor fallback notice
    from pycuda_jit import cuda
    backend = cuda.backend()
    log(f"pycuda_jit backend: {backend}" + (" (smoke run)" if args.smoke else ""))
    if backend != "cuda" and not args.smoke:
        log("no GPU: a full run needs one; use --smoke to check the kernels on the CPU executor")
        return 2
    try:
        sms = int(cuda.get_current_device().MULTIPROCESSOR_COUNT)
    except Exception:            # noqa: BLE001
        sms = 132
    if args.smoke:
        sms = min(sms, 4)

    variants = [PyVariant("ours", cuda, lambda a: a)]
    skipped = {}
    twins_lib = None
    twins_build = None
    nvcc = find_nvcc()
    if backend != "cuda":
        skipped["numba"] = skipped["nvcc"] = "no GPU"
    else:
        if args.no_numba:
            skipped["numba"] = "--no-numba"
        else:
            try:
                ncuda = import_numba()
                variants.append(PyVariant("numba", ncuda, ncuda.as_cuda_array))
                log("numba-cuda imported")
            except Exception as e:   # noqa: BLE001
                skipped["numba"] = "unavailable"
                log(f"numba-cuda skipped: {first_line(e)}")
        if args.no_nvcc:
            skipped["nvcc"] = "--no-nvcc"
        elif not nvcc:
            skipped["nvcc"] = "no nvcc"
            log("nvcc not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin): twins skipped")
        else:
            arch = args.arch
            if not arch:
                try:
                    arch = "sm_%d%d" % tuple(cuda.get_current_device().compute_capability)
                except Exception:    # noqa: BLE001
                    arch = "sm_90"
            try:
                builddir = tempfile.mkdtemp(prefix="pcj_bench_")
                log(f"building the CUDA C++ twins with {nvcc} -arch={arch} ...")
                so, twins_build = build_twins(nvcc, arch, builddir)
                twins_lib = ctypes.CDLL(so)
                variants.append(NvccVariant(twins_lib))
                log("twins built")
            except Exception as e:   # noqa: BLE001
                skipped["nvcc"] = "build failed"
                log(f"twins skipped: {e}")

    env = Env(cuda, cfg, sms, twins_lib, args.smoke)

    copy_bw, copy_bytes = measure_copy_bw(env, variants)
    gc.collect()                                         # frees the copy buffers
    copy_peak = max(copy_bw.values()) if copy_bw else None
    log("copy bandwidth: " + ", ".join(f"{k} {v:,.0f} GB/s" for k, v in copy_bw.items()))

    facts = gpu_facts(cuda, twins_lib) if backend == "cuda" else {"gpu": "none (CPU executor)"}
    cmd_env = " ".join(f"{k}={os.environ[k]}" for k in ("PYTHONPATH", "PYCUDA_JIT_BACKEND")
                       if os.environ.get(k))
    meta = dict(
        date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S"),
        gpu=facts.get("gpu") + (f" (compute capability {facts['cc']})" if facts.get("cc") else ""),
        driver=(facts.get("driver") or "unknown")
        + (f" (CUDA {facts['driver_cuda']} driver API)" if facts.get("driver_cuda") else ""),
        backend=backend, sms=sms, commit=git_commit(args.commit),
        command=(cmd_env + " " if cmd_env else "") + "python3 " + " ".join(
            [os.path.relpath(os.path.abspath(sys.argv[0]), os.getcwd())] + sys.argv[1:]),
        twins_build=twins_build,
        versions=", ".join(f"{k} {v}" for k, v in versions(nvcc).items()),
        copy_bw=(", ".join(f"{v:,.0f} GB/s via {'cudaMemcpyAsync' if k == 'nvcc' else 'our copy_to_device'}"
                           for k, v in copy_bw.items())
                 + f" ({copy_bytes / 2**30:.2f} GiB buffers); peak used: "
                 + (f"{copy_peak:,.0f} GB/s" if copy_peak else "none")) if copy_bw else "not measured",
        copy_peak_GBs=copy_peak,
        compute_peak="FP32 67 TFLOP/s, FP64 34 TFLOP/s (H200 SXM data sheet; not measured)",
    )

    def emit(final):
        """Write RESULTS.md / results.json (after every kernel, so a crash
        leaves the kernels done so far), and the chart at the end."""
        if not out_dir:
            return
        meta["total_s"] = f"{time.perf_counter() - T0:.0f} s" + ("" if final else
                                                                   " so far (PARTIAL: run in progress or interrupted)")
        os.makedirs(out_dir, exist_ok=True)
        if final:
            try:
                chart, why = draw_chart(out_dir, rows, args.smoke)
            except Exception as e:       # noqa: BLE001 -- the table matters more than the chart
                chart, why = None, f"drawing failed ({first_line(e)})"
            if chart:
                meta["chart"] = chart
                log(f"chart: {chart}")
            else:
                meta["chart_missing"] = why
                log(f"chart not drawn: {why}")
        md = write_results(out_dir, rows, meta, args.smoke)
        if final:
            log(f"wrote {md}")

    rows = []
    done_setups = set()
    wanted = only or ALL_NAMES
    for setup in SETUPS:
        names = [n for n in ALL_NAMES if SETUP_OF[n] is setup and n in wanted]
        if not names or setup in done_setups:
            continue
        done_setups.add(setup)
        if time.perf_counter() - T0 > args.budget:
            for n in names:
                log(f"{n}: skipped (time budget of {args.budget:.0f} s spent)")
                rows.append(dict(name=n, size="—", unit="—", formula="—", note="—", peak="copy",
                                 rates={}, results={v: {"status": "skipped", "why": "time budget"}
                                                    for v in VARIANTS}))
            continue
        log(f"{'/'.join(names)}: setting up (inputs, numpy reference)")
        try:
            benches = [b for b in setup(env) if b.name in names]
        except Exception as e:   # noqa: BLE001
            log(f"{'/'.join(names)}: setup failed: {first_line(e)}")
            for n in names:
                rows.append(dict(name=n, size="—", unit="—", formula="—", note="—", peak="copy",
                                 rates={}, results={v: {"status": "ERROR", "error": first_line(e),
                                                        "error_full": traceback.format_exc()[-2500:]}
                                                    for v in VARIANTS}))
            continue
        for b in benches:
            row = dict(name=b.name, size=b.size, unit=b.unit, formula=b.formula, note=b.note,
                       peak=b.peak, results={}, rates={})
            for v in variants:
                res = run_variant(v, b, cfg)
                row["results"][v.name] = res
                if res["status"] == "ok":
                    try:
                        res["work"] = b.work() if callable(b.work) else b.work
                    except Exception:    # noqa: BLE001
                        res["work"] = None
                    row["rates"][v.name] = rate_of(b, res)
                    r = row["rates"][v.name]
                    log(f"{b.name:14s} {v.name:5s} ok    {res['median_ms']:9.3f} ms  "
                        f"{(r or 0):10,.1f} {b.unit}  (n={res['reps']}; check: {res['check']})")
                elif res["status"] == "FAIL":
                    log(f"{b.name:14s} {v.name:5s} FAIL  {res.get('check')}")
                else:
                    log(f"{b.name:14s} {v.name:5s} ERROR {res.get('error')}")
                if isinstance(v, NvccVariant):
                    v.free_events()
            for name, why in skipped.items():
                row["results"][name] = {"status": "skipped", "why": f"skipped ({why})"}
            rows.append(row)
        del benches
        gc.collect()
        emit(final=False)

    ok = sum(1 for r in rows for v in r["results"].values() if v.get("status") == "ok")
    bad = [(r["name"], k, v["status"]) for r in rows for k, v in r["results"].items()
           if v.get("status") in ("FAIL", "ERROR")]
    log(f"done: {ok} variant runs ok, {len(bad)} failed" + (f": {bad}" if bad else ""))

    # summary table on stdout
    print(f"\n{'kernel':15s} {'unit':8s} {'ours':>10s} {'numba':>10s} {'nvcc':>10s} {'ours/nvcc':>10s} {'ours/numba':>10s}")
    for r in rows:
        rr = r["rates"]
        cells = []
        for v in VARIANTS:
            res = r["results"].get(v, {})
            cells.append(f"{rr[v]:10,.0f}" if rr.get(v) is not None else f"{res.get('status', '-'):>10s}")
        rn, rb = ratio(rr.get("ours"), rr.get("nvcc")), ratio(rr.get("ours"), rr.get("numba"))
        print(f"{r['name']:15s} {r['unit']:8s} " + " ".join(cells)
              + f" {('-' if rn is None else f'{rn:.2f}'):>10s} {('-' if rb is None else f'{rb:.2f}'):>10s}")

    emit(final=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
