"""Compile once per machine: processes that miss the same disk-cache entry
at the same time compile it once (a lock file beside the entry,
runtime/CacheLock.cpp); the others wait and load it.  Stale locks are broken;
a lock that stays makes a waiter compile on its own after
PYCUDA_JIT_CACHE_LOCK_TIMEOUT."""
import math
import multiprocessing
import os
import pathlib
import socket
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest

warnings.simplefilter("ignore", RuntimeWarning)  # the no-GPU notice

ROOT = pathlib.Path(__file__).resolve().parents[2]

KERNEL = textwrap.dedent("""
    import math, sys, time, warnings
    import numpy as np
    from pycuda_jit import cuda
    warnings.simplefilter("ignore")

    @cuda.jit(cache=True)
    def smooth(x, out):
        i = cuda.grid(1)
        if i < out.size:
            acc = 0.0
            for k in range(-3, 4):
                j = min(max(i + k, 0), x.size - 1)
                acc += math.exp(-0.5 * k * k) * x[j]
            out[i] = acc
""")


def _dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def _worker(cache_dir, barrier, queue):
    os.environ["PYCUDA_JIT_CACHE_DIR"] = cache_dir
    ns = {"__name__": "compile_once_worker"}
    exec(compile(KERNEL, "<compile-once>", "exec"), ns)
    x = np.linspace(-1, 1, 300)
    out = np.full(300, np.nan)
    barrier.wait()
    ns["smooth"][3, 128](x, out)
    queue.put((ns["smooth"].stats["cache"], out))


def _expected():
    x = np.linspace(-1, 1, 300)
    w = np.exp(-0.5 * np.arange(-3, 4) ** 2)
    idx = np.clip(np.arange(300)[:, None] + np.arange(-3, 4), 0, 299)
    return (x[idx] * w).sum(axis=1)


def test_processes_started_together_compile_once(tmp_path):
    n = 6
    ctx = multiprocessing.get_context("spawn")
    barrier, queue = ctx.Barrier(n), ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(str(tmp_path), barrier, queue))
             for _ in range(n)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=300) for _ in range(n)]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    statuses = sorted(s for s, _ in results)
    assert sum(s.startswith("miss") for s in statuses) == 1, statuses
    assert all(s.startswith("hit") for s in statuses if not s.startswith("miss")), statuses
    for _, out in results:
        np.testing.assert_allclose(out, _expected(), rtol=1e-12)
    assert not list(tmp_path.glob("*.lock"))  # released


def _run_in_subprocess(cache_dir, extra_env=None):
    """Compiles KERNEL in a fresh process; returns its cache status."""
    code = KERNEL + textwrap.dedent("""
        x = np.linspace(-1, 1, 300)
        out = np.full(300, np.nan)
        smooth[3, 128](x, out)
        print(smooth.stats["cache"])
        print(smooth.stats["cache_key"])
        print(repr(out.tolist()))
    """)
    env = dict(os.environ, PYCUDA_JIT_CACHE_DIR=str(cache_dir),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.update(extra_env or {})
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    status, key, values = r.stdout.strip().splitlines()
    np.testing.assert_allclose(eval(values), _expected(), rtol=1e-12)
    return status, key


def test_stale_and_held_locks(tmp_path):
    status, key = _run_in_subprocess(tmp_path)
    assert status == "miss"
    entry = tmp_path / f"{key}.pcjc"
    lock = tmp_path / f"{key}.lock"
    assert entry.exists() and not lock.exists()
    assert _run_in_subprocess(tmp_path)[0] == "hit"

    # A lock left by a process that died: broken at once.
    entry.unlink()
    lock.write_text(f"{_dead_pid()} {socket.gethostname()} 0\n")
    status, _ = _run_in_subprocess(tmp_path)
    assert status.startswith("miss (broke a stale compile lock: pid "), status
    assert entry.exists() and not lock.exists()

    # A live holder (this test's process) that never publishes: the waiter
    # waits until the lock is PYCUDA_JIT_CACHE_LOCK_TIMEOUT old, then takes
    # it for stuck, breaks it and compiles.
    # (The lock's mtime, its age's origin, is set to a whole second not
    # before now, so a coarse filesystem clock cannot make it look older.)
    entry.unlink()
    t0 = time.monotonic()
    made = math.ceil(time.time())
    lock.write_text(f"{os.getpid()} {socket.gethostname()} {made}\n")
    os.utime(lock, (made, made))
    status, _ = _run_in_subprocess(tmp_path, {"PYCUDA_JIT_CACHE_LOCK_TIMEOUT": "1.5"})
    assert status.startswith(f"miss (broke a stale compile lock: pid {os.getpid()} on host "), \
        status
    assert time.monotonic() - t0 >= 1.5
    assert entry.exists() and not lock.exists()

    # A lock older than the timeout, whoever holds it, is broken at once.
    entry.unlink()
    lock.write_text(f"{os.getpid()} {socket.gethostname()} 0\n")
    os.utime(lock, (time.time() - 3600, time.time() - 3600))
    t0 = time.monotonic()
    status, _ = _run_in_subprocess(tmp_path, {"PYCUDA_JIT_CACHE_LOCK_TIMEOUT": "600"})
    assert status.startswith("miss (broke a stale compile lock"), status
    assert not lock.exists()


def test_bad_lock_timeout_is_a_value_error(tmp_path):
    code = KERNEL + "smooth[1, 1](np.zeros(1), np.zeros(1))\n"
    env = dict(os.environ, PYCUDA_JIT_CACHE_DIR=str(tmp_path),
               PYCUDA_JIT_CACHE_LOCK_TIMEOUT="soon",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode != 0
    assert "ValueError: PYCUDA_JIT_CACHE_LOCK_TIMEOUT must be a positive number" in r.stderr
