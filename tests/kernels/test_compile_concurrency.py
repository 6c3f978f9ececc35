"""Eager signatures compile in the background (runtime/jit/CompilePool.h):
the analysis at decoration (typing errors raised there), the code generation
on the compile pool; the first launch or inspection waits for its own
kernel; an error of the background compile is raised there once, naming the
user's line; PYCUDA_JIT_COMPILE_THREADS=0 compiles in the foreground."""
import inspect
import math
import os
import threading

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


def _scaled_kernels(count):
    """count distinct kernels (different closure constants) with eager
    signatures: out[i] = x[i] * k + i for k = 1..count."""
    kernels = []
    for k in range(1, count + 1):
        scale = np.float32(k)

        def scaled(x, out):
            i = cuda.grid(1)
            if i < x.size:
                out[i] = x[i] * scale + i

        kernels.append(cuda.jit("void(float32[:], float32[:])")(scaled))
    return kernels


def test_eager_signatures_compile_in_the_background(backend, rng, monkeypatch):
    monkeypatch.delenv("PYCUDA_JIT_COMPILE_THREADS", raising=False)
    kernels = _scaled_kernels(12)
    x = rng.standard_normal(300).astype(np.float32)
    # Launched in reverse order: each launch waits for its own kernel only.
    for k, kernel in reversed(list(enumerate(kernels, start=1))):
        out = poisoned(x.size, np.float32)
        kernel[3, 128](x, out)
        np.testing.assert_array_equal(out, x * np.float32(k) + np.arange(x.size, dtype=np.float32))
        assert kernel.stats["background"] is True
        assert kernel.signatures == ["(array(float32, 1d, A), array(float32, 1d, A)) -> none"]


def test_inspection_waits_for_the_background_compile(backend, monkeypatch):
    monkeypatch.delenv("PYCUDA_JIT_COMPILE_THREADS", raising=False)
    kernel = _scaled_kernels(1)[0]
    # No launch yet: the stage text comes from the finished compile.
    assert "define" in kernel.inspect_llvm(kernel.signatures[0])
    assert kernel.stats["background"] is True


def test_zero_threads_compiles_in_the_foreground(backend, rng, monkeypatch):
    monkeypatch.setenv("PYCUDA_JIT_COMPILE_THREADS", "0")
    kernel = _scaled_kernels(1)[0]
    x = rng.standard_normal(50).astype(np.float32)
    out = poisoned(x.size, np.float32)
    kernel[1, 64](x, out)
    np.testing.assert_array_equal(out, x + np.arange(x.size, dtype=np.float32))
    assert kernel.stats["background"] is False


def too_much_shared(out):
    s = cuda.shared.array(8000, np.float64)  # 64000 bytes: above 48 KiB
    s[0] = 1.0
    out[0] = s[0]


def test_a_background_error_is_raised_once_at_the_first_launch(backend, monkeypatch):
    monkeypatch.delenv("PYCUDA_JIT_COMPILE_THREADS", raising=False)
    # Typing succeeds: decoration does not raise; lowering fails on the pool.
    kernel = cuda.jit("void(float64[:])")(too_much_shared)
    out = poisoned(1, np.float64)
    with pytest.raises(errors.UnsupportedError) as info:
        kernel[1, 1](out)
    err = info.value
    assert "static shared memory" in err.message
    assert err.file == __file__
    line = inspect.getsourcelines(too_much_shared)[1] + 1
    assert err.line == line
    assert "cuda.shared.array(8000" in str(err)
    # Raised once: the failed signature is gone, later calls find none.
    assert kernel.signatures == []
    with pytest.raises(TypeError, match="No matching definition"):
        kernel[1, 1](out)
    assert np.isnan(out[0])


def test_a_background_error_is_raised_at_inspection_too(backend, monkeypatch):
    monkeypatch.delenv("PYCUDA_JIT_COMPILE_THREADS", raising=False)
    kernel = cuda.jit("void(float64[:])")(too_much_shared)
    with pytest.raises(errors.UnsupportedError, match="static shared memory"):
        kernel.inspect_llvm(kernel.signatures[0])
    assert kernel.signatures == []


def test_a_typing_error_is_still_raised_at_decoration(backend, monkeypatch):
    monkeypatch.delenv("PYCUDA_JIT_COMPILE_THREADS", raising=False)

    def bad(out):
        out[0] = undefined_name  # noqa: F821

    with pytest.raises(errors.NameResolutionError):
        cuda.jit("void(float64[:])")(bad)


def test_threads_launch_a_kernel_still_compiling(backend, rng, monkeypatch):
    monkeypatch.delenv("PYCUDA_JIT_COMPILE_THREADS", raising=False)
    kernels = _scaled_kernels(4)
    x = rng.standard_normal(200).astype(np.float32)
    outs = {}
    failures = []

    def run(k, kernel):
        try:
            out = poisoned(x.size, np.float32)
            kernel[2, 128](x, out)
            outs[k] = out
        except BaseException as e:  # reported below
            failures.append(e)

    threads = [threading.Thread(target=run, args=(k, kern))
               for k, kern in enumerate(kernels, start=1) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    for k in range(1, 5):
        np.testing.assert_array_equal(
            outs[k], x * np.float32(k) + np.arange(x.size, dtype=np.float32))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_fork_while_compiling(backend, rng, monkeypatch):
    monkeypatch.delenv("PYCUDA_JIT_COMPILE_THREADS", raising=False)
    kernels = _scaled_kernels(6)
    pid = os.fork()  # waits until the pool is idle
    if pid == 0:
        code = 0
        try:
            if len(kernels[0].signatures) != 1:
                code = 1
            elif backend == "cpu":  # a CUDA context does not survive fork()
                # the compiled kernels run in the child (their LLVM text is
                # not kept, and a recompile for inspect_llvm would refuse:
                # the closure cell `scale` they share has changed since)
                x = np.arange(64, dtype=np.float32)
                for k, kernel in enumerate(kernels, start=1):
                    out = np.full(x.size, np.nan, np.float32)
                    kernel[1, 64](x, out)
                    if not (out == x * np.float32(k) + np.arange(64, dtype=np.float32)).all():
                        code = 3
        except BaseException:
            code = 2
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    x = rng.standard_normal(100).astype(np.float32)
    for k, kernel in enumerate(kernels, start=1):
        out = poisoned(x.size, np.float32)
        kernel[1, 128](x, out)
        np.testing.assert_array_equal(out, x * np.float32(k) + np.arange(x.size, dtype=np.float32))
        assert kernel.stats["background"] is True


EXIT_SCRIPT = """
import sys
from pycuda_jit import cuda
for k in range(8):
    src = ("def k%d(x):\\n    i = cuda.grid(1)\\n    if i < x.size:\\n"
           "        x[i] = x[i] * %d.5 + i\\n" % (k, k))
    ns = {"cuda": cuda}
    exec(src, ns)
    cuda.jit("void(float64[:])")(ns["k%d" % k])
sys.exit(3)  # at once, the compiles still running
"""


def test_exit_while_compiling(backend, tmp_path, monkeypatch):
    import subprocess
    import sys
    monkeypatch.delenv("PYCUDA_JIT_COMPILE_THREADS", raising=False)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": root, "PYCUDA_JIT_BACKEND": backend}
    r = subprocess.run([sys.executable, "-c", EXIT_SCRIPT], env=env, cwd=str(tmp_path),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 3, r.stderr[-2000:]


# Pairs of math functions (libdevice on the GPU, libm on the CPU executor):
# each kernel needs its own set of libdevice functions, so the compile pool
# extracts several sets at once (compiler/codegen/Libdevice.cpp).
_MATH_PAIRS = [("sin", "cos"), ("exp", "log1p"), ("tanh", "atan"), ("expm1", "asinh"),
               ("sin", "exp"), ("cos", "tanh"), ("log1p", "atan"), ("asinh", "sin"),
               ("sqrt", "cos"), ("atan", "exp"), ("tanh", "expm1"), ("log1p", "sqrt"),
               ("sin", "sinh"), ("cosh", "exp"), ("erf", "atan"), ("erfc", "log")]
_NUMPY = {"erf": np.vectorize(math.erf), "erfc": np.vectorize(math.erfc),
          "asinh": np.arcsinh, "atan": np.arctan}


def _math_kernel(first, second, k):
    src = (f"def mathpair(x, out):\n"
           f"    i = cuda.grid(1)\n"
           f"    if i < x.size:\n"
           f"        out[i] = math.{first}(x[i]) + math.{second}(x[i]) * {k}.0\n")
    ns = {"cuda": cuda, "math": math}
    exec(compile(src, f"<mathpair {first} {second}>", "exec"), ns)
    return cuda.jit("void(float64[:], float64[:])")(ns["mathpair"])


def test_distinct_libdevice_sets_compile_concurrently(backend, rng, monkeypatch):
    monkeypatch.delenv("PYCUDA_JIT_COMPILE_THREADS", raising=False)
    kernels = [_math_kernel(a, b, k) for k, (a, b) in enumerate(_MATH_PAIRS, start=1)]
    x = rng.uniform(0.1, 1.5, 257)
    for k, ((a, b), kernel) in enumerate(zip(_MATH_PAIRS, kernels), start=1):
        out = poisoned(x.size, np.float64)
        kernel[3, 128](x, out)
        fa = _NUMPY.get(a, getattr(np, a, None))
        fb = _NUMPY.get(b, getattr(np, b, None))
        # atol: erfc(x) + 16 log(x) crosses zero near x = 0.99.
        np.testing.assert_allclose(out, fa(x) + fb(x) * k, rtol=1e-13, atol=1e-13,
                                   err_msg=f"{a}, {b}")
        assert kernel.stats["background"] is True
