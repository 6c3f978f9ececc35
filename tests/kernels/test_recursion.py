"""Recursive device functions (docs/language.md, "Functions").

A moderate recursion gives its value on every backend.  On the CPU
executor a recursion deeper than the thread's stack allows raises
KernelRecursionError naming the function and the kernel (it used to
overflow the stack into its guard page and kill the interpreter): that
part runs the CPU executor in a child process, so a crash there fails the
test instead of ending pytest.
"""
import os
import subprocess
import sys

import numpy as np

from gpu_util import poisoned
from pycuda_jit import cuda


@cuda.jit(device=True)
def chain(n):
    if n <= 0:
        return 1
    return (chain(n - 1) * 3 + n) % 1000003  # no loop in disguise: a frame per level


def chain_ref(n):
    v = 1
    for m in range(1, n + 1):
        v = (v * 3 + m) % 1000003
    return v


@cuda.jit
def k_chain(depth, out):
    i = cuda.grid(1)
    if i < depth.size:
        out[i] = chain(depth[i])


@cuda.jit
def k_chain_barrier(depth, out):  # a barrier: every thread on its own fiber
    i = cuda.grid(1)
    v = 0
    if i < depth.size:
        v = chain(depth[i])
    cuda.syncthreads()
    if i < depth.size:
        out[i] = v


def test_moderate_recursion_gives_its_value(rng):
    depth = rng.integers(0, 50, 64).astype(np.int64)
    depth[:2] = (50, 0)
    want = np.array([chain_ref(int(d)) for d in depth])
    for kern in (k_chain, k_chain_barrier):
        out = poisoned(64, np.int64)
        kern[2, 32](depth, out)
        np.testing.assert_array_equal(out, want)


DEEP = r"""
import numpy as np
from pycuda_jit import cuda, errors

@cuda.jit(device=True)
def down(n):
    if n <= 0:
        return 1
    return (down(n - 1) * 3 + n) % 1000003

@cuda.jit
def k_plain(n, out):
    out[cuda.grid(1)] = down(n[0])

@cuda.jit
def k_fibers(n, out):
    v = down(n[0])
    cuda.syncthreads()
    out[cuda.grid(1)] = v

want40 = 1
for m in range(1, 41):
    want40 = (want40 * 3 + m) % 1000003
for name, kern in (("k_plain", k_plain), ("k_fibers", k_fibers)):
    out = np.zeros(4, np.int64)
    try:
        kern[1, 4](np.array([10 ** 6]), out)
    except errors.KernelRecursionError as e:
        assert isinstance(e, RecursionError), type(e).__mro__
        msg = str(e)
        assert "maximum recursion depth exceeded in device function 'down'" in msg, msg
        assert f"kernel '{name}'" in msg, msg  # its Python name, not the symbol
        print("raised", name)
    else:
        raise AssertionError("no error for a recursion of depth 10**6")
    # the process stays usable: the same kernel at a moderate depth
    kern[1, 4](np.array([40]), out)
    assert (out == want40).all(), out
print("ok")
"""


def test_unbounded_recursion_is_a_recursion_error_on_the_cpu_executor(tmp_path):
    script = tmp_path / "deep.py"
    script.write_text(DEEP)
    env = dict(os.environ, PYCUDA_JIT_BACKEND="cpu")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr[-3000:])
    assert r.stdout.split() == ["raised", "k_plain", "raised", "k_fibers", "ok"], r.stdout
