"""The code generator (LLVM) loads on the compile pool from the first
decoration of a kernel without cache=True (pycuda_jit/_core_src/Prefetch.h),
so that the first compile does not wait for it; never for cache=True
kernels (a disk-cache hit loads no LLVM) nor without a pool
(PYCUDA_JIT_COMPILE_THREADS=0)."""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHILD = textwrap.dedent("""
    import sys, time, warnings
    warnings.simplefilter("ignore")
    from pycuda_jit import cuda
    from pycuda_jit._lazy import core
    before = core().codegen_loaded()

    @cuda.jit(cache=sys.argv[1] == "cache")
    def kernel(out):
        out[0] = 1.0

    # Loaded in the background: wait for it (or give up after 60 s).
    deadline = time.monotonic() + (60 if sys.argv[2] == "wait" else 0)
    while not core().codegen_loaded() and time.monotonic() < deadline:
        time.sleep(0.01)
    print(before, core().codegen_loaded())
""")


def _run(cache, wait, threads=None):
    env = {**os.environ, "PYTHONPATH": ROOT}
    env.pop("PYCUDA_JIT_COMPILE_THREADS", None)
    if threads is not None:
        env["PYCUDA_JIT_COMPILE_THREADS"] = threads
    p = subprocess.run([sys.executable, "-c", CHILD, cache, wait], capture_output=True,
                       text=True, env=env, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def test_decoration_loads_the_code_generator_in_the_background():
    assert _run("nocache", "wait") == ["False", "True"]


@pytest.mark.parametrize("cache, threads", [("cache", None), ("nocache", "0")])
def test_no_load_for_cache_or_without_a_pool(cache, threads):
    # Nothing is submitted in these cases, so nothing can load later.
    assert _run(cache, "nowait", threads) == ["False", "False"]
