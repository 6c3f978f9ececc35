"""Kernels, device functions and device arrays pickle (pycuda_jit/serialize.py):
by reference for module-level kernels of importable modules, by value
(cloudpickle) for closures and __main__ functions, device arrays as a host
copy; and they run in the processes that unpickle them."""
import multiprocessing
import os
import pickle
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from pycuda_jit import cuda

warnings.simplefilter("ignore", RuntimeWarning)  # the no-GPU notice

cloudpickle = pytest.importorskip("cloudpickle")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@cuda.jit(device=True)
def twice(v):
    return 2.0 * v


@cuda.jit
def axpy(a, x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * twice(x[i])


def make_closure(offset):
    @cuda.jit(device=True)
    def shift(v):
        return v + offset

    @cuda.jit(boundscheck=True)
    def add_offset(x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = shift(x[i])

    return add_offset


def run(kernel, *args):
    n = args[-1].size
    kernel[(n + 63) // 64, 64](*args)


def run_axpy(n):
    """In a worker: the kernel arrives by reference."""
    x = np.arange(n, dtype=np.float64)
    out = np.full(n, np.nan)
    run(axpy, 3.0, x, out)
    return out


def run_pickled(blob, n):
    """In a worker: the kernel arrives as pickled bytes."""
    kernel = pickle.loads(blob)
    x = np.arange(n, dtype=np.float64)
    out = np.full(n, np.nan)
    run(kernel, x, out)
    return out


def test_module_level_kernel_pickles_by_reference():
    blob = pickle.dumps(axpy)
    assert len(blob) < 200 and b"test_pickle" in blob and b"axpy" in blob
    assert pickle.loads(blob) is axpy
    assert pickle.loads(pickle.dumps(twice)) is twice
    assert pickle.loads(cloudpickle.dumps(axpy)) is axpy


def test_closure_kernel_pickles_by_value_and_runs():
    k = make_closure(10.0)
    blob = pickle.dumps(k)
    assert b"_kernel_by_value" in blob  # the function itself travels
    k2 = pickle.loads(blob)
    assert k2 is not k and k2.py_func is not k.py_func
    x = np.arange(50, dtype=np.float64)
    out = np.full(50, np.nan)
    run(k2, x, out)
    np.testing.assert_array_equal(out, x + 10.0)
    # Options travel too (boundscheck=True: an index error is caught).
    assert k2._pcj_options["boundscheck"] is True
    # The same bytes give the same kernel: received many times, compiled once.
    assert pickle.loads(blob) is k2
    # A different closure value is a different kernel.
    k3 = pickle.loads(pickle.dumps(make_closure(-1.0)))
    out3 = np.full(50, np.nan)
    run(k3, x, out3)
    np.testing.assert_array_equal(out3, x - 1.0)


def test_explicit_signatures_and_options_travel():
    k = pickle.loads(cloudpickle.dumps(make_closure(1.0)))
    assert k.signatures == []
    src = textwrap.dedent("""
        from pycuda_jit import cuda
        @cuda.jit("void(float64[::1], float64[::1])", fastmath=True)
        def copy(x, out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = x[i]
    """)
    ns = {"__name__": "not_importable_module"}
    exec(compile(src, "<generated>", "exec"), ns)
    k = pickle.loads(pickle.dumps(ns["copy"]))
    assert k is not ns["copy"]
    assert k.signatures == ns["copy"].signatures  # compiled eagerly on arrival
    assert k._pcj_options["fastmath"] is True


def test_recursive_device_function_pickles_by_value():
    src = textwrap.dedent("""
        from pycuda_jit import cuda
        @cuda.jit(device=True)
        def fact(n):
            if n <= 1:
                return 1
            return n * fact(n - 1)

        @cuda.jit
        def facts(out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = fact(i)
    """)
    ns = {"__name__": "not_importable_module"}
    exec(compile(src, "<generated>", "exec"), ns)
    k = pickle.loads(pickle.dumps(ns["facts"]))
    out = np.zeros(8, dtype=np.int64)
    k[1, 8](out)
    np.testing.assert_array_equal(out, [1, 1, 2, 6, 24, 120, 720, 5040])


def test_without_cloudpickle_closures_pickle_by_value(monkeypatch):
    # Plain pickle, as numba-cuda's kernels pickle with nothing installed:
    # the own function pickler carries the closure, its device function
    # (a closure too) and the modules it names.
    from pycuda_jit import serialize
    monkeypatch.setattr(serialize, "_cloudpickle", lambda: None)
    blob = pickle.dumps(make_closure(2.5))
    assert b"cloudpickle" not in blob
    k = pickle.loads(blob)
    x = np.arange(40, dtype=np.float64)
    out = np.full(40, np.nan)
    run(k, x, out)
    np.testing.assert_array_equal(out, x + 2.5)
    assert k._pcj_options["boundscheck"] is True
    assert pickle.loads(blob) is k  # the same bytes: the same kernel
    k2 = pickle.loads(pickle.dumps(k))  # pickled again after a round trip
    out2 = np.full(40, np.nan)
    run(k2, x, out2)
    np.testing.assert_array_equal(out2, x + 2.5)
    assert pickle.loads(pickle.dumps(axpy)) is axpy  # by reference still


def test_without_cloudpickle_recursion_and_modules(monkeypatch):
    from pycuda_jit import serialize
    monkeypatch.setattr(serialize, "_cloudpickle", lambda: None)
    src = textwrap.dedent("""
        import math
        from pycuda_jit import cuda

        @cuda.jit(device=True)
        def fact(n):
            if n <= 1:
                return 1
            return n * fact(n - 1)

        @cuda.jit
        def facts(out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = fact(i) * int(math.floor(2.5))
    """)
    ns = {"__name__": "not_importable_module"}
    exec(compile(src, "<generated>", "exec"), ns)
    k = pickle.loads(pickle.dumps(ns["facts"]))
    dev = k.py_func.__globals__["fact"]  # rebuilt once: the recursion names it
    assert dev.py_func.__globals__["fact"].py_func is dev.py_func
    out = np.zeros(8, dtype=np.int64)
    k[1, 8](out)
    np.testing.assert_array_equal(out, 2 * np.array([1, 1, 2, 6, 24, 120, 720, 5040]))


def test_configured_launch_attributes_and_pickling():
    cfg = axpy[(5, 2), 8]
    assert cfg.griddim == (5, 2, 1) and cfg.blockdim == (8, 1, 1)
    assert cfg.sharedmem == 0 and cfg.stream == 0 and cfg.dispatcher is axpy
    assert axpy[1, 32, 0, 64].sharedmem == 64
    again = pickle.loads(pickle.dumps(cfg))
    assert again.griddim == (5, 2, 1) and again.blockdim == (8, 1, 1)
    assert again.dispatcher is axpy  # the kernel by reference
    # A closure kernel's configuration: the kernel by value; it launches.
    cfg2 = pickle.loads(pickle.dumps(make_closure(4.0)[2, 32]))
    x = np.arange(50, dtype=np.float64)
    out = np.full(50, np.nan)
    cfg2(x, out)
    np.testing.assert_array_equal(out, x + 4.0)
    s = cuda.stream()
    with pytest.raises(pickle.PicklingError, match="stream"):
        pickle.dumps(axpy[1, 1, s])


def test_device_array_pickles_as_a_host_copy():
    rng = np.random.default_rng(18)
    a = rng.standard_normal((5, 7)).astype(np.float32)
    d = cuda.to_device(a)
    d2 = pickle.loads(pickle.dumps(d[1:, ::2]))
    assert type(d2) is type(d)
    assert d2.shape == (4, 4) and d2.dtype == np.float32
    np.testing.assert_array_equal(d2.copy_to_host(), a[1:, ::2])
    d2[0, 0] = 100.0  # independent of the original
    assert d.copy_to_host()[1, 0] == a[1, 0]


def test_kernels_run_in_spawned_workers():
    ctx = multiprocessing.get_context("spawn")
    blob = pickle.dumps(make_closure(0.5))
    with ctx.Pool(2) as pool:
        by_ref = pool.map(run_axpy, [10, 20])
        by_value = pool.starmap(run_pickled, [(blob, 10), (blob, 30)])
    np.testing.assert_array_equal(by_ref[1], 6.0 * np.arange(20))
    np.testing.assert_array_equal(by_value[1], np.arange(30) + 0.5)


def test_main_module_kernels_go_to_spawned_workers_by_value(tmp_path):
    # A script's kernels live in __main__: multiprocessing pickles them for
    # its workers (by value with cloudpickle; a closure too).
    script = tmp_path / "main_kernels.py"
    script.write_text(textwrap.dedent("""
        import multiprocessing, pickle, sys, warnings
        import numpy as np
        from pycuda_jit import cuda
        warnings.simplefilter("ignore")

        @cuda.jit
        def square(x, out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = x[i] * x[i]

        def launch(kernel, n):
            x = np.arange(n, dtype=np.float64)
            out = np.full(n, np.nan)
            kernel[1, 64](x, out)
            return out

        if __name__ == "__main__":
            assert b"_kernel_by_value" in pickle.dumps(square)
            with multiprocessing.get_context("spawn").Pool(2) as pool:
                got = pool.starmap(launch, [(square, 40), (square, 7)])
            assert (got[0] == np.arange(40.0) ** 2).all(), got[0]
            assert (got[1] == np.arange(7.0) ** 2).all(), got[1]
            print("ok")
    """))
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
