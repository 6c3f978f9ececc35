"""Processes forked after CUDA started.  The CUDA driver does not survive
fork(): a child forked after the parent initialized it gets CudaDriverError
"CUDA initialized before forking" from its first CUDA call (numba-cuda's
check), not a crash or a hang (runtime/CudaDriver.h).  The CPU executor has
no driver state and works in a forked child (docs/migration.md)."""
import concurrent.futures
import multiprocessing as mp
import os

import numpy as np
import pytest

from pycuda_jit import cuda, errors

pytestmark = pytest.mark.skipif(os.name != "posix", reason="fork is POSIX only")


@cuda.jit
def _scaled_index(a, scale):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i * scale


def _in_child(n, scale):
    """What the child sees: ("ok", values) or ("error", class, message)."""
    try:
        a = np.full(n, -1, np.int64)
        _scaled_index[(n + 127) // 128, 128](a, scale)
        return ("ok", a.tolist())
    except Exception as e:  # noqa: BLE001 - the test inspects it
        return ("error", type(e).__name__, isinstance(e, errors.CudaDriverError), str(e))


def _fork_pool():
    return concurrent.futures.ProcessPoolExecutor(1, mp_context=mp.get_context("fork"))


def test_cpu_executor_runs_kernels_in_a_forked_child(backend, rng):
    if backend != "cpu":
        pytest.skip("the CPU executor's behaviour")
    scale = int(rng.integers(2, 50))
    assert _in_child(300, scale)[0] == "ok"  # the parent ran the kernel first
    with _fork_pool() as exe:
        got = exe.submit(_in_child, 300, scale).result(timeout=120)
    assert got == ("ok", (np.arange(300) * scale).tolist())


def test_cuda_initialized_before_forking(hardware, rng):
    scale = int(rng.integers(2, 50))
    assert _in_child(300, scale) == ("ok", (np.arange(300) * scale).tolist())
    with _fork_pool() as exe:
        got = exe.submit(_in_child, 300, scale).result(timeout=120)
        copy = exe.submit(cuda.to_device, np.arange(4))
        with pytest.raises(errors.CudaDriverError, match="CUDA initialized before forking"):
            copy.result(timeout=120)
    assert got[:3] == ("error", "CudaDriverError", True), got
    assert "CUDA initialized before forking" in got[3]
    # The parent is untouched.
    assert _in_child(50, scale) == ("ok", (np.arange(50) * scale).tolist())
