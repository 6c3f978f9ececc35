"""numba-cuda's lower-level host API: MemoryPointer.device_pointer (an
address kernels take through CPointer parameters), Context.memhostalloc with
cuda.driver's copies and memset, Stream.add_callback / Stream.async_done,
and IpcHandle.open_staged (GPU only)."""
import asyncio
import multiprocessing
import pickle
import sys

import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import carray, cuda, farray, types


@pytest.mark.parametrize("view", [carray, farray])
def test_device_pointer_is_the_address_kernels_take(rng, view):
    @cuda.jit(types.void(types.CPointer(types.float32), types.int32, types.int32))
    def add_index(p, rows, cols):
        a = view(p, (rows, cols), dtype=cuda.float32)
        i, j = cuda.grid(2)
        if i < rows and j < cols:
            a[i, j] += i * 100 + j

    x = rng.standard_normal(12).astype(np.float32)
    d = cuda.to_device(x)
    ptr = d.gpu_data.device_pointer
    assert int(ptr) == d.gpu_data.device_pointer_value == d.__cuda_array_interface__["data"][0]
    add_index[1, (4, 4)](int(ptr), 3, 4)
    order = "C" if view is carray else "F"
    index = (100 * np.arange(3)[:, None] + np.arange(4)).astype(np.float32)
    want = x.reshape((3, 4), order=order) + index
    np.testing.assert_array_equal(d.copy_to_host(), want.ravel(order=order))


def test_memhostalloc_with_driver_copies_and_memset(rng):
    n = 64
    ctx = cuda.current_context()
    mem = ctx.memhostalloc(n, mapped=True)
    host = np.ndarray(n, np.uint8, buffer=mem)
    cuda.driver.device_memset(mem, 0xAB, n)
    assert (host == 0xAB).all()
    data = rng.integers(0, 256, n, dtype=np.uint8)
    host[:] = data
    back = poisoned(n, np.uint8)
    cuda.driver.device_to_host(back, mem, n)
    np.testing.assert_array_equal(back, data)
    # host -> device -> device -> host through MemoryPointers.
    a, b = ctx.memalloc(n), ctx.memalloc(n)
    cuda.driver.host_to_device(a, data[::-1].copy(), n)
    cuda.driver.device_to_device(b, a, n)
    out = poisoned(n, np.uint8)
    cuda.driver.device_to_host(out, b, n, stream=cuda.default_stream())
    np.testing.assert_array_equal(out, data[::-1])
    # A device array's memory, part of it.
    d = cuda.to_device(np.zeros(n, np.uint8))
    cuda.driver.device_memset(d, 7, 10)
    np.testing.assert_array_equal(d.copy_to_host(), np.r_[np.full(10, 7), np.zeros(n - 10)])


def test_driver_copies_refuse_bad_sizes_and_plain_host_memory():
    ctx = cuda.current_context()
    mem = ctx.memalloc(16)
    with pytest.raises(ValueError, match="larger than the source"):
        cuda.driver.device_to_host(np.zeros(32, np.uint8), mem, 32)
    with pytest.raises(ValueError, match="larger than the destination"):
        cuda.driver.device_to_host(np.zeros(8, np.uint8), mem, 16)
    with pytest.raises(ValueError, match="0..255"):
        cuda.driver.device_memset(mem, 256, 4)
    with pytest.raises(TypeError, match="not mapped or managed"):
        cuda.driver.device_memset(np.zeros(16, np.uint8), 1, 16)
    with pytest.raises(ValueError, match="read-only"):
        cuda.driver.device_to_host(bytes(16), mem, 16)


@cuda.jit
def scale(out, x, k):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * k


def test_add_callback_runs_after_the_work_queued_before_it(rng):
    n = 1000
    x = cuda.to_device(rng.standard_normal(n))
    out = cuda.mapped_array(n, np.float64)  # the callback reads it without CUDA calls
    out[:] = np.nan
    seen = []
    s = cuda.stream()

    def callback(stream, status, arg):
        seen.append((stream, status, arg, np.array(out)))

    scale[8, 128, s](out, x, 3.0)
    s.add_callback(callback, "first")
    s.add_callback(callback, arg="second")
    s.synchronize()
    assert [(st is s, status, arg) for st, status, arg, _ in seen] == [
        (True, 0, "first"), (True, 0, "second")]
    want = x.copy_to_host() * 3.0
    np.testing.assert_array_equal(seen[0][3], want)


def test_a_failing_callback_goes_to_the_unraisable_hook():
    reported, ran = [], []
    s = cuda.stream()
    old = sys.unraisablehook
    sys.unraisablehook = lambda u: reported.append(u.exc_value)
    try:
        s.add_callback(lambda *a: 1 / 0)
        s.add_callback(lambda st, status, arg: ran.append(arg), 5)
        s.synchronize()
    finally:
        sys.unraisablehook = old
    assert [type(e) for e in reported] == [ZeroDivisionError] and ran == [5]
    with pytest.raises(TypeError, match="must be callable"):
        s.add_callback(3)


def test_async_done_completes_with_the_stream(rng):
    n = 500
    x = cuda.to_device(rng.standard_normal(n))

    async def work():
        s = cuda.stream()
        out = cuda.device_array(n)
        scale[4, 128, s](out, x, -2.0)
        done = await s.async_done()
        return done is s, out.copy_to_host(stream=s)

    same, got = asyncio.run(work())
    assert same
    np.testing.assert_array_equal(got, x.copy_to_host() * -2.0)


def _child_staged(blob, queue):
    try:
        handle = pickle.loads(blob)
        mem = handle.open_staged(cuda.current_context())
        out = np.zeros(handle.size // 8, np.int64)
        cuda.driver.device_to_host(out, mem, size=handle.size)
        handle.close()
        queue.put(("ok", out))
    except Exception as e:  # reported to the parent
        queue.put(("error", repr(e)))


def test_open_staged_copies_another_process_memory(hardware, rng):
    a = rng.integers(-10**9, 10**9, 50)
    d = cuda.to_device(a)
    handle = cuda.current_context().get_ipc_handle(d.gpu_data)
    spawn = multiprocessing.get_context("spawn")
    queue = spawn.Queue()
    p = spawn.Process(target=_child_staged, args=(pickle.dumps(handle), queue))
    p.start()
    status, result = queue.get(timeout=300)
    p.join(timeout=60)
    assert status == "ok", result
    np.testing.assert_array_equal(result, a)
