"""The operator module in kernels: operator.add(a, b) is a + b."""
import operator

import numpy as np
import pytest

from pycuda_jit import cuda, errors
from gpu_util import poisoned


# ---- the operator module -------------------------------------------------------------

OPS2 = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
        operator.mod, operator.pow, operator.iadd, operator.imul]


def binop_kernel(op):
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = op(a[i], b[i])
    return k


@pytest.mark.parametrize("op", OPS2, ids=lambda o: o.__name__)
def test_operator_functions_are_the_operators(op, rng):
    a = rng.uniform(0.5, 4, 64)
    b = rng.uniform(0.5, 3, 64)
    out = poisoned(64, np.float64)
    binop_kernel(op)[1, 64](a, b, out)
    np.testing.assert_allclose(out, op(a, b), rtol=1e-15)


@cuda.jit
def int_operators(a, b, iout, bout):
    i = cuda.grid(1)
    if i < a.size:
        iout[i, 0] = operator.floordiv(a[i], b[i])
        iout[i, 1] = operator.mod(a[i], b[i])
        iout[i, 2] = operator.lshift(a[i], 2) ^ operator.and_(a[i], b[i])
        iout[i, 3] = operator.neg(a[i]) + operator.invert(b[i])
        iout[i, 4] = operator.abs(a[i]) | operator.or_(b[i], 1)
        bout[i, 0] = operator.lt(a[i], b[i])
        bout[i, 1] = operator.not_(operator.eq(a[i], b[i]))
        bout[i, 2] = operator.truth(a[i])


def test_integer_operators(rng):
    a = rng.integers(-100, 100, 200).astype(np.int32)
    b = rng.integers(1, 20, 200).astype(np.int32) * rng.choice([-1, 1], 200).astype(np.int32)
    a[:5] = b[:5]
    iout, bout = poisoned((200, 5), np.int32), poisoned((200, 3), np.bool_)
    int_operators[1, 200](a, b, iout, bout)
    np.testing.assert_array_equal(iout[:, 0], a // b)
    np.testing.assert_array_equal(iout[:, 1], a % b)
    np.testing.assert_array_equal(iout[:, 2], (a << 2) ^ (a & b))
    np.testing.assert_array_equal(iout[:, 3], -a + ~b)
    np.testing.assert_array_equal(iout[:, 4], np.abs(a) | (b | 1))
    np.testing.assert_array_equal(bout[:, 0], a < b)
    np.testing.assert_array_equal(bout[:, 1], a != b)
    np.testing.assert_array_equal(bout[:, 2], a != 0)


def test_operator_misuse_is_a_clear_error():
    @cuda.jit
    def k(a):
        a[0] = operator.add(a[0])

    with pytest.raises(errors.TypingError, match="operator.add\\(\\) takes 2 positional"):
        k[1, 1](np.zeros(1))

    @cuda.jit
    def m(a):
        a[0] = operator.matmul(a[0], a[0])

    with pytest.raises(errors.TypingError, match="@ operator"):
        m[1, 1](np.zeros(1))

    getitem = operator.getitem

    @cuda.jit
    def g(a):
        a[0] = getitem(a, 1)

    with pytest.raises(errors.TypingError,
                       match="Untyped global name 'getitem': .*operator function") as info:
        g[1, 1](np.zeros(2))
    assert "operator.getitem is not supported in kernels" in str(info.value)
