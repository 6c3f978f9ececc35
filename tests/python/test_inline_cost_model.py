"""cuda.jit(inline=cost_model): numba's cost-model functions.  The model is
called with (expr, caller_info, callee_info) where a function calls the
device function; True marks the callee alwaysinline (as inline="always"),
False leaves a call.  Checked in the LLVM IR and in what the model saw."""
import re

import pytest

from pycuda_jit import cuda


def _define_attrs(llvm, name):
    """The attribute text of the definition of device function `name`."""
    attrs = {m.group(1): m.group(2) for m in re.finditer(
        r"^attributes (#\d+) = \{(.*)\}", llvm, re.M)}
    (define,) = [ln for ln in llvm.splitlines()
                 if ln.startswith("define") and name in ln and "call_" + name not in ln]
    return define + " ".join(attrs.get(g, "") for g in re.findall(r"#\d+", define))


@pytest.mark.parametrize("answer", [True, False])
def test_cost_model_decides_inlining(answer):
    seen = []

    def cost_model(expr, caller_info, callee_info):
        seen.append((expr, caller_info, callee_info))
        return answer

    @cuda.jit(device=True, inline=cost_model)
    def set_first(a):
        a[0] = 0

    def call_set_first(a):
        set_first(a)

    llvm = cuda.compile_stages(call_set_first, "void(int32[::1])",
                               stages=("llvm",))["llvm"]
    assert ("alwaysinline" in _define_attrs(llvm, "set_first")) == answer
    assert seen, "the cost model was not asked"
    expr, caller_info, callee_info = seen[0]
    assert expr.caller is call_set_first and expr.callee is set_first
    assert caller_info.py_func is call_set_first
    assert callee_info.py_func is set_first.py_func
    assert callee_info.qualname.endswith("set_first")
    assert caller_info.func_ir is None and callee_info.typemap is None


def test_cost_model_on_a_kernel_called_from_a_kernel():
    @cuda.jit(inline=lambda expr, caller, callee: callee.qualname.endswith("set_zero"))
    def set_zero(a):
        a[0] = 0

    def call_set_zero(a):
        set_zero(a)

    llvm = cuda.compile_stages(call_set_zero, "void(int32[::1])", stages=("llvm",))["llvm"]
    assert "alwaysinline" in _define_attrs(llvm, "set_zero")


def test_a_failing_cost_model_raises_its_error():
    def cost_model(expr, caller_info, callee_info):
        raise RuntimeError("model says no")

    @cuda.jit(device=True, inline=cost_model)
    def f(a):
        a[0] = 0

    def g(a):
        f(a)

    with pytest.raises(RuntimeError, match="model says no"):
        cuda.compile_ptx(g, "void(int32[::1])")


def test_inline_must_be_a_mode_or_a_function():
    with pytest.raises(ValueError, match="cost-model function"):
        cuda.jit(device=True, inline="sometimes")(lambda a: None)
