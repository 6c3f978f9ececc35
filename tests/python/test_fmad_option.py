"""The fmad option (floating-point contraction, docs/language.md): how it
reaches compile_ptx / compile_stages / cuda.jit, PYCUDA_JIT_FMAD, and the
combinations that are refused.  Compile-only: no GPU needed."""
import pytest

from pycuda_jit import cuda

SIG = "void(float32[::1], float32[::1], float32[::1], float32[::1])"


def muladd(x, y, z, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * y[i] + z[i]


def ptx(**options):
    return cuda.compile_ptx(muladd, SIG, **options)[0]


def test_default_fuses_and_fmad_false_does_not():
    on = ptx()
    assert "fma.rn.f32" in on and "add.rn" not in on
    off = ptx(fmad=False)
    assert "fma" not in off
    assert "mul.rn.f32" in off and "add.rn.f32" in off


def test_compile_stages_shows_the_decision():
    stages = ("llvm", "llvm-opt", "ptx")
    on = cuda.compile_stages(muladd, SIG, stages=stages)
    assert "fmul contract float" in on["llvm"]       # lowering marks it
    assert "@llvm.fma.f32" in on["llvm-opt"]         # FuseMultiplyAdd decided
    assert "contract" not in on["llvm-opt"]          # nothing left for the backend
    off = cuda.compile_stages(muladd, SIG, stages=stages, fmad=False)
    assert "contract" not in off["llvm"]
    assert "llvm.fma" not in off["llvm-opt"]


def test_fastmath_keeps_contraction():
    fast = ptx(fastmath=True)
    assert "fma.rn.ftz.f32" in fast
    assert "fma.rn.f32" in ptx(fastmath={"contract"})
    # A fastmath set without "contract" combines with fmad=False.
    assert "fma" not in ptx(fastmath={"afn", "arcp"}, fmad=False)


@pytest.mark.parametrize("fastmath", [True, {"contract"}, {"fast"}])
def test_fmad_false_contradicts_fastmath_contraction(fastmath):
    with pytest.raises(ValueError, match="fmad=False contradicts fastmath"):
        ptx(fastmath=fastmath, fmad=False)
    with pytest.raises(ValueError, match="fmad=False contradicts fastmath"):
        cuda.jit(fastmath=fastmath, fmad=False)(muladd)


def test_environment_sets_the_default(monkeypatch):
    monkeypatch.setenv("PYCUDA_JIT_FMAD", "0")
    assert "fma" not in ptx()
    assert "fma.rn.f32" in ptx(fmad=True)        # an explicit option wins
    assert "fma.rn.ftz.f32" in ptx(fastmath=True)  # fastmath implies contraction
    stages = cuda.compile_stages(muladd, SIG, stages=("llvm",))
    assert "contract" not in stages["llvm"]
    monkeypatch.setenv("PYCUDA_JIT_FMAD", "1")
    assert "fma.rn.f32" in ptx()
    assert "fma" not in ptx(fmad=False)
    monkeypatch.setenv("PYCUDA_JIT_FMAD", "no")
    with pytest.raises(ValueError, match="PYCUDA_JIT_FMAD must be 0 or 1, not 'no'"):
        ptx()
    with pytest.raises(ValueError, match="PYCUDA_JIT_FMAD"):
        cuda.jit(muladd)
