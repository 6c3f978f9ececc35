"""Tools around the JIT: the `pycuda_jit` logger, inspect_sass() when no
disassembler can be found, dir(cuda)."""
import logging
import sys

import numpy as np
import pytest

from pycuda_jit import _log, cuda


def make_kernel():
    # A new function each time: a new dispatcher, so a new compile.
    def add_one(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += 1
    return cuda.jit(add_one)


def test_every_compile_is_logged_at_debug(caplog):
    k = make_kernel()
    with caplog.at_level(logging.DEBUG, logger="pycuda_jit"):
        k.compile("void(float32[::1])")
    recs = [r for r in caplog.records if r.name == "pycuda_jit"]
    assert len(recs) == 1
    msg = recs[0].getMessage()
    assert recs[0].levelno == logging.DEBUG
    assert "compiled make_kernel.<locals>.add_one" in msg and __file__ in msg
    assert "float32" in msg and " ms " in msg
    assert "longer than a second" not in msg


def test_slow_compile_is_logged_at_info(caplog, monkeypatch):
    monkeypatch.setattr(_log, "SLOW_COMPILE_MS", 0.0)
    k = make_kernel()
    with caplog.at_level(logging.INFO, logger="pycuda_jit"):
        k.compile("void(int32[::1])")
    recs = [r for r in caplog.records if r.name == "pycuda_jit"]
    assert [r.levelno for r in recs] == [logging.INFO]
    assert "longer than a second" in recs[0].getMessage()


def test_nothing_is_formatted_when_the_logger_is_quiet(caplog, monkeypatch):
    calls = []
    monkeypatch.setattr(_log.logger, "log", lambda *a, **k: calls.append(a))
    with caplog.at_level(logging.WARNING, logger="pycuda_jit"):
        make_kernel().compile("void(int64[::1])")
    assert calls == []


def test_a_failing_log_hook_does_not_fail_the_compile(monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_value))

    def boom(*args):
        raise ValueError("handler bug")
    monkeypatch.setattr(_log, "compiled", boom)
    k = make_kernel()
    k.compile("void(float64[::1])")
    assert len(k.signatures) == 1
    assert [str(e) for e in seen] == ["handler bug"]


def test_inspect_sass_without_a_disassembler_names_the_wheel(monkeypatch):
    from pycuda_jit._lazy import core
    report = {p["piece"]: p for p in core().toolkit_report()}
    if not report["nvJitLink"]["path"]:
        pytest.skip("nvJitLink is not installed here")
    monkeypatch.setenv("PYCUDA_JIT_NVDISASM", "/nonexistent/nvdisasm")
    monkeypatch.setenv("PYCUDA_JIT_CUOBJDUMP", "/nonexistent/cuobjdump")
    k = make_kernel()
    k.compile("void(float32[::1])")
    with pytest.raises(FileNotFoundError) as e:
        k.inspect_sass()
    assert "/nonexistent/nvdisasm" in str(e.value)
    assert "pip install nvidia-cuda-nvdisasm" in str(e.value)


def test_dir_lists_intrinsics_and_host_api():
    names = dir(cuda)
    for n in ("jit", "grid", "threadIdx", "shared", "local", "syncthreads", "atomic",
              "shfl_down_sync", "fp16",
              "to_device", "profile_start", "profiling"):
        assert n in names, n
