"""python -m pycuda_jit info / compile, in child processes with controlled
environments."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KERNEL_SRC = """\
import math
from pycuda_jit import cuda

@cuda.jit
def scale(x, a):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = math.exp(x[i]) * a

@cuda.jit("void(int32[::1])")
def eager(x):
    x[0] = 1

def plain(x):
    x[0] += 1

@cuda.jit(device=True)
def helper(a):
    return a

@cuda.jit
def broken(x):
    x[0] = undefined_name
"""


def run(*args, env=None, cwd=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("PYCUDA_JIT_")}
    e["PYTHONPATH"] = ROOT
    e["PYCUDA_JIT_BACKEND"] = "cpu"
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "pycuda_jit", *args], capture_output=True,
                          text=True, env=e, cwd=cwd or ROOT, timeout=300)


def info_json(**env):
    r = run("info", "--json", env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_info_sections_and_versions():
    import pycuda_jit
    r = info_json()
    for key in ("pycuda_jit", "python", "toolkit", "driver", "gpus", "backend", "cache",
                "profiling", "environment"):
        assert key in r
    assert r["pycuda_jit"]["version"] == pycuda_jit.__version__
    assert r["pycuda_jit"]["build_id"].startswith(f"pycuda_jit-{pycuda_jit.__version__}/")
    assert r["python"]["version"] == ".".join(map(str, sys.version_info[:3]))
    assert r["backend"] == {"name": "cpu", "reason": "", "requested": "cpu"}
    assert r["environment"] == {"PYCUDA_JIT_BACKEND": "cpu"}
    names = [p["piece"] for p in r["toolkit"]["pieces"]]
    assert names == ["nvJitLink", "libdevice", "NVRTC", "libNVVM", "nvdisasm", "cuobjdump"]


def test_info_names_the_gpu_targets():
    # The newest native architecture: sm_121 with a CUDA 13 nvJitLink (or
    # none); PYCUDA_JIT_NEWEST_CC lowers it, which a GPU above it runs as PTX.
    r = info_json(PYCUDA_JIT_NEWEST_CC="8.6")
    assert r["gpu_targets"] == {"newest_native": "sm_86",
                                "newer_gpus": "sm_86 PTX JIT-compiled for the GPU"}
    text = run("info", env={"PYCUDA_JIT_NEWEST_CC": "8.0"}).stdout
    assert "native up to sm_80; newer GPUs: sm_80 PTX JIT-compiled" in text


def test_info_reports_overrides_and_missing_pieces(tmp_path):
    fake = tmp_path / "libdevice.10.bc"
    fake.write_bytes(b"BC")
    r = info_json(PYCUDA_JIT_LIBDEVICE=str(fake),
                  PYCUDA_JIT_NVJITLINK="/nonexistent/libnvJitLink.so.13",
                  PYCUDA_JIT_NVDISASM=str(tmp_path / "no-nvdisasm"))
    p = {x["piece"]: x for x in r["toolkit"]["pieces"]}
    assert (p["libdevice"]["path"], p["libdevice"]["origin"]) == (str(fake), "PYCUDA_JIT_LIBDEVICE")
    assert p["nvJitLink"]["path"] == ""
    assert "/nonexistent/libnvJitLink.so.13: no such file" in p["nvJitLink"]["error"]
    assert p["nvdisasm"]["path"] == ""
    assert p["nvdisasm"]["candidates"] == [f"{tmp_path / 'no-nvdisasm'}  [PYCUDA_JIT_NVDISASM]"]
    text = run("info", env={"PYCUDA_JIT_NVJITLINK": "/nonexistent/libnvJitLink.so.13"}).stdout
    assert "nvJitLink" in text and "NOT FOUND: install it with `pip install nvidia-nvjitlink`" in text


def test_info_cache_section_counts_entries(tmp_path):
    r = info_json(PYCUDA_JIT_CACHE_DIR=str(tmp_path / "none-yet"))
    assert r["cache"]["directory"] == str(tmp_path / "none-yet")
    assert (r["cache"]["entries"], r["cache"]["bytes"]) == (0, 0)


def test_info_never_fails_on_a_bad_setting():
    r = run("info", env={"PYCUDA_JIT_BACKEND": "gpu-please"})
    assert r.returncode == 0, r.stderr
    assert "PYCUDA_JIT_BACKEND must be cuda, cpu or auto" in r.stdout


def test_info_without_cuda_driver_says_why():
    r = info_json(PYCUDA_JIT_LIBCUDA="/nonexistent/libcuda.so.1")
    assert r["driver"]["available"] is False
    assert "/nonexistent/libcuda.so.1" in r["driver"]["error"]
    assert r["gpus"] == [] or "error" in r["gpus"]


@pytest.fixture
def kernel_file(tmp_path):
    f = tmp_path / "kernels.py"
    f.write_text(KERNEL_SRC)
    return f


def test_compile_to_ptx_for_the_requested_cc(kernel_file, tmp_path):
    out = tmp_path / "scale.ptx"
    r = run("compile", f"{kernel_file}:scale", "--sig", "void(float32[::1], float32)",
            "--cc", "8.0", "-o", str(out))
    assert r.returncode == 0, r.stderr
    ptx = out.read_text()
    assert ".target sm_80" in ptx and ".entry" in ptx
    entry = r.stdout.split("entry point ")[1].strip()
    assert f".entry {entry}(" in ptx
    assert str(out) in r.stdout


def test_compile_uses_the_one_eager_signature_and_plain_functions(kernel_file, tmp_path):
    r = run("compile", f"{kernel_file}:eager", cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "eager.sm_90.ptx").read_text().count(".entry") == 1
    r = run("compile", f"{kernel_file}:plain", "--sig", "void(int64[::1])", "--cc", "sm_75",
            "-o", str(tmp_path / "p.ptx"))
    assert r.returncode == 0, r.stderr
    assert ".target sm_75" in (tmp_path / "p.ptx").read_text()


def test_compile_to_cubin(kernel_file, tmp_path):
    r = run("info", "--json")
    jl = {p["piece"]: p for p in json.loads(r.stdout)["toolkit"]["pieces"]}["nvJitLink"]
    if not jl["path"]:
        pytest.skip("nvJitLink is not installed here")
    out = tmp_path / "scale.cubin"
    r = run("compile", f"{kernel_file}:scale", "--sig", "void(float64[::1], float64)",
            "--cc", "9.0", "-o", str(out))
    assert r.returncode == 0, r.stderr
    data = out.read_bytes()
    assert data[:4] == b"\x7fELF"
    e_flags = int.from_bytes(data[48:52], "little")
    assert e_flags & 0xFF == 90 or (e_flags >> 8) & 0xFF == 90


@pytest.mark.parametrize("args, message", [
    (["nofile.py:k"], "nofile.py: no such file"),
    (["{f}"], "expected FILE.py:KERNEL"),
    (["{f}:missing", "--sig", "void()"], "has no 'missing'"),
    (["{f}:scale"], "--sig is needed"),
    (["{f}:helper", "--sig", "int32(int32)"], "is a device function"),
    (["{f}:scale", "--sig", "void(float32[::1], float32)", "--cc", "nine"],
     "--cc must look like 9.0"),
    (["{f}:scale", "--sig", "void(float32[::1], float32)", "-o", "x.txt"],
     "-o must end in .ptx or .cubin"),
    (["{f}:broken", "--sig", "void(int32[::1])"], "undefined_name"),
])
def test_compile_errors_are_one_line_messages(kernel_file, tmp_path, args, message):
    args = [a.format(f=kernel_file) for a in args]
    r = run("compile", *args, cwd=str(tmp_path))
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert message in r.stderr
    assert "Traceback" not in r.stderr
