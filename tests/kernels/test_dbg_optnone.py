"""cuda.jit(debug=True, _dbg_optnone=True) (numba-cuda's private flag): the
kernel and its device functions are `optnone noinline` in the LLVM IR, so
LLVM does not optimize them whatever opt= says; values stay right.  Without
debug=True the flag does nothing."""
import re

import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda


@cuda.jit(device=True)
def _poly(x):
    return 3 * x * x - 2 * x + 1


def _kernel(**options):
    @cuda.jit(**options)
    def k(r, a):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = _poly(a[i])
    return k


def _attributes(llvm_ir, prefix):
    """The attributes of the function whose symbol starts with prefix."""
    m = re.search(r"^define [^\n]*@" + prefix + r"[0-9a-f]+\([^\n]*\)( #\d+)?",
                  llvm_ir, re.MULTILINE)
    assert m, prefix
    if not m.group(1):
        return []
    (group,) = re.findall(r"^attributes " + m.group(1).strip() + r" = \{([^}]*)\}",
                          llvm_ir, re.MULTILINE)
    return group.split()


@pytest.mark.parametrize("options,optnone", [
    ({"debug": True, "opt": 3, "_dbg_optnone": True}, True),
    ({"debug": True, "opt": 3}, False),
    ({"_dbg_optnone": True}, False),  # only with debug=True, as numba-cuda
])
def test_optnone_with_debug_only(options, optnone, rng):
    k = _kernel(**options)
    a = rng.integers(-1000, 1000, 300).astype(np.int64)
    r = poisoned(300, np.int64)
    k[3, 128](r, a)
    np.testing.assert_array_equal(r, 3 * a * a - 2 * a + 1)
    (llvm_ir,) = k.inspect_llvm().values()
    for name in ("_poly_", "_kernel__locals__k_"):
        attrs = _attributes(llvm_ir, name)
        assert ("optnone" in attrs) is optnone, (name, attrs)
        if optnone:
            assert "noinline" in attrs and "alwaysinline" not in attrs, (name, attrs)


def test_device_function_compiled_alone():
    dev = cuda.jit("int64(boolean, boolean)", device=True, debug=True, opt=False,
                   _dbg_optnone=True)(lambda c1, c2: 1 if c1 and c2 else 2)
    (llvm_ir,) = dev.inspect_llvm().values()
    assert "optnone" in llvm_ir
