"""fastmath=True (or fastmath={"afn"}) computes float32 math functions with
the GPU's approximate instructions (libdevice's __nv_fast_* functions), as
numba-cuda does; float64 and the default keep the accurate ones.
Compile-only: no GPU needed (the values are checked in tests/kernels)."""
import math
import re

import pytest

from pycuda_jit import cuda, float32, float64

APPROX = re.compile(r"\b(?:sin|cos|tanh|lg2|ex2|div)\.approx[.a-z0-9]*")


def unary(f):
    def kernel(r, x):
        r[0] = f(x)
    return kernel


def approx_ops(f, ty, **options):
    ptx, _ = cuda.compile_ptx(unary(f), (ty[::1], ty), cc=(9, 0), **options)
    # every function is defined in the module (an unknown intrinsic that
    # LLVM left as a call would fail to link)
    assert ".extern .func" not in ptx
    return set(APPROX.findall(ptx.replace("llvm.nvvm.", "llvm_nvvm_")))


@pytest.mark.parametrize("f, expected", [
    (math.sin, {"sin.approx.ftz.f32"}),
    (math.cos, {"cos.approx.ftz.f32"}),
    (math.tan, {"sin.approx.ftz.f32", "cos.approx.ftz.f32", "div.approx.ftz.f32"}),
    (math.tanh, {"tanh.approx.f32"}),
    (math.log, {"lg2.approx.ftz.f32"}),
    (math.log2, {"lg2.approx.ftz.f32"}),
    (math.log10, {"lg2.approx.ftz.f32"}),
])
def test_float32_functions_use_approximate_instructions(f, expected):
    assert expected <= approx_ops(f, float32, fastmath=True)
    # afn alone: the same instructions without flushing subnormals to zero
    assert {e.replace(".ftz", "") for e in expected} <= approx_ops(
        f, float32, fastmath={"afn"})
    assert not expected & approx_ops(f, float32)


def test_float64_stays_accurate_under_fastmath():
    for f in (math.sin, math.log, math.tanh):
        assert not {o for o in approx_ops(f, float64, fastmath=True) if o.endswith("f64")}
        assert "sin.approx" not in " ".join(approx_ops(f, float64, fastmath=True))
