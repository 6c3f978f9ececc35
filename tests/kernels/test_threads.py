"""Compiling and launching from many Python threads at once: results stay
right, specializations are not mixed up, and one thread's launch does not
wait for another's kernel to finish."""
import logging
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from pycuda_jit import cuda


def distinct_kernel(k):
    ns = {}
    exec(textwrap.dedent(f"""
        @cuda.jit
        def kern(x, out):
            i = cuda.grid(1)
            if i < x.size:
                out[i] = x[i] * {k} + {k}
    """), {"cuda": cuda}, ns)
    return ns["kern"]


def test_threads_compile_distinct_kernels_at_once(backend, rng):
    x = rng.standard_normal(1000)
    start = threading.Barrier(8)

    def work(k):
        kern = distinct_kernel(k)
        d = cuda.to_device(x)
        out = cuda.to_device(np.full(1000, np.nan))
        start.wait()  # compile at the same moment
        kern[8, 128](d, out)
        return out.copy_to_host()

    with ThreadPoolExecutor(8) as ex:
        results = list(ex.map(work, range(8)))
    for k, r in enumerate(results):
        np.testing.assert_allclose(r, x * k + k, rtol=1e-12)  # fused or not


@cuda.jit
def scale_add(x, a, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * a + 1


def test_threads_specialize_and_launch_one_kernel(backend):
    # Eight threads hit one dispatcher with four argument-type combinations
    # at once (compiling them concurrently), then keep launching it.
    dtypes = [np.float32, np.float64, np.int32, np.int64] * 2
    start = threading.Barrier(8)

    def work(t):
        dt = dtypes[t]
        r = np.random.default_rng(t)
        start.wait()
        for rep in range(40):
            x = (r.standard_normal(300) * 100).astype(dt)
            a = dt(rep % 7 + 2)
            out = cuda.to_device(np.full(300, 77, dt))
            scale_add[3, 128](cuda.to_device(x), a, out)
            got = out.copy_to_host()
            want = (x * a + dt(1)).astype(dt)
            exact = np.issubdtype(dt, np.integer)  # floats: fused multiply-add or not
            if not (np.array_equal(got, want) if exact else np.allclose(got, want, rtol=1e-6, atol=1e-6 * float(np.abs(x * a).max()))):
                return f"thread {t} ({dt.__name__}) rep {rep}: {got[:4]} != {want[:4]}"
        return None

    with ThreadPoolExecutor(8) as ex:
        failures = [f for f in ex.map(work, range(8)) if f]
    assert not failures, failures
    assert len(scale_add.signatures) == 4


@cuda.jit
def wait_for_flag(started, flag, limit, seen):
    # Says it started, then spins (bounded) until another kernel sets flag[0].
    started[0] = 1
    cuda.threadfence_system()
    for k in range(limit):
        if cuda.atomic.add(flag, 0, 0) != 0:
            seen[0] = k + 1
            return
    seen[0] = -1


@cuda.jit
def set_flag(flag):
    cuda.atomic.add(flag, 0, 1)


def test_a_launch_does_not_wait_for_another_threads_kernel(backend):
    # set_flag is launched only once the waiting kernel runs, so the waiter
    # finishes early only if the two overlap: launches from two threads on
    # two streams hold no common lock for a kernel's duration.
    started = cuda.mapped_array(1, np.int32)  # host-visible while kernels run
    flag = cuda.to_device(np.zeros(1, np.int32))
    seen = cuda.to_device(np.zeros(1, np.int64))
    s1, s2 = cuda.stream(), cuda.stream()
    wait_for_flag[1, 1, s1](started, flag, 0, seen)  # compile both first
    set_flag[1, 1, s2](cuda.to_device(np.zeros(1, np.int32)))
    cuda.synchronize()
    started[0] = 0
    limit = 10_000_000 if backend == "cuda" else 20_000_000
    waiter = threading.Thread(target=lambda: wait_for_flag[1, 1, s1](started, flag, limit, seen))
    waiter.start()
    deadline = time.monotonic() + 30
    while started[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.0005)
    assert started[0] == 1, "the waiting kernel never started"
    set_flag[1, 1, s2](flag)
    waiter.join()
    cuda.synchronize()
    assert seen.copy_to_host()[0] > 0
    assert flag.copy_to_host()[0] == 1


@cuda.jit
def record_grid(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cuda.gridDim.x * 1000 + cuda.blockDim.x


def test_launch_configurations_alternate(backend):
    # kernel[g, b] objects are cached (the last one by identity): switching
    # between configurations, equal tuples built anew, and streams must
    # each launch with their own configuration.
    out = cuda.to_device(np.zeros(64, np.int64))
    s = cuda.stream()
    configs = [(1, 64), (2, 32), (1, 64), (4, 16), (2, 32)]
    for rep in range(3):
        for g, b in configs:
            cfg = (g, b) if rep != 1 else tuple([g, b])  # equal, not identical
            launcher = record_grid[cfg] if rep != 2 else record_grid[g, b, s]
            launcher(out)
            cuda.synchronize()
            assert (out.copy_to_host() == g * 1000 + b).all(), (rep, g, b)
    assert record_grid[1, 64] is record_grid[1, 64]


class _CompileRecords(logging.Handler):
    """The compile events of the "pycuda_jit" logger (one per compile)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record.getMessage())


def test_threads_launching_one_new_signature_compile_it_once(backend, rng):
    # Eight threads launch one kernel for the first time at the same moment:
    # the first compiles, the others wait for that compile (the GIL released
    # meanwhile) instead of compiling the signature again.
    kern = distinct_kernel(3)
    x = rng.standard_normal(1000)
    start = threading.Barrier(8)
    log = logging.getLogger("pycuda_jit")
    handler = _CompileRecords()
    old_level = log.level
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)

    def work(_):
        d = cuda.to_device(x)
        out = cuda.to_device(np.full(1000, np.nan))
        start.wait()
        kern[8, 128](d, out)
        return out.copy_to_host()

    try:
        with ThreadPoolExecutor(8) as ex:
            results = list(ex.map(work, range(8)))
    finally:
        log.removeHandler(handler)
        log.setLevel(old_level)
    for r in results:
        np.testing.assert_allclose(r, x * 3 + 3, rtol=1e-12)
    compiles = [m for m in handler.records if "kern" in m]
    assert len(compiles) == 1, compiles
    assert len(kern.overloads) == 1
