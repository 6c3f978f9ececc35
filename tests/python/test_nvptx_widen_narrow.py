"""int8/int16 on NVPTX (codegen/WidenNarrowInts.cpp): abs is always done on
a 32-bit register (ptxas mistranslated abs.s16 + cvt.s64.s16 on the H200);
PYCUDA_JIT_NVPTX_WIDEN_NARROW=1 does the same for + - * <<, re-sign-extending
each result with cvt.s32.s16, in case the GPU shows more 16-bit operations
wrong.  Compile-only: no GPU needed."""
import re

import pytest

from pycuda_jit import cuda

SIG = "void(int16[::1], int16[::1], int64[::1])"


def ops(a, b, w):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        w[i] = abs(x) + (x + y) * (x - y) + (x << y)


def ptx():
    return cuda.compile_ptx(ops, SIG, cc=(9, 0))[0]


def narrow_ops(text):
    return set(re.findall(r"\b(abs|add|sub|mul\.lo|neg|shl)\.[sb]16\b", text))


def test_abs_is_never_16_bit(monkeypatch):
    monkeypatch.delenv("PYCUDA_JIT_NVPTX_WIDEN_NARROW", raising=False)
    text = ptx()
    assert "abs.s32" in text
    assert "abs" not in narrow_ops(text)
    assert {"add", "sub"} <= narrow_ops(text)  # the rest stays 16-bit


def test_switch_widens_the_arithmetic(monkeypatch):
    monkeypatch.setenv("PYCUDA_JIT_NVPTX_WIDEN_NARROW", "1")
    text = ptx()
    assert narrow_ops(text) == set(), narrow_ops(text)
    assert "cvt.s32.s16" in text
    cubin = cuda.link_ptx(text, cc=(9, 0))  # ptxas accepts the asm
    assert cubin[:4] == b"\x7fELF"
    monkeypatch.setenv("PYCUDA_JIT_NVPTX_WIDEN_NARROW", "yes")
    with pytest.raises(ValueError, match="PYCUDA_JIT_NVPTX_WIDEN_NARROW must be 0 or 1"):
        ptx()
