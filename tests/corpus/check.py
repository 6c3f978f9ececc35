"""Running corpus cases in child processes and judging their reports;
used by test_corpus.py (pytest) and __main__.py (any interpreter)."""
import glob
import importlib
import json
import os
import subprocess
import sys

from tests.corpus import cases

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BATCH_TIMEOUT = 300
CASE_TIMEOUT = 60


def modules(pattern):
    return sorted(f"tests.corpus.{os.path.basename(p)[:-3]}"
                  for p in glob.glob(os.path.join(HERE, pattern)))


def load(names):
    """Import the corpus modules; those needing a missing package (numpy
    under the other interpreters) are skipped."""
    loaded = []
    for m in names:
        try:
            importlib.import_module(m)
        except ImportError:
            continue
        loaded.append(m)
    return loaded


def child(module, names, timeout):
    """(records by case, good-kernel result, the case running when the
    child died or hung, why it failed or None)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("PYCUDA_JIT_BACKEND", "cpu")
    try:
        p = subprocess.run([sys.executable, "-m", "tests.corpus.child", module, *names],
                           capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout)
        out, why = p.stdout, (None if p.returncode == 0 else
                              f"exit status {p.returncode}: {p.stderr.strip()[-1500:]}")
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        why = f"hang: no exit within {timeout} s"
    recs, good, running = {}, None, None
    for line in out.splitlines():
        r = json.loads(line)
        if "good" in r:
            good = r["good"]
        elif r.get("start"):
            running = r["case"]
        else:
            recs[r["case"]] = r
            running = None
    return recs, good, running, why


_RESULTS = {}


def results(module):
    """({case: record}, [good-kernel results of the children that did not
    crash]) for every case of the module: one child for all of them; when
    it crashes or hangs, each unfinished case again in a child of its own,
    so the failure lands on its case."""
    if module in _RESULTS:
        return _RESULTS[module]
    names = [c.name for c in cases.LANG.get(module, []) + cases.HOST.get(module, [])]
    recs, good, _running, why = child(module, names, BATCH_TIMEOUT)
    goods = [good] if why is None else []
    if why is not None:
        for name in names:
            if name in recs:
                continue
            r, g, _run1, why1 = child(module, [name], CASE_TIMEOUT)
            recs.update(r)
            if why1 is None:
                goods.append(g)
            if name not in recs or why1 is not None:
                recs[name] = {"case": name, "crash": why1 or "no report"}
    _RESULTS[module] = (recs, goods)
    return _RESULTS[module]


def problems(case, rec):
    """What is wrong with a case's report (empty: it passes)."""
    out = []
    if "crash" in rec:
        return [f"crashed or hung the process: {rec['crash']}"]
    if rec["exc"] is None:
        return ["raised nothing"]
    if not rec["is_expected"]:
        want = case.expect if isinstance(case.expect, tuple) else (case.expect,)
        out.append(f"raised {rec['exc']}, expected {' or '.join(c.__name__ for c in want)}")
    if not rec["msg"].strip():
        out.append("empty message")
    if rec["leaks"]:
        out.append(f"C++ detail in the message: {rec['leaks']}")
    if case.match and not rec.get("matches"):
        out.append(f"message does not match {case.match!r}")
    if case.kind == "lang":
        if not rec["is_compile_error"]:
            out.append("not a pycuda_jit CompileError")
        elif rec["file"] != rec["want_file"]:
            out.append(f"names file {rec['file']}")
        elif rec["line"] != rec["want_line"]:
            out.append(f"reports line {rec['line']}, the error is on line {rec['want_line']}")
        elif not rec["shows_source"]:
            out.append("does not show the source line")
    else:
        if not (rec["is_pcj"] or rec["is_documented"]):
            out.append(f"{rec['exc']} is neither a pycuda_jit error nor a documented type")
        if rec["tb_line"] != rec["want_line"]:
            out.append(f"raised from line {rec['tb_line']} of the case file, "
                       f"the call is on line {rec['want_line']}")
    if out:
        out.append("message: " + rec["msg"][:600])
    return out
