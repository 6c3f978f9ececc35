"""Host API, streams and events: cuda.stream / default_stream /
legacy_default_stream / per_thread_default_stream / external_stream,
synchronize, query, auto_synchronize, kernel[grid, block, stream] with ours
and other libraries' stream objects; cuda.event, record, synchronize, wait,
query, elapsed_time, event_elapsed_time; two-stream overlap and truly
asynchronous pinned copies (GPU).  On the CPU executor streams and events
work, with every operation complete on return."""
import ctypes
import time

import numpy as np
import pytest

from pycuda_jit import cuda, errors


@cuda.jit
def affine(x, out, a):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * a + i


@cuda.jit
def spin(out, n, a, b):
    # One thread, a dependent chain of n multiply-adds: a kernel that takes
    # a predictable time.
    x = out[0]
    for i in range(n):
        x = x * a + b
    out[0] = x


A, B = np.float32(0.99999), np.float32(1e-5)


def spin_reference(n):
    """The spin result computed by the same kernel on the default stream."""
    o = cuda.to_device(np.zeros(1, np.float32))
    spin[1, 1](o, n, A, B)
    return o.copy_to_host()[0]


def iterations(backend, ms):
    """Spin iterations for about `ms` milliseconds."""
    per_ms = 250_000 if backend == "cuda" else 500_000
    return int(ms * per_ms)


def run_affine(rng, launch_stream, n=1000):
    x = rng.standard_normal(n).astype(np.float32)
    d = cuda.to_device(x)
    out = cuda.to_device(np.full(n, np.nan, np.float32))
    affine[(n + 127) // 128, 128, launch_stream](d, out, np.float32(3))
    return x, out


def test_stream_kinds_and_handles(backend):
    s = cuda.stream()
    assert s.kind == "user" and s.handle != 0 and int(s) == s.handle
    assert cuda.default_stream().handle == 0
    assert cuda.legacy_default_stream().handle == 1
    assert cuda.per_thread_default_stream().handle == 2
    assert cuda.external_stream(s.handle).handle == s.handle
    assert cuda.default_stream() == cuda.default_stream()
    assert cuda.stream() != s
    assert s.__cuda_stream__() == (0, s.handle)
    with pytest.raises(ValueError):
        cuda.external_stream(0)


@pytest.mark.parametrize("which", ["stream", "default", "legacy", "per_thread", "external",
                                   "zero", "none"])
def test_launch_on_each_stream(backend, rng, which):
    own = cuda.stream()
    s = {"stream": own, "default": cuda.default_stream(),
         "legacy": cuda.legacy_default_stream(),
         "per_thread": cuda.per_thread_default_stream(),
         "external": cuda.external_stream(own.handle), "zero": 0, "none": None}[which]
    x, out = run_affine(rng, s)
    if hasattr(s, "synchronize"):
        s.synchronize()
    cuda.synchronize()
    np.testing.assert_allclose(out.copy_to_host(), x * 3 + np.arange(x.size), rtol=1e-6, atol=1e-5)


class _CudaStreamProtocol:
    def __init__(self, s):
        self.s = s

    def __cuda_stream__(self):
        return (0, self.s.handle)


class _NumbaLike:  # numba's Stream: .handle is a ctypes pointer
    def __init__(self, s):
        self.handle = ctypes.c_void_p(s.handle)


class _CupyLike:
    def __init__(self, s):
        self.ptr = s.handle


class _TorchLike:
    def __init__(self, s):
        self.cuda_stream = s.handle


@pytest.mark.parametrize("wrap", [_CudaStreamProtocol, _NumbaLike, _CupyLike, _TorchLike])
def test_launch_on_foreign_stream_objects(backend, rng, wrap):
    s = cuda.stream()
    x, out = run_affine(rng, wrap(s))
    s.synchronize()
    np.testing.assert_allclose(out.copy_to_host(), x * 3 + np.arange(x.size), rtol=1e-6, atol=1e-5)


def test_bad_stream_argument(backend):
    d = cuda.device_array(4, np.float32)
    with pytest.raises(TypeError, match="stream"):
        affine[1, 4, "not a stream"](d, d, np.float32(1))


def test_synchronize_query_and_auto_synchronize(backend, rng):
    s = cuda.stream()
    n = iterations(backend, 20)
    o = cuda.to_device(np.zeros(1, np.float32))
    expect = spin_reference(n)
    with s.auto_synchronize() as same:
        assert same is s
        spin[1, 1, s](o, n, A, B)
    assert s.query()  # auto_synchronize waited
    assert o.copy_to_host()[0] == expect
    spin[1, 1, s](o, 10, A, B)
    s.synchronize()
    assert s.query()


def test_stream_copies_are_ordered(backend, rng):
    s = cuda.stream()
    x = rng.standard_normal(100_000).astype(np.float32)
    d = cuda.to_device(x, stream=s)
    out = cuda.device_array_like(d, stream=s)
    affine[(x.size + 255) // 256, 256, s](d, out, np.float32(-2))
    host = cuda.pinned_array_like(x)
    host[:] = np.nan
    out.copy_to_host(host, stream=s)
    s.synchronize()
    np.testing.assert_allclose(host, x * -2 + np.arange(x.size), rtol=1e-6, atol=1e-5)


def test_events(backend):
    s = cuda.stream()
    n = iterations(backend, 5)
    o = cuda.to_device(np.zeros(1, np.float32))
    start, end = cuda.event(), cuda.event(timing=True)
    assert start.timing and not cuda.event(timing=False).timing
    start.record(s)
    spin[1, 1, s](o, n, A, B)
    end.record(s)
    end.synchronize()
    assert start.query() and end.query()
    ms = end_ms = start.elapsed_time(end)
    assert ms > 0 and cuda.event_elapsed_time(start, end) == end_ms
    assert o.copy_to_host()[0] == spin_reference(n)
    # wait: s2's copy of zeros into o must come after s's spin writes o
    # (without the wait, the copy would land while the spin still runs)
    s2 = cuda.stream()
    zeros = cuda.to_device(np.zeros(1, np.float32))
    e = cuda.event(timing=False)
    spin[1, 1, s](o, 4 * n, A, B)
    e.record(s)
    e.wait(s2)
    o.copy_to_device(zeros, stream=s2)
    s2.synchronize()
    s.synchronize()
    assert o.copy_to_host()[0] == 0.0


def test_event_timing_measures_the_interval_between_records(backend):
    # Not a speed check (those live in benchmarks/): the times are positive,
    # bounded by the host's wall clock around them, and additive -- the
    # interval e0..e2 is e0..e1 plus e1..e2 -- so they time the recorded
    # points, whatever the machine's load.
    n = iterations(backend, 4)
    o = cuda.to_device(np.zeros(1, np.float32))
    spin[1, 1](o, 10, A, B)  # compiled and loaded
    e0, e1, e2 = cuda.event(), cuda.event(), cuda.event()
    t0 = time.perf_counter()
    e0.record()
    spin[1, 1](o, n, A, B)
    e1.record()
    spin[1, 1](o, 4 * n, A, B)
    e2.record()
    e2.synchronize()
    wall_ms = (time.perf_counter() - t0) * 1e3
    first, second, whole = e0.elapsed_time(e1), e1.elapsed_time(e2), e0.elapsed_time(e2)
    assert 0 < first and 0 < second
    assert whole <= wall_ms + 1.0
    assert whole == pytest.approx(first + second, rel=1e-3, abs=2e-3)


def test_event_errors_are_driver_errors(backend):
    a, b = cuda.event(timing=False), cuda.event(timing=False)
    a.record()
    b.record()
    b.synchronize()
    with pytest.raises(errors.CudaDriverError) as info:
        a.elapsed_time(b)
    assert info.value.name == "CUDA_ERROR_INVALID_HANDLE" and info.value.code == 400
    fresh = cuda.event()
    done = cuda.event()
    done.record()
    done.synchronize()
    with pytest.raises(errors.CudaDriverError):
        fresh.elapsed_time(done)  # never recorded
    # the process is fine afterwards
    x, out = run_affine(np.random.default_rng(1), 0)
    np.testing.assert_allclose(out.copy_to_host(), x * 3 + np.arange(x.size), rtol=1e-6, atol=1e-5)


def test_two_streams_overlap(hardware):
    n = iterations("cuda", 40)
    expect = spin_reference(n)
    s1, s2 = cuda.stream(), cuda.stream()
    o1 = cuda.to_device(np.zeros(1, np.float32))
    o2 = cuda.to_device(np.zeros(1, np.float32))
    e0, e1 = cuda.event(), cuda.event()
    e0.record(s1)
    spin[1, 1, s1](o1, n, A, B)
    e1.record(s1)
    e1.synchronize()
    single = e0.elapsed_time(e1)
    start, end1, end2 = cuda.event(), cuda.event(), cuda.event()
    start.record()  # legacy stream: both (blocking) streams start after it
    spin[1, 1, s1](o1, n, A, B)
    spin[1, 1, s2](o2, n, A, B)
    end1.record(s1)
    end2.record(s2)
    end1.synchronize()
    end2.synchronize()
    both = max(start.elapsed_time(end1), start.elapsed_time(end2))
    assert both < 1.5 * single, (single, both)  # serialized would be ~2x
    assert o1.copy_to_host()[0] == expect and o2.copy_to_host()[0] == expect


def test_pinned_copies_are_asynchronous(hardware, rng):
    n = iterations("cuda", 60)
    s = cuda.stream()
    flag = cuda.to_device(np.zeros(1, np.float32))
    x = rng.standard_normal(8 << 20).astype(np.float32)  # 32 MiB
    d = cuda.to_device(x)
    host = cuda.pinned_array_like(x)
    host[:] = np.nan
    spin[1, 1](flag, 10, A, B)
    cuda.synchronize()  # also empties the deferred-free queue
    with cuda.defer_cleanup():  # no cuMemFree (it would wait) in between
        _check_async_copies(n, s, flag, x, d, host)


def _check_async_copies(n, s, flag, x, d, host):
    spin[1, 1, s](flag, n, A, B)
    t0 = time.perf_counter()
    d.copy_to_host(host, stream=s)
    call_ms = (time.perf_counter() - t0) * 1e3
    pending = not s.query()
    s.synchronize()
    assert pending and call_ms < 20, call_ms  # returned while the stream was busy
    np.testing.assert_array_equal(host, x)
    # host -> device from pinned memory is asynchronous too (allocations
    # first: they are not part of what is measured)
    host2 = cuda.pinned_array_like(x)
    host2[:] = x * 2
    d2 = cuda.device_array_like(x)
    spin[1, 1, s](flag, n, A, B)
    assert cuda.to_device(host2, stream=s, to=d2) is d2
    pending = not s.query()
    s.synchronize()
    assert pending
    np.testing.assert_array_equal(d2.copy_to_host(), x * 2)
    # a pageable target makes the copy complete before it returns
    pageable = np.full_like(x, np.nan)
    spin[1, 1, s](flag, n // 4, A, B)
    d.copy_to_host(pageable, stream=s)
    assert s.query()
    np.testing.assert_array_equal(pageable, x)
