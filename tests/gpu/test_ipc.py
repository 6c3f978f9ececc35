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


