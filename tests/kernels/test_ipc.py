"""CUDA IPC: a device array's memory shared zero-copy with another process of
the node (DeviceNDArray.get_ipc_handle, IpcHandle.open/close), for our
arrays, their views and other libraries' arrays."""
import multiprocessing
import pickle

import numpy as np
import pytest

from pycuda_jit import cuda
from pycuda_jit.devicearray import IpcHandle
from pycuda_jit.errors import CudaSupportError


def _child(blob, queue):
    """Opens the handle, reads the array, runs a kernel on it in place."""
    try:
        handle = pickle.loads(blob)

        @cuda.jit
        def negate(a):
            i, j = cuda.grid(2)
            if i < a.shape[0] and j < a.shape[1]:
                a[i, j] = -a[i, j]

        with handle as arr:
            seen = arr.copy_to_host()
            negate[(4, 4), (8, 8)](arr)
            cuda.synchronize()
            try:  # one open at a time (numba-cuda's rule)
                handle.open()
                queue.put(("error", "a second open() did not raise"))
                return
            except ValueError as e:
                if "already opened" not in str(e):
                    raise
        again = handle.open()  # closed by the with: opens again
        handle.close()
        del again
        queue.put(("ok", seen))
    except Exception as e:  # reported to the parent
        queue.put(("error", repr(e)))


class Foreign:
    """Another library's array: only __cuda_array_interface__."""

    def __init__(self, arr):
        self.arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


@pytest.mark.parametrize("foreign", [False, True])
def test_another_process_maps_the_array_zero_copy(hardware, rng, foreign):
    a = rng.standard_normal((20, 30))
    d = cuda.to_device(a)
    view = d[2:18, 5:25]
    if foreign:  # found through its allocation, not our bookkeeping
        view = cuda.as_cuda_array(Foreign(view))
    handle = view.get_ipc_handle()
    assert isinstance(handle, IpcHandle)
    blob = pickle.dumps(handle)
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    p = ctx.Process(target=_child, args=(blob, queue))
    p.start()
    status, seen = queue.get(timeout=300)
    p.join(timeout=60)
    assert status == "ok", seen
    np.testing.assert_array_equal(seen, a[2:18, 5:25])
    want = a.copy()
    want[2:18, 5:25] *= -1
    np.testing.assert_array_equal(d.copy_to_host(), want)  # the child wrote here


def test_a_handle_is_not_opened_by_its_own_process(hardware):
    handle = cuda.to_device(np.arange(4.0)).get_ipc_handle()
    with pytest.raises(ValueError, match="opened by another process"):
        handle.open()


def test_cpu_executor_has_no_ipc(backend):
    if backend != "cpu":
        pytest.skip("the GPU has IPC")
    d = cuda.to_device(np.arange(4.0))
    with pytest.raises(CudaSupportError, match="CUDA IPC handles need a GPU"):
        d.get_ipc_handle()




# ---- memory-level handles: Context.get_ipc_handle, cuda.open_ipc_array ----------------


def _child_memory(blob, raw, nbytes, queue):
    """Reads a view's exported memory through its unpickled handle
    (open_array), then the whole array through the raw handle bytes
    (cuda.open_ipc_array), doubling it in place."""
    try:
        handle = pickle.loads(blob)
        assert handle.base is None
        first = handle.open_array(cuda.current_context(), handle.size // 8, np.float64)
        seen = first.copy_to_host()
        handle.close()

        @cuda.jit
        def double(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] *= 2

        with cuda.open_ipc_array(raw, shape=nbytes // 8, dtype=np.float64) as arr:
            whole = arr.copy_to_host()
            double[1, 64](arr)
            cuda.synchronize()
        queue.put(("ok", (seen, whole)))
    except Exception as e:  # reported to the parent
        queue.put(("error", repr(e)))


def test_memory_handle_from_the_context(hardware, rng):
    a = rng.standard_normal(40)
    d = cuda.to_device(a)
    ctx = cuda.current_context()
    view_handle = ctx.get_ipc_handle(d[5:35].gpu_data)  # 8 * 5 bytes in
    assert view_handle.size == 30 * 8 and len(view_handle.handle.reserved) == 64
    again = pickle.loads(pickle.dumps(view_handle))
    assert again.base is None and again.size == view_handle.size
    assert again.handle.reserved == view_handle.handle.reserved
    assert again.offset == view_handle.offset
    with pytest.raises(ValueError, match="opened by another process"):
        view_handle.open(ctx)
    whole = ctx.get_ipc_handle(d.gpu_data)
    assert whole.offset == 0 and view_handle.offset == 5 * 8
    spawn = multiprocessing.get_context("spawn")
    queue = spawn.Queue()
    p = spawn.Process(target=_child_memory, args=(pickle.dumps(view_handle),
                                                 whole.handle.reserved, 40 * 8, queue))
    p.start()
    status, result = queue.get(timeout=300)
    p.join(timeout=60)
    assert status == "ok", result
    seen, whole_seen = result
    np.testing.assert_array_equal(seen, a[5:35])
    # to_device's array is its own cuMemAlloc allocation (whole.offset 0),
    # the start the raw bytes name.
    np.testing.assert_array_equal(whole_seen, a)
    np.testing.assert_array_equal(d.copy_to_host(), 2 * a)


def test_cpu_executor_has_no_memory_handles(backend):
    if backend != "cpu":
        pytest.skip("the GPU has IPC")
    d = cuda.to_device(np.arange(4.0))
    with pytest.raises(CudaSupportError, match="CUDA IPC handles need a GPU"):
        cuda.current_context().get_ipc_handle(d.gpu_data)
