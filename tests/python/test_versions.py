"""cuda.is_supported_version() and cuda.cuda_error() (pycuda_jit/_versions.py):
their answers for the toolkit and driver found here, and for reports of
unsupported versions and failed backends."""
import pytest

from pycuda_jit import _versions, cuda, errors
from pycuda_jit._lazy import core


class _FakeCore:
    def __init__(self, nvjitlink="13.0", driver_loaded=True, driver_version=13000,
                 backend=("cuda", ""), backend_raises=None):
        self.nvjitlink, self.backend_raises = nvjitlink, backend_raises
        self.driver = {"loaded": driver_loaded, "version": driver_version}
        self._backend = backend

    def toolkit_report(self):
        return [{"piece": "libdevice", "version": ""},
                {"piece": "nvJitLink", "version": self.nvjitlink}]

    def driver_report(self):
        return self.driver

    def backend(self):
        if self.backend_raises:
            raise self.backend_raises
        return self._backend


def _nvjitlink_version():
    for p in core().toolkit_report():
        if p["piece"] == "nvJitLink":
            return p["version"]
    return ""


def test_is_supported_version_here():
    version = _nvjitlink_version()
    if not version:
        pytest.skip("no nvJitLink found on this machine")
    assert cuda.is_supported_version() is (int(version.split(".")[0]) in (12, 13))


@pytest.mark.parametrize("nvjitlink, loaded, driver, expected", [
    ("13.0", True, 13000, True),
    ("12.4", False, 0, True),       # no driver loaded: the toolkit decides
    ("12.9", True, 12080, True),
    ("11.8", True, 13000, False),   # toolkit too old
    ("14.1", True, 14010, False),   # a major not known to work
    ("", True, 13000, False),       # nvJitLink missing
    ("13.0", True, 11080, False),   # driver older than CUDA 12
])
def test_is_supported_version_cases(monkeypatch, nvjitlink, loaded, driver, expected):
    monkeypatch.setattr(_versions, "core", lambda: _FakeCore(nvjitlink, loaded, driver))
    assert cuda.is_supported_version() is expected


def test_cuda_error_none_when_the_backend_came_up(monkeypatch):
    monkeypatch.setattr(_versions, "core", lambda: _FakeCore(backend=("cuda", "")))
    assert cuda.cuda_error() is None
    monkeypatch.setattr(_versions, "core", lambda: _FakeCore(backend=("cpu", "")))
    assert cuda.cuda_error() is None


def test_cuda_error_says_why_the_gpu_is_not_used(monkeypatch):
    monkeypatch.setattr(_versions, "core", lambda: _FakeCore(
        backend=("cpu", "no CUDA driver (libcuda.so.1 not found)")))
    e = cuda.cuda_error()
    assert isinstance(e, errors.CudaSupportError)
    assert "libcuda.so.1 not found" in str(e)
    monkeypatch.setattr(_versions, "core", lambda: _FakeCore(
        backend_raises=RuntimeError("PYCUDA_JIT_BACKEND=cuda but no GPU")))
    e = cuda.cuda_error()
    assert isinstance(e, errors.CudaSupportError) and "no GPU" in str(e)


def test_cuda_error_in_this_process():
    name, reason = core().backend()
    e = cuda.cuda_error()
    assert (e is None) == (not reason)
