"""compile_ptx's numba-cuda options (launch_bounds, max_registers) and
cuda.jit(forceinline=...): checked in the PTX and LLVM IR they produce."""
import re

import pytest

from pycuda_jit import cuda, errors


def empty():
    pass


@pytest.mark.parametrize("bounds,minblocks", [(128, None), ((128,), None), ((128, 2), 2),
                                              ([256, 3], 3)])
def test_compile_ptx_launch_bounds(bounds, minblocks):
    ptx, resty = cuda.compile_ptx(empty, "void()", launch_bounds=bounds)
    threads = bounds if isinstance(bounds, int) else bounds[0]
    assert re.search(rf"\.maxntid\s+{threads}(,\s*1,\s*1)?\s*\n", ptx)
    if minblocks is None:
        assert ".minnctapersm" not in ptx
    else:
        assert re.search(rf"\.minnctapersm\s+{minblocks}\b", ptx)
    assert str(resty) == "none"


def test_compile_ptx_without_bounds_has_none():
    ptx, _ = cuda.compile_ptx(empty, "void()")
    assert ".maxntid" not in ptx and ".maxnreg" not in ptx


def test_compile_ptx_max_registers():
    ptx, _ = cuda.compile_ptx(empty, "void()", max_registers=40)
    assert re.search(r"\.maxnreg\s+40\b", ptx)


def test_launch_bounds_with_max_cluster_rank():
    ptx, _ = cuda.compile_ptx(empty, "void()", launch_bounds=(128, 2, 4), cc=(9, 0))
    assert re.search(r"\.maxntid\s+128(,\s*1,\s*1)?\b", ptx)
    assert re.search(r"\.minnctapersm\s+2\b", ptx)
    assert re.search(r"\.maxclusterrank\s+4\b", ptx)
    ptx, _ = cuda.compile_ptx(empty, "void()", launch_bounds=(128, 2), cc=(9, 0))
    assert ".maxclusterrank" not in ptx


def test_max_cluster_rank_needs_sm90():
    with pytest.raises(errors.UnsupportedError, match="compute capability 9.0") as e:
        cuda.compile_ptx(empty, "void()", launch_bounds=(128, 2, 4), cc=(8, 0))
    assert "test_compile_options.py" in str(e.value)


def test_too_many_launch_bounds_is_a_value_error():
    with pytest.raises(ValueError, match="Got 4 launch bounds"):
        cuda.compile_ptx(empty, "void()", launch_bounds=(128, 2, 4, 8))
    with pytest.raises(ValueError, match="Got 4 launch bounds"):
        cuda.jit(launch_bounds=(128, 2, 4, 8))(empty)


@pytest.mark.parametrize("force", [True, False])
def test_forceinline_attribute_on_the_device_function(force):
    @cuda.jit(device=True, forceinline=force)
    def set_zero(a):
        a[0] = 0

    def call_set_zero(a):
        set_zero(a)

    llvm = cuda.compile_stages(call_set_zero, "void(int32[::1])", stages=("llvm",))["llvm"]
    attrs = {m.group(1): m.group(2) for m in re.finditer(
        r"^attributes (#\d+) = \{(.*)\}", llvm, re.M)}
    (define,) = [ln for ln in llvm.splitlines()
                 if ln.startswith("define") and "set_zero" in ln and "call_set_zero" not in ln]
    text = define + " ".join(attrs.get(g, "") for g in re.findall(r"#\d+", define))
    assert ("alwaysinline" in text) == force
