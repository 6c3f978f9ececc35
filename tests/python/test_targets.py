"""Every GPU architecture the code generator compiles for natively: the
kernels below compile with compile_ptx for each and ptxas assembles the PTX
(no GPU needed); a cc newer than the tables gets the newest architecture's
PTX (the JIT fallback); PYCUDA_JIT_NEWEST_CC forces that fallback; arch-
specific targets only when asked (support/GpuTargets.h)."""
import os
import re
import shutil
import subprocess

import pytest

from pycuda_jit import _core, cuda, errors

ARCHS = [(7, 5), (8, 0), (8, 6), (8, 9), (9, 0), (10, 0), (10, 3), (11, 0),
         (12, 0), (12, 1)]


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def block_sum(x, out):
    buf = cuda.shared.array(256, "float32")
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    s = 128
    while s >= 32:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    v = buf[t]
    for k in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, k)
    if t == 0:
        cuda.atomic.add(out, 0, v)
    if cuda.syncthreads_or(v > 1e30):
        out[1] = v


def histogram(data, hist):
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(hist, data[i] % hist.size, 1)


KERNELS = [
    (saxpy, "void(float32, float32[::1], float32[::1], float32[::1])"),
    (block_sum, "void(float32[::1], float32[::1])"),
    (histogram, "void(int64[::1], uint32[::1])"),
]


def ptxas():
    for p in (os.environ.get("CUDA_HOME", "") + "/bin/ptxas", "/usr/local/cuda/bin/ptxas"):
        if os.path.isfile(p):
            return p
    return shutil.which("ptxas")


def assemble(ptx, arch, tmp_path):
    exe = ptxas()
    if not exe:
        pytest.skip("ptxas not found (CUDA toolkit)")
    src = tmp_path / f"k_{arch}.ptx"
    src.write_text(ptx)
    r = subprocess.run([exe, f"-arch={arch}", str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def needs_cuda13():
    # The native list is CUDA 13's; an older nvJitLink knows fewer.
    exe = ptxas()
    if exe:
        v = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
        if "release 12." in v:
            pytest.skip("ptxas of CUDA 12 (the architecture list is CUDA 13's)")


@pytest.mark.parametrize("cc", ARCHS, ids=lambda c: f"sm_{c[0]}{c[1]}")
def test_every_native_arch_compiles_and_assembles(cc, tmp_path):
    needs_cuda13()
    arch = f"sm_{cc[0]}{cc[1]}"
    assert _core.gpu_target(*cc)[1] == f"native {arch}"
    for fn, sig in KERNELS:
        ptx, _ = cuda.compile_ptx(fn, sig, cc=cc)
        assert f".target {arch}\n" in ptx, ptx[:400]
        version = re.search(r"^\.version (\d+)\.(\d+)", ptx, re.M)
        assert (8, 0) > (int(version[1]), int(version[2])) or cc >= (9, 0) or \
            (int(version[1]), int(version[2])) == (7, 8)
        assert (int(version[1]), int(version[2])) <= (9, 0)
        assemble(ptx, arch, tmp_path)


def test_newer_gpu_gets_newest_known_ptx(tmp_path):
    needs_cuda13()
    target = _core.gpu_target(12, 5)
    assert target[:3] == ("sm_121", "sm_121 PTX JIT-compiled for sm_125", True)
    ptx, _ = cuda.compile_ptx(saxpy, KERNELS[0][1], cc=(12, 5))
    assert ".target sm_121\n" in ptx
    # what the JIT gets: plain sm_121 PTX, which compiles for any newer GPU
    assemble(ptx, "sm_121", tmp_path)


def test_newest_cc_forces_the_fallback(monkeypatch, tmp_path):
    monkeypatch.setenv("PYCUDA_JIT_NEWEST_CC", "8.0")
    assert _core.gpu_target(9, 0)[1] == "sm_80 PTX JIT-compiled for sm_90"
    ptx, _ = cuda.compile_ptx(saxpy, KERNELS[0][1], cc=(9, 0))
    assert ".target sm_80\n" in ptx
    assemble(ptx, "sm_90", tmp_path)  # sm_80 PTX assembled for the sm_90 GPU
    monkeypatch.setenv("PYCUDA_JIT_NEWEST_CC", "eight")
    with pytest.raises(errors.BackendError, match="PYCUDA_JIT_NEWEST_CC"):
        _core.gpu_target(9, 0)


def test_inspect_asm_follows_the_fallback(monkeypatch):
    import numpy as np
    k = cuda.jit(saxpy)
    x = np.arange(4, dtype=np.float32)
    out = np.full(4, np.nan, np.float32)
    k[1, 4](np.float32(2), x, x, out)
    np.testing.assert_array_equal(out, 3 * x)
    [sig] = k.signatures
    if cuda.backend() == "cpu":
        assert k.stats["target"] == "cpu"
    else:
        assert k.stats["target"].startswith("native sm_")
    monkeypatch.setenv("PYCUDA_JIT_NEWEST_CC", "8.0")
    assert ".target sm_80\n" in k.inspect_asm(sig, cc=(9, 0))
    monkeypatch.delenv("PYCUDA_JIT_NEWEST_CC")
    assert ".target sm_90\n" in k.inspect_asm(sig, cc=(9, 0))


def test_arch_specific_only_when_asked(tmp_path):
    needs_cuda13()
    ptx, _ = cuda.compile_ptx(saxpy, KERNELS[0][1], cc=(9, 0, "a"))
    assert ".target sm_90a\n" in ptx
    assemble(ptx, "sm_90a", tmp_path)
    ptx, _ = cuda.compile_ptx(saxpy, KERNELS[0][1], cc=(10, 0, "f"))
    assert ".target sm_100f\n" in ptx
    assert ".target sm_90\n" in cuda.compile_ptx(saxpy, KERNELS[0][1], cc=(9, 0))[0]
    with pytest.raises(errors.BackendError, match="sm_80a"):
        cuda.compile_ptx(saxpy, KERNELS[0][1], cc=(8, 0, "a"))
    with pytest.raises(errors.BackendError, match="suffix"):
        cuda.compile_ptx(saxpy, KERNELS[0][1], cc=(9, 0, "x"))


def test_volta_is_refused_with_cuda13():
    needs_cuda13()
    with pytest.raises(errors.BackendError, match="CUDA 12"):
        cuda.compile_ptx(saxpy, KERNELS[0][1], cc=(7, 0))
