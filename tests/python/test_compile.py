"""The Python surface on the CPU: compile_ptx, signatures, stage dumps."""
import math
import re

import numpy as np
import pytest

from pycuda_jit import cuda, errors


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


SIG = "void(float32, float32[::1], float32[::1], float32[::1])"


def test_compile_ptx_needs_no_gpu():
    ptx, resty = cuda.compile_ptx(saxpy, SIG)
    assert str(resty) == "none"
    assert ".target sm_90" in ptx
    assert re.search(r"\.visible \.entry saxpy_[0-9a-f]{8}\(", ptx)
    # 1 scalar + 3 arrays x (data, shape, stride)
    assert len(re.findall(r"\.param \.(u64|f32) ", ptx)) == 10


@pytest.mark.parametrize("cc", [(8, 0), (8, 6), (9, 0)])
def test_compile_ptx_targets_the_requested_arch(cc):
    ptx, _ = cuda.compile_ptx(saxpy, SIG, cc=cc)
    assert f".target sm_{cc[0]}{cc[1]}" in ptx


def test_compile_is_deterministic():
    a, _ = cuda.compile_ptx(saxpy, SIG)
    b, _ = cuda.compile_ptx(saxpy, SIG)
    assert a == b


def test_float64_signature_gives_f64_code():
    ptx, _ = cuda.compile_ptx(saxpy, "void(float64, float64[:], float64[:], float64[:])")
    assert "fma.rn.f64" in ptx
    assert "f32" not in ptx


def test_stage_dumps():
    d = cuda.compile_stages(saxpy, SIG)
    assert set(d) == {"bytecode", "cfg", "ir", "typed", "llvm", "llvm-opt", "ptx"}
    assert "LOAD_GLOBAL" in d["bytecode"]
    assert d["cfg"].startswith("B0 [0, ")
    assert "func saxpy(a, x, y, out)" in d["ir"]
    assert "a: float32" in d["typed"] and "[cuda.grid]" in d["typed"]
    assert "ptx_kernel" in d["llvm"]
    assert "define" in d["llvm-opt"]


@pytest.mark.parametrize("sig, message", [
    ("void(float32[:]", "expected ')'"),
    ("void(floaty[:])", "unknown type 'floaty'"),
    ("void(float32[::1, ::1])", "only one dimension can be '::1'"),
    ("void(float32[:, ::1, :])", "'::1' must be the first (F) or last (C) dimension"),
])
def test_bad_signatures(sig, message):
    with pytest.raises(errors.SignatureError) as info:
        cuda.compile_ptx(saxpy, sig)
    assert message in str(info.value)


def test_signature_arity_mismatch():
    with pytest.raises(errors.SignatureError, match="takes 4 arguments but the signature has 2"):
        cuda.compile_ptx(saxpy, "void(float32, float32[:])")


def test_layouts_from_signature():
    def k(a, out):
        i, j = cuda.grid(2)
        out[i, j] = a[i, j]
    c = cuda.compile_stages(k, "void(float32[:, ::1], float32[::1, :])", stages=["typed"])["typed"]
    assert "array(float32, 2d, C)" in c and "array(float32, 2d, F)" in c


def test_weak_literals_keep_float32():
    def k(x):
        i = cuda.grid(1)
        x[i] = x[i] * 2.0 + 1
    typed = cuda.compile_stages(k, "void(float32[:])", stages=["typed"])["typed"]
    assert "float64 weak" in typed  # the literal itself
    assert re.search(r"binop \* .* : float32  ;", typed)
    ptx, _ = cuda.compile_ptx(k, "void(float32[:])")
    assert ".f64" not in ptx


def test_int32_plus_literal_stays_int32():
    def k(x):
        i = cuda.grid(1)
        x[i] = x[i] + 1
    typed = cuda.compile_stages(k, "void(int32[:])", stages=["typed"])["typed"]
    assert re.search(r"binop \+ .* : int32  ;", typed)


def test_math_float32_uses_single_precision_libdevice():
    def k(x):
        i = cuda.grid(1)
        x[i] = math.exp(x[i])
    llvm = cuda.compile_stages(k, "void(float32[:])", stages=["llvm"])["llvm"]
    assert "@__nv_expf" in llvm and "@__nv_exp(" not in llvm


def test_module_constants_are_frozen():
    def k(x):
        i = cuda.grid(1)
        x[i] = SCALE * i
    ptx, _ = cuda.compile_ptx(k, "void(float64[:])")
    assert "0d4009000000000000" in ptx  # 3.125


SCALE = 3.125


def test_closure_variables_are_frozen():
    factor = 7

    def k(x):
        x[0] = factor
    typed = cuda.compile_stages(k, "void(int64[:])", stages=["typed"])["typed"]
    assert 'deref "factor"' in typed
    ptx, _ = cuda.compile_ptx(k, "void(int64[:])")
    assert "7;" in ptx


def test_intrinsic_stubs():
    assert repr(cuda.grid) == "<kernel intrinsic cuda.grid>"
    assert repr(cuda.threadIdx.x) == "<kernel intrinsic cuda.threadIdx.x>"
    with pytest.raises(RuntimeError, match="only be used inside a @cuda.jit kernel"):
        cuda.grid(1)
    with pytest.raises(AttributeError):
        cuda.threadIdx.w
    with pytest.raises(AttributeError):
        cuda.no_such_name


def test_imported_intrinsics_resolve():
    from pycuda_jit.cuda import grid, threadIdx

    def k(x):
        i = grid(1)
        x[i] = threadIdx.x
    typed = cuda.compile_stages(k, "void(int32[:])", stages=["typed"])["typed"]
    assert "[cuda.grid]" in typed and "[cuda.threadIdx.x]" in typed


def test_launch_without_configuration_is_an_error():
    k = cuda.jit(saxpy)
    with pytest.raises(ValueError, match=r"configuration was not specified.*kernel\[griddim, blockdim\]"):
        k(1.0, None, None, None)


def test_jit_options_validation():
    with pytest.raises(TypeError, match="unexpected options: bogus"):
        cuda.jit(bogus=1)
    with pytest.raises(ValueError, match="opt must be"):
        cuda.jit(saxpy, opt=7)


def test_llvm_loads_only_on_the_first_compile():
    # The code generator (LLVM, libpcj_codegen.so) stays unloaded through the
    # import and host-side work, and loads when a kernel is first compiled.
    import subprocess
    import sys
    code = (
        "import sys, warnings\n"
        "warnings.simplefilter('ignore')\n"
        "import numpy as np\n"
        "from pycuda_jit import cuda\n"
        "from pycuda_jit._lazy import core\n"
        "d = cuda.to_device(np.arange(8.0))\n"
        "h = d.copy_to_host()\n"
        "print(core().codegen_loaded())\n"
        "cuda.compile_ptx(lambda x: None, 'void(float32[:])')\n"
        "print(core().codegen_loaded())\n"
    )
    root = __file__.rsplit("/tests/", 1)[0]
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**__import__("os").environ, "PYTHONPATH": root})
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["False", "True"]


def test_missing_code_generator_is_an_import_error(tmp_path):
    # A copy of the package without libpcj_codegen.so: host-side work still
    # runs; compiling raises ImportError saying what is missing.
    import os
    import shutil
    import subprocess
    import sys
    pkg = os.path.dirname(cuda.__file__)
    shutil.copytree(pkg, tmp_path / "pycuda_jit",
                    ignore=shutil.ignore_patterns("libpcj_codegen.so", "__pycache__"))
    code = (
        "import warnings\n"
        "warnings.simplefilter('ignore')\n"
        "import numpy as np\n"
        "from pycuda_jit import cuda\n"
        "assert (cuda.to_device(np.arange(3.0)).copy_to_host() == [0, 1, 2]).all()\n"
        "try:\n"
        "    cuda.compile_ptx(lambda x: None, 'void(float32[:])')\n"
        "except ImportError as e:\n"
        "    print('ImportError:', e)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("ImportError: pycuda_jit: cannot load the code generator")
    assert "libpcj_codegen.so" in p.stdout
