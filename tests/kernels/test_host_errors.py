"""Host API, errors: driver errors carry the driver's name and text; launch
configurations and arguments are checked before launching (TypeError
quoting the kernel's signatures); out of device memory is a MemoryError
(after one retry following a deferred-free flush); a sticky error is a
CudaStickyError on every later call, also after cuda.close() (the driver
keeps it for the life of the process: measured on the H200, R580), and a
new process works.  Every recoverable error is followed by a successful
launch."""
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
def triple(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * 3


@cuda.jit("void(float32[:], float32[:])")
def triple_f32(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * 3


def launch_ok(kernel=triple, dtype=np.float32):
    x = np.arange(500, dtype=dtype)
    out = cuda.to_device(np.full(500, np.nan, dtype))
    kernel[2, 256](cuda.to_device(x), out)
    np.testing.assert_array_equal(out.copy_to_host(), x * 3)


def test_launch_configuration_is_checked_first(backend):
    d = cuda.device_array(8, np.float32)
    with pytest.raises(errors.LaunchConfigError, match="1025 threads; the device allows at most 1024"):
        triple[1, 1025](d, d)
    with pytest.raises(errors.LaunchConfigError, match="along z"):
        triple[1, (1, 1, 65)](d, d)
    with pytest.raises(errors.LaunchConfigError, match="dynamic shared memory"):
        triple[1, 32, 0, 1 << 20](d, d)
    with pytest.raises(ValueError, match="positive"):
        triple[0, 32](d, d)
    with pytest.raises(TypeError, match="launch configuration"):
        triple[1](d, d)
    launch_ok()


def test_argument_count_and_types_quote_the_signatures(backend):
    x = cuda.device_array(8, np.float32)

    @cuda.jit
    def fresh(a, b, c):
        pass

    with pytest.raises(TypeError, match=r"kernel fresh\(a, b, c\) takes 3 arguments but 2 were given"):
        fresh[1, 1](x, x)
    launch_ok()  # triple is compiled for float32 arrays now
    with pytest.raises(TypeError) as info:
        triple[1, 1](x)
    msg = str(info.value)
    assert "triple(x, out) takes 2 arguments but 1 was given" in msg
    assert "(array(float32, 1d, C), array(float32, 1d, C)) -> none" in msg
    with pytest.raises(TypeError) as info:
        triple[1, 1](x, "text")
    msg = str(info.value)
    assert "kernel argument 2: kernels cannot take a str" in msg and "triple(x, out)" in msg
    # explicit signatures: other types are rejected with the signature list
    with pytest.raises(TypeError) as info:
        triple_f32[1, 1](cuda.device_array(8, np.float64), x)
    msg = str(info.value)
    assert "No matching definition" in msg and "array(float32, 1d, A)" in msg
    with pytest.raises(TypeError, match="takes 2 arguments but 3 were given"):
        triple_f32[1, 1](x, x, x)
    launch_ok(triple_f32)
    launch_ok()


def test_out_of_memory_is_a_memory_error(backend):
    with pytest.raises(MemoryError) as info:
        cuda.device_array(1 << 50, np.uint8)  # 1 PiB
    if backend == "cuda":
        e = info.value
        assert isinstance(e, errors.CudaOutOfMemoryError)
        assert isinstance(e, errors.CudaDriverError)
        assert e.name == "CUDA_ERROR_OUT_OF_MEMORY" and e.code == 2
        assert "requested 1125899906842624 bytes" in str(e)
    launch_ok()


def test_out_of_memory_retries_after_flushing_deferred_frees(hardware):
    c = core()
    c.set_deallocation_limits(1 << 30, 1 << 62)  # thresholds never flush
    try:
        cuda.synchronize()
        free, total = cuda.current_context().get_memory_info()
        a = cuda.device_array(free // 3, np.uint8)
        del a  # queued, not freed
        stats = c.memory_stats()
        assert stats["pending_bytes"] >= free // 3
        free2 = cuda.current_context().get_memory_info().free
        assert free2 < free - free // 4
        b = cuda.device_array(free2 + free // 6, np.uint8)  # needs a's memory
        after = c.memory_stats()
        assert after["oom_retries"] == stats["oom_retries"] + 1
        assert after["pending_frees"] == 0
        b[-1] = 7
        assert b[-1] == 7
        del b
    finally:
        c.set_deallocation_limits(64, 0)
        cuda.synchronize()
    launch_ok()


def test_driver_errors_have_the_driver_name_and_text(hardware, rng):
    a = rng.standard_normal(1 << 20)
    with cuda.pinned(a):
        with pytest.raises(errors.CudaDriverError) as info:
            with cuda.pinned(a):  # the same memory twice
                pass
    e = info.value
    assert e.name == "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED" and e.code == 712
    assert e.call == "cuMemHostRegister"
    assert "cuMemHostRegister failed: CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED (712): " in str(e)
    assert len(str(e)) > len("cuMemHostRegister failed: CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED (712): ")
    launch_ok()


STICKY_SCRIPT = textwrap.dedent("""
    import numpy as np
    from pycuda_jit import cuda, errors

    @cuda.jit
    def write(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = i

    class Bogus:  # memory that does not exist
        __cuda_array_interface__ = {"shape": (1 << 20,), "typestr": "<f4",
                                    "data": (0x10, False), "version": 3, "strides": None}

    good = cuda.to_device(np.zeros(256, np.float32))
    write[1, 256](good)
    write[4096, 256](Bogus())
    try:
        cuda.synchronize()
        raise SystemExit("no error from an illegal address")
    except errors.CudaStickyError as e:
        assert e.name == "CUDA_ERROR_ILLEGAL_ADDRESS" and e.code == 700, e
        assert "no longer usable" in str(e) and "restart the process" in str(e), str(e)
        print("sticky:", str(e).splitlines()[0])
    for attempt in range(2):
        try:
            cuda.device_array(10)
            raise SystemExit("the dead context kept working")
        except errors.CudaStickyError as e:
            assert "restart the process" in str(e), str(e)
        cuda.close()  # releases the dead context; the driver keeps the error
    print("still sticky after close")
""")

AFTER_SCRIPT = textwrap.dedent("""
    import numpy as np
    from pycuda_jit import cuda

    @cuda.jit
    def write(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = i

    out = cuda.to_device(np.zeros(1000, np.float32))
    write[4, 256](out)
    assert (out.copy_to_host() == np.arange(1000)).all()
    print("fresh process works")
""")


def run_python(script):
    env = dict(os.environ, PYTHONPATH=ROOT, PYCUDA_JIT_BACKEND="cuda")
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=120)


def test_sticky_error_is_reported_on_every_call(hardware):
    # In a subprocess: the dead context is the primary context that other
    # libraries in this process share.
    r = run_python(STICKY_SCRIPT)
    assert r.returncode == 0 and "still sticky after close" in r.stdout, r.stdout + r.stderr
    r = run_python(AFTER_SCRIPT)  # the recovery: a new process
    assert r.returncode == 0 and "fresh process works" in r.stdout, r.stdout + r.stderr


@cuda.jit(debug=True)
def checked_write(x, n):
    for i in range(n):
        x[i] = i


def test_kernel_fault_then_launch(backend):
    # Both targets raise and stay usable (a GPU through the error record).
    x = cuda.to_device(np.zeros(10, np.int64))
    with pytest.raises(errors.KernelIndexError):
        checked_write[1, 1](x, 11)
    checked_write[1, 1](x, 10)
    np.testing.assert_array_equal(x.copy_to_host(), np.arange(10))
    launch_ok()
