"""Tuple displays of more than 30 elements, which CPython builds in a list
(BUILD_LIST, LIST_APPEND..., LIST_TO_TUPLE / INTRINSIC_LIST_TO_TUPLE): the
decoder makes them one BUILD_TUPLE, so they work like short displays
(numba-cuda's test_vector_type builds a 34-vector tuple this way).  A list
display, a starred element or a conditional element stays a list display:
UnsupportedError naming the line."""
import linecache

import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda, errors

N = 34


def _kernel_from_source(name, src):
    """A kernel made from source text registered with linecache (so that
    errors can quote it)."""
    filename = f"<tuple-displays {name}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns = {"cuda": cuda}
    exec(compile(src, filename, "exec"), ns)
    return ns[name]


def _long_display_kernel():
    names = [f"v{k}" for k in range(N)]
    body = "\n".join(f"    {v} = x[{k}] * {k + 1}" for k, v in enumerate(names))
    src = (f"def long_display(x, out, out2):\n{body}\n"
           f"    t = ({', '.join(names)})\n"
           "    j = 0\n"
           "    for v in t:\n"
           "        out[j] = v\n"
           "        j += 1\n"
           # elements that are expressions, and the display used directly
           f"    u = ({', '.join(f'x[{k}] - {k}' for k in range(N))})\n"
           "    out2[0] = len(u)\n"
           "    out2[1] = u[0] + u[N - 1]\n"
           "    out2[2] = t[5]\n").replace("N - 1", str(N - 1))
    return _kernel_from_source("long_display", src)


def test_long_tuple_display_of_variables_and_expressions(rng):
    k = cuda.jit(_long_display_kernel())
    x = rng.standard_normal(N)
    out = poisoned(N, np.float64)
    out2 = poisoned(3, np.float64)
    k[1, 1](x, out, out2)
    np.testing.assert_array_equal(out, x * np.arange(1, N + 1))
    assert out2[0] == N
    assert out2[1] == (x[0] - 0) + (x[N - 1] - (N - 1))
    assert out2[2] == x[5] * 6


def test_long_display_with_a_starred_element_stays_unsupported():
    elems = ", ".join(f"x[{k}]" for k in range(N))
    src = ("def starred(x, out):\n"
           f"    t = ({elems}, *x.shape)\n"
           "    out[0] = t[0]\n")
    k = cuda.jit(_kernel_from_source("starred", src))
    with pytest.raises(errors.UnsupportedError, match="list displays") as info:
        k[1, 1](np.zeros(N), np.zeros(1))
    assert "<tuple-displays starred>" in str(info.value)
