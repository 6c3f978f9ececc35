"""Host API, memory lifetime: device memory is released when arrays are
collected (on the GPU deferred and batched: flushed above a count or byte
threshold, on synchronize, and on out-of-memory); 100,000 allocate/free
cycles leave host memory (RSS), device memory (cuMemGetInfo) and the
allocation counters flat."""
import gc
import os

import numpy as np
import pytest

from pycuda_jit import cuda
from pycuda_jit._lazy import core


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def stats():
    return core().memory_stats()


@cuda.jit
def bump(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += 1


def test_100k_allocate_free_cycles_leave_memory_flat(backend):
    def cycles(n):
        for _ in range(n):
            d = cuda.device_array(1000, np.float32)
            del d

    cycles(5000)  # warm up: caches, the Python allocator's arenas
    cuda.synchronize()
    gc.collect()
    rss0, s0 = rss(), stats()
    free0 = cuda.current_context().get_memory_info().free if backend == "cuda" else None
    cycles(100_000)
    cuda.synchronize()
    gc.collect()
    s1 = stats()
    assert s1["total_allocations"] - s0["total_allocations"] == 100_000
    assert s1["total_releases"] - s0["total_releases"] == 100_000
    assert s1["live_allocations"] == s0["live_allocations"]
    assert s1["live_bytes"] == s0["live_bytes"]
    assert s1["pending_frees"] == 0
    assert rss() - rss0 < 8 << 20
    if backend == "cuda":
        assert s1["freed_by_flushes"] - s0["freed_by_flushes"] >= 100_000
        free1 = cuda.current_context().get_memory_info().free
        assert abs(free1 - free0) < 32 << 20, (free0, free1)


def test_views_copies_and_launches_do_not_leak(backend, rng):
    x = rng.standard_normal(512).astype(np.float32)
    host = np.empty_like(x)

    def cycles(n):
        for _ in range(n):
            d = cuda.to_device(x)
            v = d[::2]
            bump[2, 256](v)
            d.copy_to_host(host)
            del d, v

    cycles(500)
    cuda.synchronize()
    gc.collect()
    rss0, s0 = rss(), stats()
    cycles(10_000)
    cuda.synchronize()
    gc.collect()
    s1 = stats()
    assert s1["live_allocations"] == s0["live_allocations"] and s1["pending_frees"] == 0
    assert rss() - rss0 < 8 << 20
    expect = x.copy()
    expect[::2] += 1
    np.testing.assert_array_equal(host, expect)


def test_release_is_deferred_and_batched(backend):
    c = core()
    cuda.synchronize()
    c.set_deallocation_limits(8, 0)
    try:
        base = stats()
        arrays = [cuda.device_array(1024, np.float32) for _ in range(5)]
        assert stats()["live_allocations"] == base["live_allocations"] + 5
        del arrays
        s = stats()
        assert s["live_allocations"] == base["live_allocations"]
        if backend == "cpu":
            assert s["pending_frees"] == 0  # the CPU executor frees at once
            return
        assert s["pending_frees"] == 5 and s["pending_bytes"] == 5 * 4096
        arrays = [cuda.device_array(1024, np.float32) for _ in range(4)]
        del arrays  # 9 > 8 pending: flushed
        s = stats()
        assert s["pending_frees"] == 0
        assert s["freed_by_flushes"] - base["freed_by_flushes"] == 9
        # the byte threshold
        c.set_deallocation_limits(1000, 1 << 20)
        small = cuda.device_array(100, np.uint8)
        del small
        assert stats()["pending_frees"] == 1
        big = cuda.device_array(2 << 20, np.uint8)
        del big  # 2 MiB pending > 1 MiB: flushed with the small one
        assert stats()["pending_frees"] == 0
        # synchronize flushes
        small = cuda.device_array(100, np.uint8)
        del small
        assert stats()["pending_frees"] == 1
        cuda.synchronize()
        assert stats()["pending_frees"] == 0
        # defer_cleanup holds the queue past the thresholds
        with cuda.defer_cleanup():
            big = cuda.device_array(2 << 20, np.uint8)
            del big
            assert stats()["pending_frees"] == 1
        cuda.synchronize()
        assert stats()["pending_frees"] == 0
    finally:
        c.set_deallocation_limits(64, 0)


def test_host_allocations_are_freed(backend):
    s0 = stats()
    arrays = [cuda.pinned_array(1000), cuda.mapped_array(1000), cuda.managed_array(1000)]
    s1 = stats()
    assert s1["live_host_allocations"] == s0["live_host_allocations"] + 3
    assert s1["live_host_bytes"] == s0["live_host_bytes"] + 3 * 8000
    del arrays
    gc.collect()
    cuda.synchronize()
    assert stats()["live_host_allocations"] == s0["live_host_allocations"]
