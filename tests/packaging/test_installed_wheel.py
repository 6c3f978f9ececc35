"""The installed wheel, as a user gets it: run by .ci/wheel inside a fresh
virtual environment that holds the repaired pycuda_jit wheel and NVIDIA's
CUDA 13 wheels (pycuda_jit[cu13]), with the system toolkit hidden
(PYCUDA_JIT_SYSTEM_CUDA=0, no CUDA_HOME, and /usr/local/cuda* covered by an
empty mount where the machine allows it).  Not collected by the in-tree
test runs (tests/conftest.py puts the source tree first on sys.path).

PCJ_EXPECT_GPU=1 (the H200 run) also launches a kernel on the GPU;
PCJ_WITHOUT_WHEELS names [cu13] wheels deliberately not installed there
(comma-separated distribution names).
"""
import json
import math
import os
import subprocess
import sys

from importlib import metadata

import numpy as np
import pytest

import pycuda_jit
from pycuda_jit import cuda

# Where pip put the distributions (site-packages, or a --target directory).
SITE = os.path.normpath(str(metadata.distribution("pycuda_jit").locate_file("")))
WITHOUT = {w for w in os.environ.get("PCJ_WITHOUT_WHEELS", "").split(",") if w}


def _run(*args, env=None, check=True):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=e)
    if check and r.returncode != 0:
        raise AssertionError(f"{args} exited {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r


def test_imported_from_the_environment_not_the_source_tree():
    here = os.path.dirname(os.path.abspath(pycuda_jit.__file__))
    assert here == os.path.join(SITE, "pycuda_jit")
    for f in ("_core.abi3.so", "libpcj_codegen.so"):
        assert os.path.exists(os.path.join(here, f)), f
    assert not os.path.exists(os.path.join(here, "_core_src"))


def test_version_is_the_distributions():
    from importlib.metadata import version
    assert pycuda_jit.__version__ == version("pycuda_jit")


def test_system_toolkit_is_hidden():
    assert os.environ.get("PYCUDA_JIT_SYSTEM_CUDA") == "0"
    assert "CUDA_HOME" not in os.environ and "CUDA_PATH" not in os.environ


def test_info_finds_every_piece_in_the_pip_wheels():
    r = json.loads(_run("-m", "pycuda_jit", "info", "--json").stdout)
    pieces = {p["piece"]: p for p in r["toolkit"]["pieces"]}
    wheels = {"nvJitLink": "nvidia-nvjitlink", "libdevice": "nvidia-nvvm",
              "NVRTC": "nvidia-cuda-nvrtc", "nvdisasm": "nvidia-cuda-nvdisasm",
              "cuobjdump": "nvidia-cuda-cuobjdump"}
    for piece, dist in wheels.items():
        p = pieces[piece]
        try:
            found = metadata.distribution(dist)
        except metadata.PackageNotFoundError:
            found = None
        if dist in WITHOUT and found is None:
            assert p["path"] == "" and "pip install " + dist in p["hint"], p
            continue
        # Installed (by this test's wheels, or already in the interpreter's
        # site-packages, as torch's CUDA wheels are on the H200 machine):
        # found where Python imports that distribution from.
        site = os.path.normpath(str(found.locate_file("")))
        assert p["origin"] == "pip " + dist, p
        assert p["path"].startswith(os.path.join(site, "nvidia", "cu13")), p
    assert pieces["nvJitLink"]["version"].startswith("13.")
    assert r["pycuda_jit"]["version"] == pycuda_jit.__version__
    text = _run("-m", "pycuda_jit", "info").stdout
    assert "pip nvidia-nvjitlink" in text and "Backend" in text


def _sines(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.sin(x[i]) * 2.0


def test_ptx_with_libdevice_and_a_cubin_from_the_wheels():
    ptx, _ = cuda.compile_ptx(_sines, "void(float32[::1], float32[::1])", cc=(9, 0))
    # Without libdevice (nvidia-nvvm) math.sin could not compile at all.
    assert ".entry" in ptx and "__nv_sinf" not in ptx
    cubin = cuda.link_ptx(ptx, cc=(9, 0))
    assert cubin[:4] == b"\x7fELF"


def test_kernel_runs(tmp_path):
    rng = np.random.default_rng(16)
    x = rng.standard_normal(1000).astype(np.float32)
    out = np.full_like(x, np.nan)
    k = cuda.jit(_sines)
    k[4, 256](x, out)
    np.testing.assert_allclose(out, np.sin(x) * 2, rtol=2e-6, atol=1e-6)
    if os.environ.get("PCJ_EXPECT_GPU") == "1":
        assert cuda.backend() == "cuda"
        # Linked by the pip wheel's nvJitLink, not left to the driver's JIT.
        assert k.stats["load_path"] != "driver-jit-ptx", k.stats


def test_compile_command_writes_ptx_and_cubin(tmp_path):
    src = tmp_path / "kern.py"
    src.write_text("from pycuda_jit import cuda\n"
                   "import math\n"
                   "@cuda.jit\n"
                   "def k(x):\n"
                   "    i = cuda.grid(1)\n"
                   "    if i < x.size:\n"
                   "        x[i] = math.exp(x[i])\n")
    for ext in ("ptx", "cubin"):
        out = tmp_path / f"k.{ext}"
        r = _run("-m", "pycuda_jit", "compile", f"{src}:k", "--sig",
                 "void(float64[::1])", "--cc", "9.0", "-o", str(out))
        assert "entry point" in r.stdout
        data = out.read_bytes()
        assert data.startswith(b"\x7fELF") if ext == "cubin" else b".entry" in data


def test_missing_piece_names_the_wheel_to_install():
    code = ("from pycuda_jit import cuda\nimport math\n"
            "def f(x):\n    x[0] = math.exp(x[0])\n"
            "cuda.compile_ptx(f, 'void(float64[::1])')\n")
    r = _run("-c", code, env={"PYCUDA_JIT_LIBDEVICE": "/nonexistent/libdevice.10.bc"},
             check=False)
    assert r.returncode != 0
    assert "BackendError" in r.stderr and "pip install nvidia-nvvm" in r.stderr, r.stderr


def test_inspect_sass_with_the_pip_nvdisasm():
    k = cuda.jit(_sines)
    k.compile("void(float32[::1], float32[::1])")
    (sig, sass), = k.inspect_sass(cc=(9, 0)).items()
    assert ".target\tsm_90" in sass
    assert "EXIT" in sass and "S2R" in sass  # SASS instructions, not PTX


EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "examples")


def _mypy(*paths):
    mypy = os.environ.get("PCJ_MYPY")
    if not mypy:
        pytest.fail("PCJ_MYPY (the mypy of .ci/requirements.txt) is not set; run through .ci/wheel")
    # The user's code against the installed stubs: errors inside the
    # package's own sources (followed from pycuda_jit/__init__.py) are not
    # the user's and are not reported.
    return subprocess.run([mypy, "--python-executable", sys.executable, "--check-untyped-defs",
                           "--follow-imports=silent", "--no-incremental", *paths],
                          capture_output=True, text=True)


def test_examples_typecheck_against_the_installed_stubs():
    r = _mypy(EXAMPLES)
    assert r.returncode == 0, r.stdout + r.stderr


def test_typecheck_sees_the_kernel_side_names(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from pycuda_jit import cuda\n"
                   "@cuda.jit\n"
                   "def k(x):\n"
                   "    i = cuda.grid(1)\n"
                   "    x[i] = cuda.threadIdx.w + cuda.atomic.add(x, 0, 1)\n"
                   "    cuda.syncthreadz()\n"
                   "    cuda.fp16.hadd(1, 2, 3)\n"
                   "ptx: int = cuda.compile_ptx(k.py_func, 'void(float32[:])')[0]\n")
    r = _mypy(str(bad))
    out = r.stdout
    assert r.returncode == 1, out
    assert '"_Dim3" has no attribute "w"' in out
    assert 'has no attribute "syncthreadz"' in out
    assert 'Too many arguments for "hadd"' in out
    assert 'expression has type "str", variable has type "int"' in out
    assert out.count("error:") == 4, out
