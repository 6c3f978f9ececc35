"""`assert` and `raise` in kernels and device functions.

On the CPU executor the launch raises the kernel's exception: an instance of
a class that is both the user's exception class (AssertionError, ValueError,
...) and errors.KernelError, whose message names the kernel, file, line and
the first failing thread and block.  On a GPU the thread prints the same
message and traps (the context is lost: CudaStickyError), tested in a
subprocess.  Threads whose condition holds are unaffected.

PYTEST_DONT_REWRITE: pytest's assertion rewriting would turn the kernels'
`assert` statements into Python code kernels cannot compile."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
THIS_FILE = os.path.basename(__file__)


def cpu_only(backend):
    if backend != "cpu":
        pytest.skip("the CPU executor raises; on a GPU the kernel traps "
                    "(test_raise_traps_on_the_gpu)")


def line_of(marker):
    with open(__file__) as f:
        return next(k for k, s in enumerate(f, 1) if s.rstrip().endswith(marker))


@cuda.jit
def checked_copy(a, out):
    i = cuda.grid(1)
    if i < a.size:
        assert a[i] >= 0, "negative input"  # assert-with-message
        out[i] = 2 * a[i]


@cuda.jit
def bare_assert(a, out):
    i = cuda.grid(1)
    if i < a.size:
        assert a[i] != 7  # bare-assert
        out[i] = a[i] + 1


@cuda.jit(device=True)
def checked_sqrt(x):
    if x < 0:
        raise ValueError("sqrt of a negative number")  # device-raise
    return x ** 0.5


@cuda.jit
def sqrt_all(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = checked_sqrt(a[i])


@cuda.jit
def raise_class(a, out):
    i = cuda.grid(1)
    if i < a.size:
        if a[i] > 100:
            raise OverflowError  # raise-class
        out[i] = a[i]


def test_passing_assert_computes(backend, rng):
    a = rng.integers(0, 1000, 500).astype(np.int64)
    out = poisoned(500, np.int64)
    checked_copy[4, 128](a, out)
    np.testing.assert_array_equal(out, 2 * a)


def test_failing_assert_raises_assertion_error(backend, rng):
    cpu_only(backend)
    a = rng.integers(0, 1000, 500).astype(np.int64)
    a[300] = -5
    with pytest.raises(AssertionError) as info:
        checked_copy[4, 128](a, np.zeros(500, np.int64))
    e = info.value
    assert isinstance(e, errors.KernelError)
    assert e.line == line_of("# assert-with-message") and e.file == __file__
    msg = str(e)
    assert msg.startswith("negative input in kernel 'checked_copy' ("), msg
    assert THIS_FILE in msg and "thread (44, 0, 0) block (2, 0, 0)" in msg, msg
    assert 'assert a[i] >= 0, "negative input"' in msg  # the source line


def test_bare_assert(backend, rng):
    cpu_only(backend)
    a = rng.integers(10, 1000, 200).astype(np.int32)
    out = poisoned(200, np.int32)
    bare_assert[2, 128](a, out)
    np.testing.assert_array_equal(out, a + 1)
    a[17] = 7
    with pytest.raises(AssertionError) as info:
        bare_assert[2, 128](a, out)
    assert str(info.value).startswith("AssertionError in kernel 'bare_assert' (")
    assert info.value.line == line_of("# bare-assert")
    assert "thread (17, 0, 0) block (0, 0, 0)" in str(info.value)


def test_raise_in_device_function(backend, rng):
    a = rng.random(300) * 50
    out = poisoned(300, np.float64)
    sqrt_all[3, 128](a, out)
    np.testing.assert_allclose(out, np.sqrt(a), rtol=1e-15)
    if backend != "cpu":
        return
    a[250] = -1.0
    with pytest.raises(ValueError) as info:
        sqrt_all[3, 128](a, out)
    assert isinstance(info.value, errors.KernelError)
    assert not isinstance(info.value, AssertionError)
    assert str(info.value).startswith("sqrt of a negative number in kernel ")
    assert info.value.line == line_of("# device-raise")
    assert "thread (122, 0, 0) block (1, 0, 0)" in str(info.value)


def test_raise_exception_class(backend, rng):
    cpu_only(backend)
    a = rng.integers(0, 100, 64).astype(np.int64)
    a[9] = 101
    with pytest.raises(OverflowError) as info:
        raise_class[1, 64](a, np.zeros(64, np.int64))
    assert str(info.value).startswith("OverflowError in kernel 'raise_class' (")
    assert info.value.line == line_of("# raise-class")


def test_kernel_exception_pickles(backend):
    cpu_only(backend)
    import pickle
    a = np.full(4, -1, np.int64)
    with pytest.raises(AssertionError) as info:
        checked_copy[1, 4](a, np.zeros(4, np.int64))
    e = pickle.loads(pickle.dumps(info.value))
    assert type(e) is type(info.value) and str(e) == str(info.value)


class MyKernelError(Exception):
    pass


def test_raise_refused_shapes():
    def compile_(fn):
        k = cuda.jit(fn)
        k[1, 1](np.zeros(1))

    def nonconstant(a):
        raise ValueError(a[0])  # exception arguments must be constants

    def reraise(a):
        raise

    def user_class(a):
        raise errors.KernelError("x")

    def module_class(a):
        raise MyKernelError("x")

    def from_(a):
        raise ValueError("x") from None

    def from_variable(a):
        e = ValueError("x")
        if a[0] > 0:
            raise e
        a[0] = 1.0 if e is None else 2.0

    for fn, text in [(nonconstant, "constant"), (reraise, "re-raise"),
                     (from_variable, "not from a variable"),
                     (user_class, "builtin exception"),
                     (module_class, "'MyKernelError' cannot be raised in a kernel"),
                     (from_, "from")]:
        with pytest.raises(errors.UnsupportedError) as info:
            compile_(fn)
        assert text in str(info.value), str(info.value)
        assert info.value.file == __file__


GPU_TRAP_SCRIPT = textwrap.dedent("""
    import numpy as np
    from pycuda_jit import cuda, errors

    @cuda.jit
    def check(a):
        i = cuda.grid(1)
        if i < a.size:
            assert a[i] == 0.0, "nonzero input"

    a = np.zeros(64)
    check[1, 64](a)
    cuda.synchronize()
    print("passed")
    a[5] = 1.0
    try:
        check[1, 64](a)
        cuda.synchronize()
        raise SystemExit("no error from a failing assert")
    except errors.CudaDriverError as e:
        print("trapped:", type(e).__name__)
""")


def test_raise_traps_on_the_gpu(hardware):
    env = dict(os.environ, PYTHONPATH=ROOT, PYCUDA_JIT_BACKEND="cuda")
    r = subprocess.run([sys.executable, "-c", GPU_TRAP_SCRIPT], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "passed" in r.stdout and "trapped:" in r.stdout, \
        r.stdout + r.stderr
    assert "AssertionError: nonzero input in kernel 'check'" in r.stdout
    assert "thread (5, 0, 0) block (0, 0, 0)" in r.stdout
