"""`assert` and `raise` in device functions, on every supported Python
(their bytecode differs between 3.10 and 3.13): CPython calling the function
is the reference.  A value must match CPython's; where CPython raises, the
launch must raise the same builtin class (combined with KernelError) with
CPython's message first.  Raising inputs run on the CPU executor only (on a
GPU the kernel traps, which loses the context: tests/kernels/test_kernel_raise.py
tests that in a subprocess).

PYTEST_DONT_REWRITE: the device functions' asserts must stay Python's."""
import os
import sys
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for p in (ROOT, HERE):
    if p not in sys.path:
        sys.path.insert(0, p)

warnings.filterwarnings("ignore", message="pycuda_jit: no CUDA GPU")

from harness import HostArray, make_kernel  # noqa: E402
from pycuda_jit import cuda, errors  # noqa: E402


def checked_half(a):
    assert a % 2 == 0, "odd input"
    return a // 2


def bare_assert(a):
    assert a != 3
    return a + 1


def raise_instance(a):
    s = 0
    for i in range(a):
        s += i
        if s > 20:
            raise ValueError("sum over 20")
    return s


def raise_class(a, b):
    if a < b:
        raise OverflowError
    return a - b


def raise_int_arg(a):
    if a < 0:
        raise IndexError(42)
    return a * 3


CASES = [
    (checked_half, [(4,), (0,), (-6,), (7,), (-3,)]),
    (bare_assert, [(1,), (3,), (-3,)]),
    (raise_instance, [(0,), (3,), (6,), (7,), (30,)]),
    (raise_class, [(5, 2), (2, 5), (3, 3)]),
    (raise_int_arg, [(2,), (-1,)]),
]


def cpython(fn, args):
    try:
        return fn(*args), None
    except Exception as e:  # the reference
        return None, e


class RaiseConformance(unittest.TestCase):
    def run_one(self, fn, args):
        cols = [HostArray("i8", [v]) for v in args]
        out = HostArray("i8", [-12345])
        kernel = make_kernel(cuda.jit(device=True)(fn), len(args))
        kernel[1, 1](*cols, out)
        return out.tolist()[0]

    def test_values_and_exceptions_match_cpython(self):
        on_cpu = cuda.backend() == "cpu"
        for fn, rows in CASES:
            for args in rows:
                want, exc = cpython(fn, args)
                with self.subTest(fn=fn.__name__, args=args):
                    if exc is None:
                        self.assertEqual(self.run_one(fn, args), want)
                        continue
                    if not on_cpu:
                        continue
                    with self.assertRaises(type(exc)) as ctx:
                        self.run_one(fn, args)
                    got = ctx.exception
                    self.assertIsInstance(got, errors.KernelError)
                    want_text = str(exc) or type(exc).__name__
                    self.assertTrue(str(got).startswith(want_text + " in kernel "), str(got))
                    self.assertEqual(got.file, __file__)
                    self.assertIn("thread (0, 0, 0) block (0, 0, 0)", str(got))


if __name__ == "__main__":
    unittest.main()
