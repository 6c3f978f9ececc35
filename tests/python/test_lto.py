"""Link-time optimization without a GPU: cuda.compile(output="ltoir") gives
libNVVM's LTO-IR (through the NVVM IR writer), and a kernel's LTO-IR linked
with CUDA C++ by nvJitLink -lto has the foreign function inlined (no CALL in
its SASS), while the PTX link keeps the call.  The values are checked in
tests/kernels/test_ffi_lto.py."""
import re

import pytest

from pycuda_jit import cuda, errors, float32, int32
from pycuda_jit._lazy import core

LTOIR_MAGIC = 0x7F4E43ED  # the first word of an LTO-IR file


def _have(piece):
    return any(r["piece"] == piece and r["path"] for r in core().toolkit_report())


needs_nvvm = pytest.mark.skipif(not _have("libNVVM"), reason="libNVVM not found")
needs_link = pytest.mark.skipif(not (_have("nvJitLink") and _have("NVRTC")),
                                reason="nvJitLink / NVRTC not found")

STEP = cuda.CUSource("""
extern "C" __device__ int lto_step(float *out, float v, float a, float b)
{
  *out = v * a + b;
  return 0;
}
""", name="lto_step.cu")
lto_step = cuda.declare_device("lto_step", "float32(float32, float32, float32)", link=STEP)


def chain(out, iters, a, b):
    i = cuda.grid(1)
    if i < out.size:
        v = out[i]
        for _ in range(iters):
            v = lto_step(v, a, b)
        out[i] = v


CHAIN_SIG = "void(float32[::1], int64, float32, float32)"


def add(x, y):
    return x + y


@needs_nvvm
def test_compile_to_ltoir_gives_lto_ir_bytes():
    code, resty = cuda.compile(add, int32(int32, int32), output="ltoir")
    assert isinstance(code, bytes) and resty is int32
    assert int.from_bytes(code[:4], "little") == LTOIR_MAGIC
    codes, resty = cuda.compile_all(add, int32(int32, int32))  # ltoir by default
    assert int.from_bytes(codes[0][:4], "little") == LTOIR_MAGIC and resty is int32


@needs_nvvm
def test_forceinline_changes_the_ltoir():
    sig = int32(int32, int32)
    plain, _ = cuda.compile(add, sig, output="ltoir")
    forced, _ = cuda.compile(add, sig, output="ltoir", forceinline=True)
    assert plain != forced
    with pytest.raises(ValueError, match="Can only designate forced inlining in LTO-IR"):
        cuda.compile(add, sig, forceinline=True)


def _calls(sass):
    return re.findall(r"^\s*/\*[0-9a-f]+\*/\s+CALL\b.*$", sass, re.M)


@needs_nvvm
@needs_link
def test_lto_inlines_the_cuda_function_and_the_ptx_link_calls_it():
    from pycuda_jit.profiling import disassemble
    ptx, _ = cuda.compile_ptx(chain, CHAIN_SIG)
    ltoir, _ = cuda.compile(chain, CHAIN_SIG, device=False, abi="numba", output="ltoir")
    assert int.from_bytes(ltoir[:4], "little") == LTOIR_MAGIC
    try:
        plain = disassemble(cuda.link_ptx(ptx, link=[STEP]))
    except errors.ToolNotFoundError as e:
        pytest.skip(str(e).splitlines()[0])
    lto = disassemble(cuda.link_ptx(ltoir, link=[STEP]))
    assert _calls(plain), plain      # the PTX link: a real call
    assert "lto_step" in plain
    assert not _calls(lto), lto      # LTO: inlined, no call left
    assert "FFMA" in lto             # v * a + b, fused, in the kernel


@needs_nvvm
def test_ltoir_of_an_inexpressible_function_is_a_clear_error():
    # bfloat16 has no LLVM 7 type: a CompileError naming it, not bad IR.
    from pycuda_jit import types

    def bf(x, y):
        return x + y

    with pytest.raises(errors.CompileError, match="NVVM IR.*cannot express.*bfloat"):
        cuda.compile(bf, types.bfloat16(types.bfloat16, types.bfloat16), output="ltoir")
