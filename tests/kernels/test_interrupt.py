"""A CPU-executor launch that never ends can be stopped: Ctrl-C (SIGINT)
raises KeyboardInterrupt from the launch within 100 ms, a time limit
(cpu_timeout= / PYCUDA_JIT_CPU_TIMEOUT) raises KernelTimeoutError, and the
process stays usable.  Every loop of host code polls a stop word."""
import json
import os
import select
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from pycuda_jit import cuda, errors

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def cpu(backend):
    if backend != "cpu":
        pytest.skip("a kernel that never ends cannot be stopped on a GPU")


CHILD = textwrap.dedent(r"""
    import json, signal, sys, time, warnings
    warnings.simplefilter("ignore")
    # Ctrl-C raises KeyboardInterrupt even when this test runs in a
    # background job, which starts its children with SIGINT ignored (Python
    # then installs no handler of its own).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import numpy as np
    from pycuda_jit import cuda

    @cuda.jit
    def spin(x, stop):
        # Runs until x[0] == stop; nobody changes x[0].
        i = cuda.grid(1)
        while x[0] != stop:
            x[1 + i % 4] += 1

    @cuda.jit
    def spin_barrier(x, stop):
        while x[0] != stop:
            cuda.syncthreads()
            x[1 + cuda.threadIdx.x % 4] += 1

    @cuda.jit
    def spin_in_grid_sync(x, stop):
        # Block 0 spins; the other blocks wait for it at the grid barrier.
        if cuda.blockIdx.x == 0:
            while x[0] != stop:
                x[1] += 1
        cuda.cg.this_grid().sync()

    @cuda.jit
    def add_one(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += 1

    def say(**kw):
        print(json.dumps(kw), flush=True)

    cases = [("fast path", spin, 64, 128), ("fibers", spin_barrier, 16, 64),
             ("grid sync", spin_in_grid_sync, 8, 32)]
    for name, kernel, blocks, threads in cases:
        x = np.zeros(8, np.int64)
        kernel[blocks, threads](x, 0)  # compiles; ends at once
        say(ready=name)
        try:
            kernel[blocks, threads](x, 1)
            say(error="the launch returned")
        except KeyboardInterrupt:
            say(interrupted=name, at=time.time())
    y = np.arange(100)
    add_one[4, 32](y)
    say(after=bool((y == np.arange(100) + 1).all()))
""")


def read_json(p, timeout):
    """The child's next line as JSON, or {} when none comes in time."""
    ready, _, _ = select.select([p.stdout], [], [], timeout)
    line = p.stdout.readline() if ready else ""
    return json.loads(line) if line.strip() else {}


def test_ctrl_c_stops_an_endless_kernel(cpu):
    env = {**os.environ, "PYTHONPATH": ROOT, "PYCUDA_JIT_BACKEND": "cpu"}
    p = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    try:
        for name in ("fast path", "fibers", "grid sync"):
            line = read_json(p, 120)  # compiling
            assert line == {"ready": name}, line
            time.sleep(0.5)  # well inside the endless launch
            sent = time.time()
            p.send_signal(signal.SIGINT)
            line = read_json(p, 30)  # generous: a loaded 2-core CI machine
            if line.get("interrupted") != name:
                if p.poll() is None:
                    p.kill()
                assert False, (name, line, p.stderr.read()[-3000:])
            # promptly (a loaded CI machine may delay the child a little)
            assert line["at"] - sent < 2.0, f"{name}: KeyboardInterrupt after {line['at'] - sent:.3f} s"
        assert read_json(p, 60) == {"after": True}
        assert p.wait(timeout=60) == 0, p.stderr.read()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


@cuda.jit
def k_spin(x, stop):
    while x[0] != stop:
        x[1] += 1


def test_time_limit_option(cpu):
    k = cuda.jit(cpu_timeout=0.3)(k_spin.py_func)
    x = np.zeros(2, np.int64)
    k[2, 32](x, 0)
    t0 = time.monotonic()
    with pytest.raises(errors.KernelTimeoutError) as info:
        k[2, 32](x, 1)
    assert time.monotonic() - t0 < 30  # stopped, not hung
    msg = str(info.value)
    assert "0.3 s time limit" in msg and "k_spin" in msg, msg
    assert isinstance(info.value, TimeoutError)
    k[2, 32](x, 0)  # the kernel and the process are fine


def test_time_limit_environment(cpu, monkeypatch):
    monkeypatch.setenv("PYCUDA_JIT_CPU_TIMEOUT", "0.2")
    k = cuda.jit(k_spin.py_func)
    x = np.zeros(2, np.int64)
    with pytest.raises(errors.KernelTimeoutError, match="0.2 s time limit"):
        k[1, 1](x, 1)
    # A kernel that finishes in time is not affected.
    y = np.zeros(2, np.int64)
    k[4, 64](y, 0)
    monkeypatch.setenv("PYCUDA_JIT_CPU_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="PYCUDA_JIT_CPU_TIMEOUT"):
        cuda.jit(k_spin.py_func)
    with pytest.raises(ValueError, match="cpu_timeout"):
        cuda.jit(cpu_timeout=-1)(k_spin.py_func)


def k_fail_one_spin_rest(x, stop):
    if cuda.blockIdx.x == 1:
        x[x.size + 3] = 1  # out of bounds: the launch fails...
    while x[0] != stop:  # ...and the blocks spinning on other host threads stop
        x[1] += 1


def test_an_error_stops_the_other_threads(cpu):
    if os.cpu_count() < 2 or os.environ.get("PYCUDA_JIT_CPU_THREADS") == "1":
        pytest.skip("needs two host threads running blocks")
    # The time limit only keeps a regression from hanging the test run.
    k = cuda.jit(cpu_timeout=30)(k_fail_one_spin_rest)
    x = np.zeros(4, np.int64)
    with pytest.raises(errors.KernelIndexError, match="index 7"):
        k[8, 64](x, 1)
