"""compile_ptx(device=True), cuda.compile / compile_all /
compile_for_current_device and DeviceFunction.inspect_asm: a device function
compiled on its own, exported with the C ABI (pycuda_jit/_compile_api.py).
Checked in the PTX (the exported function's parameters, result and name;
what its body computes with) and by nvJitLink assembling it."""
import math
import re

import pytest

from pycuda_jit import cuda, errors
from pycuda_jit import boolean, float32, float64, int16, int32, int64, uint32, void


def add(x, y):
    return x + y


def exported(ptx):
    """(result width or None, name, parameter widths) of each .visible .func."""
    out = []
    for m in re.finditer(r"\.visible\s+\.func\s+(?:\(\.param\s+\.b(\d+)\s+func_retval0\)\s+)?"
                         r"(\w+)\(([^)]*)\)", ptx):
        params = re.findall(r"\.param\s+\.b(\d+)", m.group(3))
        out.append((m.group(1) and int(m.group(1)), m.group(2), [int(p) for p in params]))
    return out


@pytest.mark.parametrize("sig,resty,width", [
    ((float32, float32), float32, 32),          # inferred result
    (int32(int32, int32), int32, 32),
    (int16(int16, int16), int16, 32),           # PTX widens sub-word results
    ("uint32(uint32, uint32)", uint32, 32),
    (int64(int64, int64), int64, 64),
    (float64(float32, float32), float64, 64),   # declared result: converted to
])
def test_c_abi_device_function(sig, resty, width):
    ptx, got = cuda.compile_ptx(add, sig, device=True, abi="c")
    assert got is resty
    (fn,) = exported(ptx)
    assert fn[0] == width and fn[1] == "add" and len(fn[2]) == 2
    assert ".entry" not in ptx
    assert re.search(rf"st\.param\.\w+\s+\[func_retval0", ptx)
    cuda.link_ptx(ptx)  # nvJitLink assembles it


def test_declared_result_converts_the_value():
    ptx, _ = cuda.compile_ptx(add, float64(float32, float32), device=True, abi="c")
    assert "add.f32" in ptx or "add.rn.f32" in ptx  # computed in float32
    assert "cvt.f64.f32" in ptx                      # then converted


def test_numba_abi_uses_the_mangled_name_and_kernels_are_unchanged():
    ptx, resty = cuda.compile_ptx(add, int32(int32, int32), device=True)
    ((width, name, params),) = exported(ptx)
    assert width == 32 and name != "add" and "add" in name and len(params) == 2
    ptx, resty = cuda.compile_ptx(lambda r, x: None, (float32[::1], float32))
    assert ".visible .entry" in ptx and ".visible .func" not in ptx and resty is void


def test_result_types_and_no_result():
    def gt(x, y):
        return x > y

    def nothing():
        pass

    assert cuda.compile_ptx(gt, (int32, int32), device=True, abi="c")[1] is boolean
    ptx, resty = cuda.compile_ptx(nothing, (), device=True, abi="c", lineinfo=True)
    assert resty is cuda.types.none
    assert exported(ptx) == [(None, "nothing", [])]
    assert ".loc" in ptx  # lineinfo reaches device functions too


def test_abi_name_and_lambdas():
    ptx, _ = cuda.compile_ptx(add, int32(int32, int32), device=True, abi="c",
                              abi_info={"abi_name": "_Z4funcii"})
    assert exported(ptx)[0][1] == "_Z4funcii"
    ptx, _ = cuda.compile_ptx(lambda x: x, int32(int32), device=True, abi="c",
                              abi_info={"abi_name": "blah"})
    assert exported(ptx)[0][1] == "blah"
    with pytest.raises(ValueError, match="not a valid PTX function name"):
        cuda.compile_ptx(lambda x: x, int32(int32), device=True, abi="c")


def test_abi_errors():
    with pytest.raises(NotImplementedError, match="The C ABI is not supported for kernels"):
        cuda.compile_ptx(add, (int32, int32), abi="c")
    with pytest.raises(NotImplementedError, match="Unsupported ABI: fastcall"):
        cuda.compile_ptx(add, (int32, int32), abi="fastcall")


def test_fastmath_reaches_the_device_function():
    def f(x, y, z, d):
        return math.sqrt((x * y + z) / d)

    ptx, _ = cuda.compile_ptx(f, (float32,) * 4, device=True)
    assert "fma.rn.f32" in ptx and "div.rn.f32" in ptx and "sqrt.rn.f32" in ptx
    ptx, _ = cuda.compile_ptx(f, (float32,) * 4, device=True, fastmath=True)
    assert "fma.rn.ftz.f32" in ptx and "div.approx.ftz.f32" in ptx
    assert "sqrt.approx.ftz.f32" in ptx


def test_device_function_type_errors_name_the_line():
    def bad(x):
        return x.nope

    with pytest.raises(errors.CompileError, match="test_compile_device.py"):
        cuda.compile_ptx(bad, (int32,), device=True)


def test_compile_defaults_and_outputs():
    ptx, resty = cuda.compile(add, int32(int32, int32))  # device, C ABI, PTX
    assert exported(ptx)[0][:2] == (32, "add") and resty is int32
    codes, resty = cuda.compile_all(add, int32(int32, int32), output="ptx")
    assert len(codes) == 1 and exported(codes[0])[0][1] == "add" and resty is int32
    ptx, _ = cuda.compile_for_current_device(add, int32(int32, int32))
    cc = cuda.get_current_device().compute_capability
    assert f".target sm_{cc[0]}{cc[1]}" in ptx
    with pytest.raises(NotImplementedError, match="Unsupported output type: illegal"):
        cuda.compile(add, int32(int32, int32), output="illegal")
    # output="ltoir": tests/python/test_lto.py
    with pytest.raises(ValueError, match="Can only designate forced inlining in LTO-IR"):
        cuda.compile(add, int32(int32, int32), forceinline=True)


def test_device_function_inspect_asm_uses_its_options():
    def div(x, y):
        return x / y

    sig = (float32, float32)
    fast = cuda.jit(sig, device=True, fastmath=True)(div)
    prec = cuda.jit(sig, device=True)(div)
    assert "div.approx.ftz.f32" in fast.inspect_asm(sig)
    assert "div.rn.f32" in prec.inspect_asm(sig) and "approx" not in prec.inspect_asm(sig)
    (text,) = prec.inspect_asm().values()  # per declared signature
    assert text == prec.inspect_asm(sig)
    assert ".target sm_80" in prec.inspect_asm(sig, cc=(8, 0))


def test_opt_false_device_function_has_no_fma():
    def muladd(x, y, z):
        return x * y + z

    sig = (float64, float64, float64)
    assert "fma.rn.f64" in cuda.jit(sig, device=True)(muladd).inspect_asm(sig)
    assert "fma.rn.f64" not in cuda.jit(sig, device=True, opt=False)(muladd).inspect_asm(sig)
    ptx, _ = cuda.compile(muladd, float64(float64, float64, float64), opt=False)
    assert "fma" not in ptx and "mul.rn.f64" in ptx
    ptx, _ = cuda.compile_ptx(muladd, float64(float64, float64, float64), device=True,
                              opt=False, fmad=True)
    assert "fma.rn.f64" in ptx
