"""Environment variables are read in one place: compiler/support/Env.def
lists each (name, default, meaning); support/Env.cpp is the only C++ file
calling getenv, pycuda_jit/_env.py the only Python module reading
os.environ; README.md's table is generated from the table."""
import pathlib
import re
import subprocess
import sys

import pytest

from pycuda_jit import _env

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_table_rows_are_complete():
    rows = _env.table()
    names = [n for n, _d, _m in rows]
    assert len(names) == len(set(names))
    assert "PYCUDA_JIT_BACKEND" in names and "PYCUDA_JIT_CACHE_DIR" in names
    for name, default, meaning in rows:
        assert re.fullmatch(r"[A-Z][A-Z0-9_]*", name), name
        assert default and meaning, name


def test_readme_table_is_generated_from_the_table():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_env_table.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    readme = (ROOT / "README.md").read_text()
    for name, _d, _m in _env.table():
        assert f"| `{name}` |" in readme, name


def _sources(*globs):
    for g in globs:
        yield from ROOT.glob(g)


def test_only_env_cpp_calls_getenv():
    dirs = ("compiler/**/*.cpp", "compiler/**/*.h", "runtime/**/*.cpp", "runtime/**/*.h",
            "stdlib/**/*.cpp", "pycuda_jit/_core_src/*.cpp", "pycuda_jit/_core_src/*.h")
    callers = sorted(str(p.relative_to(ROOT)) for p in _sources(*dirs)
                     if re.search(r"\b(secure_)?getenv\b|\benviron\b", p.read_text()))
    assert callers == ["compiler/support/Env.cpp", "compiler/support/Env.h"]  # Env.h: its comment


def test_only_env_py_reads_the_environment():
    readers = sorted(str(p.relative_to(ROOT)) for p in _sources("pycuda_jit/**/*.py")
                     if re.search(r"os\.environ|os\.getenv|getenv\(", p.read_text()))
    assert readers == ["pycuda_jit/_env.py"]


def test_every_documented_variable_is_a_row():
    # Any PYCUDA_JIT_ name the docs mention is a variable of the table.
    names = {n for n, _d, _m in _env.table()}
    for doc in _sources("docs/*.md", "README.md"):
        for m in re.findall(r"\bPYCUDA_JIT_[A-Z0-9_]*[A-Z0-9]\b", doc.read_text()):
            assert m in names, f"{doc.name} mentions {m}, which Env.def does not list"


def test_get_refuses_names_outside_the_table(monkeypatch):
    monkeypatch.setenv("PYCUDA_JIT_BACKEND", "cpu")
    assert _env.get("PYCUDA_JIT_BACKEND") == "cpu"
    with pytest.raises(KeyError, match="PYCUDA_JIT_NO_SUCH"):
        _env.get("PYCUDA_JIT_NO_SUCH")
