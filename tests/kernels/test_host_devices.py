"""Host API, devices and contexts: cuda.gpus, select_device,
get_current_device (name, compute_capability, attributes), detect,
is_available, current_context().get_memory_info(), close() (kernels are
loaded again into the fresh context), and kernels launched on every device.
On the CPU executor there is one pseudo device with the limits the executor
enforces."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from pycuda_jit._lazy import core

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@cuda.jit
def fill_ids(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = i * 3 + cuda.threadIdx.x


def check_fill(n, block):
    out = cuda.to_device(np.full(n, -1, np.int64))
    fill_ids[(n + block - 1) // block, block](out)
    i = np.arange(n)
    np.testing.assert_array_equal(out.copy_to_host(), i * 3 + i % block)


def test_gpus_and_current_device(backend):
    n = len(cuda.gpus)
    assert n >= 1
    assert [d.id for d in cuda.gpus] == list(range(n))
    dev = cuda.get_current_device()
    assert dev == cuda.gpus[0] == cuda.gpus.current and dev is cuda.gpus[0]
    assert isinstance(dev.name, str) and dev.name
    cc = dev.compute_capability
    assert isinstance(cc, tuple) and len(cc) == 2 and all(isinstance(v, int) for v in cc)
    assert cc >= (5, 0)
    assert dev.MAX_THREADS_PER_BLOCK == 1024
    assert dev.WARP_SIZE == 32
    assert dev.MULTIPROCESSOR_COUNT >= 1
    assert (dev.MAX_BLOCK_DIM_X, dev.MAX_BLOCK_DIM_Y, dev.MAX_BLOCK_DIM_Z) == (1024, 1024, 64)
    assert dev.MAX_GRID_DIM_X == 2**31 - 1
    assert dev.MAX_SHARED_MEMORY_PER_BLOCK == 48 * 1024
    assert (dev.COMPUTE_CAPABILITY_MAJOR, dev.COMPUTE_CAPABILITY_MINOR) == cc
    with pytest.raises(AttributeError):
        dev.NOT_AN_ATTRIBUTE
    with pytest.raises(IndexError):
        cuda.gpus[n]
    if backend == "cuda":
        assert dev.MULTIPROCESSOR_COUNT == core().device_info(0)[
            "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"]
        assert dev.total_memory > 1 << 30
    else:
        assert dev.name == "pycuda_jit CPU executor"


def test_device_limits_are_the_launch_limits(backend):
    dev = cuda.get_current_device()
    check_fill(5000, dev.MAX_THREADS_PER_BLOCK)  # at the limit: runs
    with pytest.raises(errors.LaunchConfigError, match="at most 1024"):
        fill_ids[1, dev.MAX_THREADS_PER_BLOCK + 1](cuda.device_array(4, np.int64))
    check_fill(100, 32)


def test_select_device_and_device_context_manager(backend):
    for dev in cuda.gpus:
        assert cuda.select_device(dev.id) == dev
        assert cuda.get_current_device() == dev
        check_fill(777, 64)  # the kernel is loaded on every device
        with dev as d:
            assert d is dev and cuda.get_current_device() == dev
            check_fill(100, 32)
    cuda.select_device(0)
    with pytest.raises(IndexError):
        cuda.select_device(len(cuda.gpus))
    assert cuda.list_devices() == list(cuda.gpus)


def test_detect_and_is_available(backend, capsys):
    found = cuda.detect()
    text = capsys.readouterr().out
    assert found == cuda.is_available()
    if backend == "cuda":
        assert found and cuda.get_current_device().name in text
        assert f"Found {core().cuda_device_count()} CUDA device" in text
    else:
        assert "CPU executor" in text or found


def test_memory_info(backend):
    ctx = cuda.current_context()
    assert ctx.device == cuda.get_current_device()
    free, total = ctx.get_memory_info()
    assert 0 < free <= total
    info = ctx.get_memory_info()
    assert info.total == total
    if backend == "cuda":
        cuda.synchronize()
        before = ctx.get_memory_info().free
        big = cuda.device_array(256 << 20, np.uint8)
        after = ctx.get_memory_info().free
        assert before - after >= 250 << 20
        del big
        cuda.synchronize()  # releases the deferred free
        assert ctx.get_memory_info().free >= after + (250 << 20)


CLOSE_SCRIPT = textwrap.dedent("""
    import numpy as np
    from pycuda_jit import cuda, errors

    @cuda.jit
    def twice(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = 2 * x[i]

    x = np.arange(1000, dtype=np.float32)
    out = np.zeros_like(x)
    twice[4, 256](x, out)
    assert (out == 2 * x).all()
    old = cuda.to_device(x)
    s = cuda.stream()
    cuda.close()
    # the kernel compiled before is loaded again into the fresh context
    out = np.zeros_like(x)
    twice[4, 256](cuda.to_device(x), out)
    assert (out == 2 * x).all(), out[:8]
    if cuda.is_available():
        try:
            old.copy_to_host()
            raise SystemExit("an array of the closed context was usable")
        except errors.CudaDriverError as e:
            assert e.name == "CUDA_ERROR_CONTEXT_IS_DESTROYED", e
        try:
            twice[4, 256, s](x, out)
            raise SystemExit("a stream of the closed context was usable")
        except errors.CudaDriverError as e:
            assert e.name == "CUDA_ERROR_CONTEXT_IS_DESTROYED", e
    print("closed-and-reopened")
""")


def run_script(script, backend):
    env = dict(os.environ, PYTHONPATH=ROOT, PYCUDA_JIT_BACKEND=backend)
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=120)


def test_close_then_launch_again(backend):
    # In a subprocess: close() destroys the primary context that other
    # libraries in this process (CuPy, torch) share.
    r = run_script(CLOSE_SCRIPT, backend)
    assert r.returncode == 0 and "closed-and-reopened" in r.stdout, r.stdout + r.stderr
