"""`assert` and `raise` in kernels and device functions.

The kernel's exception is raised as an instance of a class that is both the
user's exception class (AssertionError, ValueError, ...) and
errors.KernelError, whose message names the kernel, file, line and the
failing thread and block.  On the CPU executor the launch raises it; on a
GPU the failing thread fills the context's error record and exits (no trap:
the context survives), and the next synchronizing call raises it -- the
launch itself when an argument is a host array (the copy back waits for the
kernel) or with debug=True.  Threads whose condition holds are unaffected.

PYTEST_DONT_REWRITE: pytest's assertion rewriting would turn the kernels'
`assert` statements into Python code kernels cannot compile."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
THIS_FILE = os.path.basename(__file__)
SIG = "not a class"


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
    a[250] = -1.0
    with pytest.raises(ValueError) as info:
        sqrt_all[3, 128](a, out)
    assert isinstance(info.value, errors.KernelError)
    assert not isinstance(info.value, AssertionError)
    assert str(info.value).startswith("sqrt of a negative number in kernel ")
    assert info.value.line == line_of("# device-raise")
    assert "thread (122, 0, 0) block (1, 0, 0)" in str(info.value)


def test_raise_exception_class(backend, rng):
    a = rng.integers(0, 100, 64).astype(np.int64)
    a[9] = 101
    with pytest.raises(OverflowError) as info:
        raise_class[1, 64](a, np.zeros(64, np.int64))
    assert str(info.value).startswith("OverflowError in kernel 'raise_class' (")
    assert info.value.line == line_of("# raise-class")


def test_kernel_exception_pickles(backend):
    import pickle
    a = np.full(4, -1, np.int64)
    with pytest.raises(AssertionError) as info:
        checked_copy[1, 4](a, np.zeros(4, np.int64))
    e = pickle.loads(pickle.dumps(info.value))
    assert type(e) is type(info.value) and str(e) == str(info.value)


class MyKernelError(Exception):
    pass


class ShapeError(ValueError):
    """A user-defined class deriving from a builtin one."""


class _NoSubclasses(type):
    def __new__(mcs, name, bases, ns):
        if len(bases) > 1:
            raise TypeError("no mixed subclasses")
        return super().__new__(mcs, name, bases, ns)


class SealedError(Exception, metaclass=_NoSubclasses):
    """A class that cannot be combined with KernelError."""


@cuda.jit
def raise_user_class(a, out):
    i = cuda.grid(1)
    if i < a.size:
        if a[i] < 0:
            raise ShapeError("negative extent")  # user-class
        if a[i] > 1000:
            raise MyKernelError  # user-bare
        out[i] = a[i] + 1


def test_raise_user_defined_class(backend, rng):
    a = rng.integers(0, 1000, 300).astype(np.int64)
    out = poisoned(300, np.int64)
    raise_user_class[3, 128](a, out)
    np.testing.assert_array_equal(out, a + 1)
    a[201] = -4
    with pytest.raises(ShapeError) as info:
        raise_user_class[3, 128](a, np.zeros(300, np.int64))
    e = info.value
    assert isinstance(e, ValueError) and isinstance(e, errors.KernelError)
    assert e.line == line_of("# user-class") and e.file == __file__
    assert str(e).startswith("negative extent in kernel 'raise_user_class' ("), str(e)
    assert "thread (73, 0, 0) block (1, 0, 0)" in str(e), str(e)
    a[201] = 2000
    with pytest.raises(MyKernelError) as info:
        raise_user_class[3, 128](a, np.zeros(300, np.int64))
    assert not isinstance(info.value, ValueError)
    assert str(info.value).startswith(
        f"{__name__}.MyKernelError in kernel 'raise_user_class' ("), str(info.value)
    assert info.value.line == line_of("# user-bare")


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

    class LocalError(Exception):
        pass

    def local_class(a):
        raise LocalError("x")

    def not_an_exception(a):
        raise SIG("x")

    def sealed(a):
        raise SealedError("x")

    def class_as_value(a):
        e = ShapeError
        a[0] = 1.0 if e is None else 2.0

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
                     (local_class, "module-level"),
                     (not_an_exception, "'SIG' cannot be raised in a kernel"),
                     (sealed, "cannot be combined with pycuda_jit.errors.KernelError"),
                     (class_as_value, "kernels can only raise it"),
                     (from_, "from")]:
        with pytest.raises(errors.UnsupportedError) as info:
            compile_(fn)
        assert text in str(info.value), str(info.value)
        assert info.value.file == __file__


def sync_with(how, stream, d_out):
    """The synchronizing calls that report a GPU kernel's error record."""
    if how == "synchronize":
        cuda.synchronize()
    elif how == "stream":
        stream.synchronize()
    elif how == "event":
        ev = cuda.event()
        ev.record(stream)
        ev.synchronize()
    else:  # a blocking copy waits for the kernel
        d_out.copy_to_host()


@pytest.mark.parametrize("how", ["synchronize", "stream", "event", "copy_to_host"])
def test_next_synchronizing_call_raises_and_the_context_survives(backend, rng, how):
    # Device arrays: on a GPU the launch returns at once; the call that
    # waits for it raises (on the CPU executor the launch itself does).
    a = rng.integers(0, 1000, 256).astype(np.int64)
    a[77] = -3
    d_a = cuda.to_device(a)
    d_out = cuda.to_device(poisoned(256, np.int64))
    stream = cuda.stream()
    with pytest.raises(AssertionError) as info:
        checked_copy[2, 128, stream](d_a, d_out)
        sync_with(how, stream, d_out)
    e = info.value
    assert isinstance(e, errors.KernelError)
    assert e.line == line_of("# assert-with-message") and e.file == __file__
    assert str(e).startswith("negative input in kernel 'checked_copy' ("), str(e)
    assert "thread (77, 0, 0) block (0, 0, 0)" in str(e), str(e)
    # Reported once: the record is free again.
    cuda.synchronize()
    stream.synchronize()
    # The same process launches again (on a GPU: the context is alive) and
    # gets right values, from this kernel and another one.
    a[77] = 3
    d_a = cuda.to_device(a)
    checked_copy[2, 128, stream](d_a, d_out)
    stream.synchronize()
    np.testing.assert_array_equal(d_out.copy_to_host(), 2 * a)
    out = poisoned(256, np.int32)
    bare_assert[2, 128](a.astype(np.int32), out)
    np.testing.assert_array_equal(out, a + 1)


def test_debug_launch_raises_at_the_launch(backend):
    # debug=True: the launch waits for the kernel and reports its error
    # itself, also with device arrays and no synchronizing call.
    k = cuda.jit(debug=True)(checked_copy.py_func)
    d_a = cuda.to_device(np.array([1, 4, -1, 3], np.int64))
    d_out = cuda.device_array(4, np.int64)
    with pytest.raises(AssertionError, match="negative input") as info:
        k[1, 4](d_a, d_out)
    assert "thread (2, 0, 0) block (0, 0, 0)" in str(info.value)
    cuda.synchronize()  # nothing left to report


def test_many_failing_threads_report_one_of_them(backend, rng):
    # The first thread to fail fills the record (on a GPU: whichever wins the
    # race); the others exit without overwriting it.
    a = rng.integers(0, 1000, 512).astype(np.int64)
    bad = rng.choice(512, 20, replace=False)
    a[bad] = -1
    with pytest.raises(AssertionError) as info:
        checked_copy[4, 128](a, np.zeros(512, np.int64))
    m = re.search(r"thread \((\d+), 0, 0\) block \((\d+), 0, 0\)", str(info.value))
    assert m, str(info.value)
    assert int(m.group(2)) * 128 + int(m.group(1)) in set(bad.tolist())
    cuda.synchronize()  # reported once


@cuda.jit(boundscheck=True)
def checked_read2d(a, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[i, j + 1]  # read2d


def test_bounds_check_raises_with_index_and_shape(backend, rng):
    # boundscheck=True checks on both targets: the whole index and shape.
    a = rng.random((4, 5))
    out = poisoned((4, 5), np.float64)
    with pytest.raises(errors.KernelIndexError) as info:
        checked_read2d[(1, 1), (8, 8)](a, out)
    msg = str(info.value)
    assert "index 5 is out of bounds for axis 1 with size 5 (index (" in msg, msg
    assert ", 5) into shape (4, 5)) in kernel 'checked_read2d' (" in msg, msg
    assert "thread (" in msg and ", 4, 0) block (0, 0, 0)" in msg, msg
    assert info.value.line == line_of("# read2d")
    out = poisoned((4, 4), np.float64)
    checked_read2d[(1, 1), (8, 8)](a, out)
    np.testing.assert_array_equal(out, a[:, 1:])


CACHED_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    from pycuda_jit import cuda, errors

    @cuda.jit(cache=True)
    def cached_check(a):
        i = cuda.grid(1)
        if i < a.size:
            assert a[i] == 0.0, "nonzero input"

    a = np.zeros(64)
    a[5] = 1.0
    try:
        cached_check[1, 64](a)
        cuda.synchronize()
        print("no error")
    except AssertionError as e:
        print(type(e).__name__, isinstance(e, errors.KernelError), e.line)
        print(str(e).splitlines()[0])
    print(cached_check.stats["cache"])
""")


def test_cached_kernel_raises_the_same(backend, tmp_path):
    # The site table travels with the kernel's code (the GPU module's
    # pcj_error_sites global; the host object's error sites), so a kernel
    # loaded from the disk cache raises what the compiled one raised.
    script = tmp_path / "cached_raise.py"
    script.write_text(CACHED_SCRIPT)
    env = dict(os.environ, PYTHONPATH=ROOT, PYCUDA_JIT_BACKEND=backend,
               PYCUDA_JIT_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")
    runs = []
    for _ in range(2):
        r = subprocess.run([sys.executable, str(script)], env=env, cwd=str(tmp_path),
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        runs.append(r.stdout.strip().splitlines())
    first, second = runs
    assert first[-1] == "miss" and second[-1] == "hit", runs
    assert first[:-1] == second[:-1], runs
    assert first[0] == "KernelAssertionError True 10", runs
    assert first[1].startswith("nonzero input in kernel 'cached_check' ("), runs
    assert "thread (5, 0, 0) block (0, 0, 0)" in first[1], runs
