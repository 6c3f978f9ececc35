"""Tooling the README promises: inspect_* after a disk-cache hit and on the
CPU executor, PYCUDA_JIT_DUMP naming only real stages, and
PYCUDA_JIT_TIMING on every compile path."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pycuda_jit import cuda

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_script(tmp_path, body, **env):
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(body))
    full = {**os.environ, "PYTHONPATH": ROOT, "PYTHONDONTWRITEBYTECODE": "1", **env}
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       env=full, cwd=tmp_path)
    return p


INSPECTING = """
    import json, warnings
    warnings.simplefilter("ignore")
    import numpy as np
    from pycuda_jit import cuda

    @cuda.jit(cache=True)
    def scale(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * 3.0 + i

    x = np.arange(16.0)
    out = np.full(16, np.nan)
    scale[1, 16](x, out)
    assert (out == x * 3.0 + np.arange(16)).all()
    print(json.dumps({"cache": scale.stats["cache"],
                      "llvm": scale.inspect_llvm(), "asm": scale.inspect_asm(),
                      "types": scale.inspect_types(),
                      "bytecode": scale.inspect_stage("bytecode")}))
"""


def test_inspect_after_a_cache_hit_gives_what_the_compile_gave(tmp_path):
    env = {"PYCUDA_JIT_CACHE_DIR": str(tmp_path / "cache")}
    first = run_script(tmp_path, INSPECTING, **env)
    assert first.returncode == 0, first.stderr
    second = run_script(tmp_path, INSPECTING, **env)
    assert second.returncode == 0, second.stderr
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    assert (a.pop("cache"), b.pop("cache")) == ("miss", "hit")
    assert a == b
    [sig] = a["asm"]
    assert ".entry" in a["asm"][sig] and "define" in a["llvm"][sig]
    assert "scale" in a["types"][sig] and a["bytecode"][sig]


def kernel_without_inputs(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = i * 2.0


def test_inspect_asm_gives_ptx_on_any_backend():
    k = cuda.jit(kernel_without_inputs)
    out = np.full(8, np.nan)
    k[1, 8](out)
    np.testing.assert_array_equal(out, np.arange(8) * 2.0)
    [sig] = k.signatures
    for cc in [(8, 0), (9, 0)]:
        ptx = k.inspect_asm(sig, cc=cc)
        assert f".target sm_{cc[0]}{cc[1]}" in ptx
        want, _ = cuda.compile_ptx(kernel_without_inputs, "void(float64[::1])", cc=cc)
        assert ptx == want
    default = k.inspect_asm(sig)
    if cuda.backend() == "cpu":  # the CPU executor's default target
        assert default == k.inspect_asm(sig, cc=(9, 0))
    assert ".entry" in default
    assert k.inspect_stage("ptx", cc=(8, 0)) == {sig: k.inspect_asm(sig, cc=(8, 0))}
    with pytest.raises(ValueError, match="cc must be"):
        k.inspect_asm(sig, cc=(9,))


def test_inspect_stage_names_the_stages():
    k = cuda.jit(kernel_without_inputs)
    k[1, 8](np.zeros(8))
    with pytest.raises(ValueError, match="unknown stage 'asm'; the stages are bytecode, cfg"):
        k.inspect_stage("asm")
    with pytest.raises(ValueError, match="unknown stage 'optimized'"):
        cuda.compile_stages(kernel_without_inputs, "void(float64[:])", stages=["optimized"])


def test_unknown_stage_in_pycuda_jit_dump_is_an_error(tmp_path):
    p = run_script(tmp_path, """
        import warnings
        warnings.simplefilter("ignore")
        import numpy as np
        from pycuda_jit import cuda

        @cuda.jit
        def k(out):
            out[0] = 1.0

        try:
            k[1, 1](np.zeros(1))
        except ValueError as e:
            print("ValueError:", e)
        """, PYCUDA_JIT_DUMP="typed,asm")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(
        "ValueError: PYCUDA_JIT_DUMP names an unknown stage 'asm'; the stages are "
        "bytecode, cfg, ir, typed, llvm, llvm-opt, nvvm, ptx (or all)")


def test_dumps_print_after_a_cache_hit_too(tmp_path):
    env = {"PYCUDA_JIT_CACHE_DIR": str(tmp_path / "cache"), "PYCUDA_JIT_DUMP": "typed"}
    for expect in ("miss", "hit"):
        p = run_script(tmp_path, INSPECTING, **env)
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stdout)["cache"] == expect
        assert p.stderr.count("---- pycuda_jit typed: ") == 1, p.stderr


TIMED = """
    import json, warnings
    warnings.simplefilter("ignore")
    import numpy as np
    from pycuda_jit import cuda

    @cuda.jit(device=True)
    def twice(v):
        return v * 2.0

    @cuda.jit(cache=True)
    def lazy(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = twice(i)

    @cuda.jit("void(float32[:])")
    def eager(out):
        out[0] = 1.0

    def plain(out):
        out[0] = 2.0

    out = np.zeros(4)
    lazy[1, 4](out)
    assert (out == [0, 2, 4, 6]).all()
    cuda.compile_ptx(plain, "void(float64[:])")
    cuda.compile_stages(plain, "void(int32[:])", stages=["ptx"])
    print(json.dumps({"lazy": lazy.stats["timings_ms"], "cache": lazy.stats["cache"],
                      "eager": eager.stats["timings_ms"]}))
"""

STAGES = ["decode", "cfg", "ssa", "typeinfer", "transforms"]


def timing_lines(stderr):
    return [ln for ln in stderr.splitlines() if ln.startswith("pycuda_jit timing ")]


def test_timing_reports_every_compile_path(tmp_path):
    env = {"PYCUDA_JIT_CACHE_DIR": str(tmp_path / "cache"), "PYCUDA_JIT_TIMING": "1"}
    first = run_script(tmp_path, TIMED, **env)
    assert first.returncode == 0, first.stderr
    lines = timing_lines(first.stderr)
    # One line per compile, naming the kernel's signature and how it compiled;
    # an eager signature's line comes when its background compile is
    # finished, at its first use (eager.stats).
    want = [("(array(float64, 1d, C)) -> none", "[compile]"),     # first call
            ("(array(float64, 1d, A)) -> none", "[compile_ptx]"),
            ("(array(int32, 1d, A)) -> none", "[compile_ptx]"),   # compile_stages
            ("(array(float32, 1d, A)) -> none", "[compile]")]     # eager signature
    assert len(lines) == len(want), first.stderr
    for line, (sig, how) in zip(lines, want):
        assert f" {sig} {how}:" in line, line
        for stage in STAGES + ["lower", "codegen", "total"]:
            assert f" {stage}=" in line, line
    stats = json.loads(first.stdout)
    assert stats["cache"] == "miss"
    assert set(STAGES + ["lower", "codegen"]) <= set(stats["lazy"])
    assert set(STAGES + ["lower", "codegen"]) <= set(stats["eager"])

    second = run_script(tmp_path, TIMED, **env)  # the lazy kernel from the disk cache
    assert second.returncode == 0, second.stderr
    stats = json.loads(second.stdout)
    assert stats["cache"] == "hit"
    assert set(STAGES + ["cache.load"]) <= set(stats["lazy"])
    hits = [ln for ln in timing_lines(second.stderr) if "[cache hit]" in ln]
    assert len(hits) == 1 and "(array(float64, 1d, C)) -> none" in hits[0], second.stderr
    assert " cache.load=" in hits[0] and " decode=" in hits[0]


PASSES = """
    import hashlib
    import numpy as np
    from pycuda_jit import cuda

    def scale(out, k):
        for i in range(out.size):
            out[i] = out[i] * k + 1.0

    @cuda.jit
    def launched(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = i * 3.0

    ptx, _ = cuda.compile_ptx(scale, "void(float32[:], float32)", cc=(9, 0))
    out = np.full(8, np.nan)
    launched[1, 8](out)
    assert (out == np.arange(8) * 3.0).all(), out
    print(hashlib.sha256(ptx.encode()).hexdigest())
"""

# Eight eager kernels, each with its own closure constant, compiled at once
# on the pool; every result checked.
PASSES_POOL = """
    import numpy as np
    from pycuda_jit import cuda

    def make(c):
        @cuda.jit("void(float64[:])")
        def k(out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = i * c + 0.5
        return k

    kernels = [make(float(c)) for c in range(8)]
    for c, k in enumerate(kernels):
        out = np.full(16, np.nan)
        k[1, 16](out)
        assert (out == np.arange(16) * c + 0.5).all(), (c, out)
"""


def test_timing_passes_reports_each_optimisation_pass(tmp_path):
    # PYCUDA_JIT_TIMING=passes: the stage lines as with 1, and one line per
    # code generation (the GPU's and the executor's) with each pass's self
    # time, costliest first, summing to the line's total.
    p = run_script(tmp_path, PASSES, PYCUDA_JIT_TIMING="passes",
                   PYCUDA_JIT_CACHE_DIR=str(tmp_path / "cache"))
    assert p.returncode == 0, p.stderr
    assert len(timing_lines(p.stderr)) == 2, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("pycuda_jit passes [")]
    assert len(lines) == 2, p.stderr
    assert lines[0].startswith("pycuda_jit passes [scale"), lines[0]
    assert lines[1].startswith("pycuda_jit passes [launched"), lines[1]
    for line in lines:
        shown, _, rest = line.split("]: ", 1)[1].partition(" (+")
        items = shown.split()
        assert items[0].startswith("total=") and items[0].endswith("ms"), line
        total = float(items[0][len("total="):-2])
        times = {}
        for item in items[1:]:
            name, _, ms = item.rpartition("=")
            times[name] = float(ms)
        # "(+N more MS)": the names under 0.005 ms, counted and summed.
        more = float(rest.rstrip(")").split(" more ")[1]) if rest else 0.0
        assert "InstCombinePass" in times and "SimplifyCFGPass" in times, line
        assert any(n.startswith("analysis:") for n in times), line
        ordered = list(times.values())
        assert ordered == sorted(ordered, reverse=True), line
        assert min(ordered) >= 0.005, line
        assert abs(sum(ordered) + more - total) <= 0.005 * len(ordered) + 0.01, line
    # PYCUDA_JIT_TIMING=1 prints no pass lines; the PTX is the same.
    q = run_script(tmp_path, PASSES, PYCUDA_JIT_TIMING="1",
                   PYCUDA_JIT_CACHE_DIR=str(tmp_path / "cache2"))
    assert q.returncode == 0, q.stderr
    assert len(timing_lines(q.stderr)) == 2, q.stderr
    assert "pycuda_jit passes" not in q.stderr
    assert q.stdout == p.stdout and len(p.stdout.strip()) == 64


def test_timing_passes_on_the_compile_pool(tmp_path):
    # Compiles on several pool threads each time their own passes: one
    # whole line per kernel, none mixed into another.
    p = run_script(tmp_path, PASSES_POOL, PYCUDA_JIT_TIMING="passes",
                   PYCUDA_JIT_COMPILE_THREADS="4",
                   PYCUDA_JIT_CACHE_DIR=str(tmp_path / "cache"))
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("pycuda_jit passes [")]
    assert len(lines) == 8, p.stderr
    for line in lines:
        assert line.count(" InstCombinePass=") == 1, line
        assert line.count("pycuda_jit") == 1, line
