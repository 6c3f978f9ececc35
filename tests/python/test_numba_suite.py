"""The numba-suite runner (tests/numba_suite): its name table, the layer's
placeholders, the ledger check, and one end-to-end run of the runner over a
stand-in numba-cuda tree (no numba-cuda needed: a `numba_cuda` package laid
out like the wheel, whose test files import `numba.cuda` and get pycuda_jit
through the layer)."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITE = os.path.join(REPO, "tests", "numba_suite")
sys.path[:0] = [SUITE, os.path.join(SUITE, "boot")]

import classify  # noqa: E402
import ledger  # noqa: E402
import pcj_numba_layer as layer  # noqa: E402
import pcj_numba_names as names  # noqa: E402


def test_longest_prefix_wins():
    assert names.rule_for("numba.cuda.types.int32")[:2] == (names.OURS, "pycuda_jit.types")
    assert names.rule_for("numba.cuda.types.Type")[0] == names.INTERNAL
    assert names.rule_for("numba.cuda.testing.CUDATestCase")[0] == names.HELPER
    assert names.rule_for("numba.njit")[0] == names.CPU
    assert names.rule_for("numba.core.ir.Var")[0] == names.INTERNAL
    assert names.rule_for("scipy") == (None, None, None)


def test_placeholder_fails_on_use_with_the_name():
    p = layer.Placeholder("numba.cuda.float32", names.OURS, "pycuda_jit.cuda.float32")
    del layer.touched[:]
    with pytest.raises(layer.NotProvidedError, match=r"\[missing API\] numba.cuda.float32:"):
        p(1.0)
    with pytest.raises(layer.NotProvidedError, match=r"numba.cuda.float32.bits: .*pycuda_jit.cuda.float32.bits"):
        p.bits
    assert layer.touched == ["numba.cuda.float32 -> pycuda_jit.cuda.float32"] * 2
    # probes see "no such attribute"
    assert not hasattr(p, "__wrapped__") and getattr(p, "_pcj_intrinsic_", None) is None
    internal = layer.Placeholder("numba.cuda.core.ir", names.INTERNAL, None)
    with pytest.raises(layer.NotProvidedError, match=r"\[numba internals\] numba.cuda.core.ir.Var"):
        internal.Var


def test_missing_exception_class_is_never_raised():
    # (a name pycuda_jit will never have)
    cls = layer.resolve_object("numba.cuda.core.errors.PcjNeverWarning")
    assert issubclass(cls, Warning) and cls.__module__ == "pcj_numba_layer.missing"
    assert layer.resolve_object("numba.cuda.core.errors.PcjNeverWarning") is cls
    from pycuda_jit import errors
    assert layer.resolve_object("numba.cuda.core.errors.TypingError") is errors.TypingError


def test_numba_warning_names_map_to_ours():
    from pycuda_jit import errors
    for prefix in ("numba.cuda.core.errors", "numba.core.errors"):
        assert layer.resolve_object(f"{prefix}.NumbaPerformanceWarning") is \
            errors.PerformanceWarning
        assert layer.resolve_object(f"{prefix}.NumbaInvalidConfigWarning") is \
            errors.InvalidConfigWarning
        assert layer.resolve_object(f"{prefix}.NumbaDebugInfoWarning") is errors.DebugInfoWarning
        assert layer.resolve_object(f"{prefix}.NumbaWarning") is errors.PycudaJitWarning


def test_test_code_sees_pycuda_jit():
    from pycuda_jit import cuda
    # (a name pycuda_jit will never have, so the test does not depend on
    # which numba-cuda names are still missing)
    code = "from numba import cuda as c\nfrom numba.cuda import pcj_never_api, grid\n"
    scope = {"__builtins__": layer.VIEW_BUILTINS, "__name__": "t"}
    exec(compile(code, "<t>", "exec"), scope)
    assert scope["c"] is cuda
    assert scope["grid"] is not None and repr(scope["grid"]) == "<kernel intrinsic cuda.grid>"
    assert isinstance(scope["pcj_never_api"], layer.Placeholder)
    exec("import json as j", scope)  # everything else is the normal import
    assert scope["j"] is json


def _run(status, message="", touched=()):
    return {"status": status, "message": message, "detail": "", "touched": list(touched)}


def test_suggested_reasons():
    assert classify.suggest(_run("error", "x: [numba internals] numba.cuda.core.ir.Var: y")) == \
        "tests numba internals"
    assert classify.suggest(_run(
        "error", "pcj_numba_layer.NotProvidedError: [missing API] numba.cuda.libdevice.sin: "
                 "missing API: pycuda_jit has no pycuda_jit.cuda.libdevice.sin")) == \
        "not yet: missing API: cuda.libdevice"
    assert classify.suggest(_run(
        "error", "AttributeError: 'Kernel' object has no attribute 'forall'")) == \
        "not yet: missing API: Kernel.forall"
    assert classify.suggest(_run("skip", "need more than 1 gpus")) == "needs hardware we lack"
    assert classify.suggest(_run("skip", "Disabled temporarily due to Issue #317")).startswith(
        "numba-cuda skips it: ")
    assert ledger.category("numba-cuda skips it: disabled") == "numba-cuda skips it"
    assert ledger.valid_reason("numba-cuda skips it: disabled")
    assert not ledger.valid_reason("numba-cuda skips it:")
    for r in (_run("fail", "AssertionError: Arrays are not equal"), _run("error", "crash: x")):
        assert ledger.valid_reason(classify.suggest(r))


def _write_ledger(path, rows):
    lines = ["| test | status | reason | symptom |", "|---|---|---|---|"]
    lines += [f"| `{i}` | error | {reason} | s |" for i, reason in rows.items()]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def test_check_fails_on_an_unlisted_failure(tmp_path, capsys):
    path = tmp_path / "RESULTS.md"
    run = {"backend": "cpu", "partial": False, "files": {"a.py": 1},
           "results": {"a.py::t1": _run("pass"), "a.py::t2": _run("error", "boom"),
                       "a.py::t3": _run("skip", "x")}}
    _write_ledger(path, {"a.py::t2": "not yet: different behaviour: boom",
                         "a.py::t3": "needs a GPU"})
    assert ledger.check(run, str(path)) == 0
    run["results"]["a.py::t1"] = _run("fail", "AssertionError: 1 != 2")  # a regression
    assert ledger.check(run, str(path)) == 1
    assert "a.py::t1" in capsys.readouterr().out
    _write_ledger(path, {"a.py::t1": "because", "a.py::t2": "not yet: x",
                         "a.py::t3": "needs a GPU"})  # reasons outside the list
    assert ledger.check(run, str(path)) == 1


def test_update_keeps_reasons_and_counts(tmp_path):
    path = tmp_path / "RESULTS.md"
    run = {"backend": "cpu", "numba_cuda": "0.30.4", "partial": False, "files": {"a.py": 1},
           "results": {"a.py::t1": _run("pass"),
                       "a.py::t2": _run("error", "AttributeError: 'Kernel' object has no "
                                                 "attribute 'forall'"),
                       "a.py::t3": _run("fail", "AssertionError: 1 | 2")}}
    _write_ledger(path, {"a.py::t3": "needs a GPU"})
    ledger.update(run, str(path))
    rows, _ = ledger.read(str(path))
    assert rows["a.py::t3"][1] == "needs a GPU"
    run["results"]["a.py::t2"]["message"] = "AttributeError: 'Kernel' object has no attribute 'x'"
    ledger.update(run, str(path))  # an unreviewed reason follows the failure
    rows, _ = ledger.read(str(path))
    assert rows["a.py::t3"][2] == "AssertionError: 1 | 2"  # '|' survives the table
    assert rows["a.py::t2"][1] == "not yet: missing API: Kernel.x [auto]"
    assert "a.py::t1" not in rows
    text = path.read_text()
    assert "| needs a GPU | 1 | 0 | 0 | 1 |" in text
    assert ledger.check(dict(run), str(path)) == 0


FAKE_TESTS = {
    "test_ok.py": """
        import unittest
        import numpy as np
        from numba import cuda

        class TestOk(unittest.TestCase):
            def test_kernel(self):
                @cuda.jit
                def add_one(a):
                    i = cuda.grid(1)
                    if i < a.size:
                        a[i] += 1
                a = np.arange(5.0)
                add_one[1, 8](a)
                np.testing.assert_array_equal(a, np.arange(5.0) + 1)

            def test_wrong(self):
                self.assertEqual(1 + 1, 3)

            def test_missing(self):
                from numba.cuda import pcj_never_api  # pycuda_jit lacks it
                pcj_never_api(1.0)

            def test_child_process_sees_pycuda_jit(self):
                import subprocess, sys
                out = subprocess.run(
                    [sys.executable, "-c", "from numba import cuda; print(cuda.__name__)"],
                    capture_output=True, text=True, check=True).stdout
                self.assertEqual(out.strip(), "pycuda_jit.cuda")
        """,
    "test_crash.py": """
        import os, unittest

        class TestCrash(unittest.TestCase):
            def test_a_before(self):
                pass

            def test_b_dies(self):
                os.abort()

            def test_c_after(self):
                pass
        """,
    "test_noimport.py": """
        import no_such_module_pcj_w8
        """,
}


def test_runner_end_to_end(tmp_path):
    # numba-cuda's layout: numba_cuda/numba/cuda/tests/...; a stand-in `numba`
    # package finds numba.cuda there (numba-cuda's import redirector does that).
    site = tmp_path / "site"
    tests_dir = site / "numba_cuda" / "numba" / "cuda" / "tests"
    cudapy = tests_dir / "cudapy"
    cudapy.mkdir(parents=True)
    (site / "numba_cuda" / "__init__.py").write_text("")
    (site / "numba").mkdir()
    (site / "numba" / "__init__.py").write_text(
        "import os\n__path__.append(os.path.join(os.path.dirname(os.path.dirname(__file__)),"
        " 'numba_cuda', 'numba'))\n")
    for d in (tests_dir.parent, tests_dir, cudapy):
        (d / "__init__.py").write_text("")
    for name, src in FAKE_TESTS.items():
        (cudapy / name).write_text(textwrap.dedent(src))
    env = dict(os.environ, PYTHONPATH=str(site), PYCUDA_JIT_BACKEND="cpu")
    work = tmp_path / "work"
    out = subprocess.run(
        [sys.executable, os.path.join(SUITE, "run.py"), "--python", sys.executable,
         "--work", str(work), "--timeout", "120", "-j", "2"],
        env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    res = json.load(open(work / "results.json"))["results"]
    status = {i: r["status"] for i, r in res.items()}
    assert status == {
        "cudapy/test_ok.py::TestOk::test_kernel": "pass",
        "cudapy/test_ok.py::TestOk::test_wrong": "fail",
        "cudapy/test_ok.py::TestOk::test_missing": "error",
        "cudapy/test_ok.py::TestOk::test_child_process_sees_pycuda_jit": "pass",
        "cudapy/test_crash.py::TestCrash::test_a_before": "pass",
        "cudapy/test_crash.py::TestCrash::test_b_dies": "error",
        "cudapy/test_crash.py::TestCrash::test_c_after": "pass",
        "cudapy/test_noimport.py": "error",
    }, out.stdout
    assert res["cudapy/test_crash.py::TestCrash::test_b_dies"]["message"] == \
        "crash: the process died (SIGABRT)"
    assert "[missing API] numba.cuda.pcj_never_api" in res["cudapy/test_ok.py::TestOk::test_missing"]["message"]
    assert res["cudapy/test_noimport.py"]["message"].startswith("the file did not import:")
