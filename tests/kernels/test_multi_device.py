"""Many devices in one process: `with cuda.gpus[i]:` / select_device, one
compile per kernel and types loaded on each device, arrays that remember
their device, launches that refuse another device's array, copies between
devices.

On the CPU executor these run on the virtual devices of
PYCUDA_JIT_CPU_DEVICES (tests/kernels/conftest.py asks for 4); on a machine with
one GPU they skip; with two or more GPUs they run on the GPUs.
"""
import os
import threading

import numpy as np
import pytest

from pycuda_jit import cuda
from pycuda_jit.errors import DeviceMismatchError

from gpu_util import poisoned


@pytest.fixture
def devices(backend):
    n = len(cuda.gpus)
    if n < 2:
        pytest.skip(f"needs two or more devices; this machine has {n}")
    yield list(cuda.gpus)
    cuda.select_device(0)


def test_cpu_executor_presents_its_virtual_devices(backend):
    if backend != "cpu":
        pytest.skip("the GPUs are what the machine has")
    n = int(os.environ["PYCUDA_JIT_CPU_DEVICES"])
    assert len(cuda.gpus) == n
    assert [d.id for d in cuda.gpus] == list(range(n))
    assert all(d.name == "pycuda_jit CPU executor" for d in cuda.gpus)


@cuda.jit
def scale_add(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def test_each_device_runs_the_kernel_on_its_own_arrays(devices, rng):
    n = 1000
    results, expected = [], []
    for dev in devices:
        x = rng.standard_normal(n)
        y = rng.standard_normal(n)
        with dev:
            assert cuda.get_current_device() == dev
            dx, dy = cuda.to_device(x), cuda.to_device(y)
            dout = cuda.to_device(poisoned(n, np.float64))
            assert dx.device_id == dev.id and dout.device_id == dev.id
            scale_add[(n + 127) // 128, 128](float(dev.id + 2), dx, dy, dout)
            results.append(dout.copy_to_host())
        expected.append((dev.id + 2) * x + y)
    for got, want in zip(results, expected):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    # One specialization, loaded on (or run on) every device.
    assert len(scale_add.signatures) == 1
    assert set(scale_add.stats["devices"]) >= {d.id for d in devices}


def test_views_and_slices_keep_their_device(devices):
    last = devices[-1]
    with last:
        d = cuda.device_array((8, 6), np.float32)
    assert d.device_id == last.id
    assert d[2:5].device_id == last.id
    assert d.T.device_id == last.id
    assert d.reshape(48).device_id == last.id
    assert cuda.device_array_like(d).device_id == cuda.get_current_device().id


def test_launch_with_another_devices_array_names_both_devices(devices):
    other = devices[1]
    with other:
        dx = cuda.to_device(np.ones(16))
    dy = cuda.to_device(np.ones(16))
    dout = cuda.device_array(16)
    with pytest.raises(DeviceMismatchError) as info:
        scale_add[1, 16](1.0, dx, dy, dout)
    msg = str(info.value)
    assert f"argument 2 is an array on device {other.id}" in msg
    assert "launched on device 0" in msg
    assert isinstance(info.value, ValueError)
    # Inside a tuple too.
    @cuda.jit
    def first(t, out):
        out[0] = t[0][0]

    with pytest.raises(DeviceMismatchError):
        first[1, 1]((dx,), dout)
    # On its own device the same array works.
    with other:
        dy2 = cuda.to_device(np.full(16, 2.0))
        dout2 = cuda.device_array(16)
        scale_add[1, 16](3.0, dx, dy2, dout2)
        np.testing.assert_array_equal(dout2.copy_to_host(), np.full(16, 5.0))


def test_copy_between_devices(devices, rng):
    a = rng.standard_normal((12, 10))
    with devices[0]:
        src = cuda.to_device(a)
    with devices[1]:
        dst = cuda.to_device(poisoned(a.shape, np.float64))
        dst.copy_to_device(src)  # contiguous: device to device
        np.testing.assert_array_equal(dst.copy_to_host(), a)
        part = cuda.to_device(poisoned((6, 5), np.float64))
        part.copy_to_device(src[::2, 1::2])  # a strided view of device 0
        np.testing.assert_array_equal(part.copy_to_host(), a[::2, 1::2])
        strided = cuda.to_device(poisoned((12, 20), np.float64))
        strided[:, ::2].copy_to_device(src)  # into a strided view
        np.testing.assert_array_equal(strided.copy_to_host()[:, ::2], a)


def test_device_selection_is_per_thread(devices):
    seen = {}

    def worker(k):
        cuda.select_device(k)
        d = cuda.to_device(np.arange(4.0))
        seen[k] = (cuda.get_current_device().id, d.device_id)

    cuda.select_device(0)
    threads = [threading.Thread(target=worker, args=(dev.id,)) for dev in devices]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {dev.id: (dev.id, dev.id) for dev in devices}
    assert cuda.get_current_device().id == 0


def test_bad_ordinals_are_index_errors(devices):
    n = len(devices)
    with pytest.raises(IndexError, match=f"device {n} does not exist"):
        cuda.select_device(n)
    with pytest.raises(IndexError):
        cuda.select_device(-1)
    with pytest.raises(IndexError):
        cuda.gpus[n]


def test_with_device_restores_each_threads_own_previous_device(devices):
    # Two threads enter the same Device object from different devices and
    # leave in the other order: each gets its own previous device back.
    if len(devices) < 3:
        pytest.skip("needs three devices")
    target = devices[1]
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    after = {}

    def thread_a():
        cuda.select_device(0)
        with target:
            a_in.set()
            b_in.wait(60)
        after["a"] = cuda.get_current_device().id
        a_out.set()

    def thread_b():
        cuda.select_device(2)
        a_in.wait(60)
        with target:
            b_in.set()
            a_out.wait(60)
        after["b"] = cuda.get_current_device().id

    ts = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    assert after == {"a": 0, "b": 2}


def test_gpus_slices_are_lists_of_devices(devices):
    # numba-cuda's cuda.gpus is list-like: a slice gives a list of devices.
    assert cuda.gpus[1:] == devices[1:]
    assert cuda.gpus[::-1] == devices[::-1]
    assert cuda.gpus[len(devices):] == []
    with cuda.gpus[1:][0]:
        assert cuda.get_current_device().id == 1
