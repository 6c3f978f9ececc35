#!/usr/bin/env python3
"""numba-cuda's own test suite run against pycuda_jit (see README.md).

    tests/numba_suite/run.py                       # venv + install, run, summary
    tests/numba_suite/run.py --check               # CI: fail on a regression / unlisted failure
    tests/numba_suite/run.py --update-ledger       # rewrite RESULTS.md, keeping reasons
    tests/numba_suite/run.py --python PY --backend cuda   # an interpreter that has numba-cuda

Each test file runs in its own process (pytest, the layer in boot/), with a
time limit; a crash or a hang is charged to the test in flight and the rest
of the file runs again without it.  Needs only the standard library.
"""
import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BOOT = os.path.join(HERE, "boot")
sys.path.insert(0, HERE)
sys.path.insert(0, BOOT)

import ledger  # noqa: E402

REQUIREMENTS = os.path.join(HERE, "requirements.txt")
DEFAULT_LEDGER = os.path.join(HERE, "RESULTS.md")

# Which of the wheel's test files run (paths under numba/cuda/tests).  All of
# cudapy and doc_examples; of cudadrv, the files about public API (the rest
# test numba-cuda's bindings of the driver, NVVM, NVRTC and the linker).
FILES = ["cudapy/test_*.py", "doc_examples/test_*.py"] + [
    f"cudadrv/{name}.py" for name in (
        "test_array_attr", "test_context_stack", "test_cuda_array_slicing",
        "test_cuda_auto_context", "test_cuda_devicerecord", "test_cuda_ndarray",
        "test_deallocations", "test_detect", "test_events", "test_host_alloc",
        "test_init", "test_is_fp16", "test_linkable_code", "test_managed_alloc",
        "test_module_callbacks", "test_pinned", "test_profiler", "test_reset_device",
        "test_runtime", "test_select_device", "test_streams")]
NOT_RUN = {
    "cudadrv/test_cuda_driver.py": "numba-cuda's driver object (cuModuleLoad, launch by hand)",
    "cudadrv/test_cuda_memory.py": "numba-cuda's MemoryPointer / memory manager classes",
    "cudadrv/test_emm_plugins.py": "numba-cuda's external memory manager plugin interface",
    "cudadrv/test_inline_ptx.py": "llvmlite inline assembly in numba-cuda's lowering",
    "cudadrv/test_linker.py": "numba-cuda's linker class",
    "cudadrv/test_nvjitlink.py": "numba-cuda's nvJitLink binding",
    "cudadrv/test_nvrtc.py": "numba-cuda's NVRTC binding",
    "cudadrv/test_nvvm_driver.py": "numba-cuda's NVVM binding",
}


# ---- the interpreter -----------------------------------------------------------------

def _requirements_digest():
    with open(REQUIREMENTS, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _base_python():
    """An interpreter (3.10-3.13) that can create a venv with pip."""
    cands = [os.environ.get("PCJ_NUMBA_BASE_PYTHON", "")]
    cands += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.11.*/bin/python")))
    cands += [shutil.which(n) or "" for n in ("python3.11", "python3.12", "python3")]
    for c in cands:
        if c and os.access(c, os.X_OK) and subprocess.run(
                [c, "-c", "import sys, venv, ensurepip; sys.exit(not (3, 10) <= sys.version_info[:2] <= (3, 13))"],
                capture_output=True).returncode == 0:
            return c
    sys.exit("numba_suite: no Python 3.10-3.13 with venv and ensurepip found "
             "(set PCJ_NUMBA_BASE_PYTHON, or pass --python)")


def prepare_venv(venv):
    """The venv with the pinned requirements (made once per requirements.txt)."""
    py = os.path.join(venv, "bin", "python")
    stamp = os.path.join(venv, ".pcj-requirements")
    digest = _requirements_digest()
    if os.path.exists(stamp) and open(stamp).read() == digest and os.access(py, os.X_OK):
        return py
    t0 = time.time()
    shutil.rmtree(venv, ignore_errors=True)
    base = _base_python()
    print(f"== numba_suite: creating {venv} from {base}", flush=True)
    subprocess.run([base, "-m", "venv", venv], check=True)
    subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "--only-binary", ":all:", "-r", REQUIREMENTS], check=True)
    with open(stamp, "w") as f:
        f.write(digest)
    print(f"== numba_suite: venv ready in {time.time() - t0:.0f} s", flush=True)
    return py


def tests_root(py):
    code = ("import importlib.util, os; s = importlib.util.find_spec('numba_cuda'); "
            "print(os.path.join(s.submodule_search_locations[0], 'numba', 'cuda', 'tests'))")
    out = subprocess.run([py, "-c", code], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"numba_suite: {py} cannot find numba_cuda:\n{out.stderr}")
    return os.path.realpath(out.stdout.strip())


def numba_cuda_version(py):
    out = subprocess.run([py, "-c", "import importlib.metadata as m; print(m.version('numba-cuda'))"],
                         capture_output=True, text=True)
    return out.stdout.strip() or "?"


def select_files(root, patterns):
    files = []
    for pattern in FILES:
        for path in sorted(glob.glob(os.path.join(root, pattern))):
            rel = os.path.relpath(path, root)
            if rel in NOT_RUN or rel in files:
                continue
            if patterns and not any(p in rel for p in patterns):
                continue
            files.append(rel)
    return files


# ---- one file ------------------------------------------------------------------------

def child_env(args, results_path, layer=True):
    env = dict(os.environ)
    path = [BOOT, REPO] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env.update(PYTHONPATH=os.pathsep.join(path), PCJ_NUMBA_RESULTS=results_path,
               PCJ_NUMBA_REPO=REPO, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
               PYCUDA_JIT_BACKEND=args.backend,
               PYCUDA_JIT_CACHE_DIR=os.path.join(args.work, "pcj-cache"))
    if layer:
        env.update(PCJ_NUMBA_LAYER="1", NUMBA_ENABLE_CUDASIM="0")
    else:  # numba-cuda alone, on its simulator: only to list a file's tests
        env.pop("PCJ_NUMBA_LAYER", None)
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    return env


def pytest_cmd(py, root, rel, extra):
    return [py, "-m", "pytest", "-p", "pcj_numba_pytest", "-p", "no:cacheprovider",
            "--assert=plain", "--import-mode=importlib", "-c", os.path.join(BOOT, "pytest.ini"),
            "--rootdir", root,
            "-q", "--tb=short", "-p", "no:warnings", *extra, os.path.join(root, rel)]


def read_records(path):
    records = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    records.append(json.loads(line))
                except ValueError:
                    pass  # a line cut short by a kill
    return records


def run_child(args, py, root, rel, extra, tag, layer=True, limit=None):
    """Runs pytest on one file; returns (returncode or 'timeout', records)."""
    safe = rel.replace("/", "__")
    out = os.path.join(args.work, "jsonl", f"{safe}.{tag}.jsonl")
    log = os.path.join(args.work, "logs", f"{safe}.{tag}.log")
    if os.path.exists(out):
        os.unlink(out)
    with open(log, "w") as logf:
        proc = subprocess.Popen(pytest_cmd(py, root, rel, extra), stdout=logf,
                                stderr=subprocess.STDOUT, env=child_env(args, out, layer),
                                cwd=args.work, start_new_session=True)
        try:
            rc = proc.wait(timeout=limit or args.timeout)
        except subprocess.TimeoutExpired:
            rc = "timeout"
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the file's own children too
            except ProcessLookupError:
                pass
            proc.wait()
    return rc, read_records(out)


def reference_ids(args, py, root, rel):
    """The file's test ids, listed by numba-cuda itself (on its simulator):
    for a file that did not import under pycuda_jit."""
    rc, records = run_child(args, py, root, rel, ["--collect-only"], "ids", layer=False, limit=120)
    for r in records:
        if "collected" in r and r["collected"]:
            return r["collected"]
    return []


def _signal_name(rc):
    try:
        return signal.Signals(-rc).name
    except (ValueError, TypeError):
        return f"exit status {rc}"


def run_file(args, py, root, rel):
    """All tests of one file -> {id: record}; reruns the rest after a crash/hang."""
    t0 = time.time()
    results, collected, collect_error = {}, None, None
    extra = []
    for attempt in range(args.reruns + 1):
        rc, records = run_child(args, py, root, rel, extra, f"run{attempt}")
        inflight = None
        for r in records:
            if "collected" in r and collected is None:
                collected = r["collected"]
            elif "collect_error" in r and collect_error is None:
                collect_error = r
            elif "start" in r:
                inflight = r["start"]
            elif "id" in r:
                results[r["id"]] = dict(r, file=rel)
                if inflight == r["id"]:
                    inflight = None
        if rc == "timeout":
            symptom = f"hang: the file's time limit ({args.timeout} s) ran out in this test"
        elif isinstance(rc, int) and rc < 0:
            symptom = f"crash: the process died ({_signal_name(rc)})"
        elif rc in (0, 1, 5) or (rc == 2 and collect_error is not None):
            break  # pytest: ok, tests failed, nothing collected, a collection error
        else:
            symptom = f"crash: pytest ended with status {rc}"
        if inflight is None:
            if not records or collected is None:
                collect_error = collect_error or {"status": "error", "message": symptom, "touched": []}
            else:
                print(f"== numba_suite: {rel}: {symptom} after its last test", flush=True)
            break
        results[inflight] = {"id": inflight, "status": "error", "message": symptom,
                             "detail": "", "touched": [], "file": rel}
        extra = [a for i in results for a in ("--deselect", i)]
        if not [i for i in collected or [] if i not in results]:
            break
    if collect_error is not None and not results:
        ids = collected or reference_ids(args, py, root, rel) or [rel]
        for i in ids:
            results[i] = {"id": i, "status": collect_error["status"], "file": rel,
                          "message": "the file did not import: " + collect_error["message"],
                          "detail": "", "touched": collect_error.get("touched", [])}
    for i in collected or []:  # left over after the reruns ran out
        results.setdefault(i, {"id": i, "status": "error", "file": rel, "detail": "",
                               "touched": [], "message": "not run: the file crashed repeatedly"})
    return rel, results, time.time() - t0


# ---- summary -------------------------------------------------------------------------

STATUSES = ("pass", "xfail", "xpass", "fail", "error", "skip")


def print_summary(results, per_file, elapsed):
    counts = {s: 0 for s in STATUSES}
    for r in results.values():
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print(f"\n{'file':<46} {'pass':>5} {'fail':>5} {'error':>5} {'skip':>5} {'time':>6}")
    for rel, (res, secs) in sorted(per_file.items()):
        c = {s: 0 for s in STATUSES}
        for r in res.values():
            c[r["status"]] = c.get(r["status"], 0) + 1
        print(f"{rel:<46} {c['pass'] + c['xfail'] + c['xpass']:>5} {c['fail']:>5} {c['error']:>5} "
              f"{c['skip']:>5} {secs:>5.0f}s")
    total = len(results)
    print(f"\n{total} tests in {len(per_file)} files: " +
          ", ".join(f"{counts[s]} {s}" for s in STATUSES) + f"  ({elapsed:.0f} s)")


def merge_into_previous(run, path):
    """A run over some files replaces those files' results in the previous
    run of the same backend and numba-cuda (so --check / --update-ledger can
    follow a rerun of a few files)."""
    if not run["partial"] or not os.path.exists(path):
        return run
    with open(path) as f:
        old = json.load(f)
    if (old.get("backend"), old.get("numba_cuda")) != (run["backend"], run["numba_cuda"]):
        return run
    rerun = set(run["files"])
    results = {i: r for i, r in old["results"].items() if r.get("file") not in rerun}
    results.update(run["results"])
    print(f"== numba_suite: merged into the previous results of {len(old['files'])} files")
    return dict(old, files=dict(old["files"], **run["files"]), results=results)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", help="an interpreter with numba-cuda installed (no venv, no install)")
    ap.add_argument("--venv", help="the venv to create/use (default: build/numba_suite/venv)")
    ap.add_argument("--backend", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="files run at once (default 2)")
    ap.add_argument("--timeout", type=int, default=180, help="seconds per file (default 180)")
    ap.add_argument("--reruns", type=int, default=2, help="reruns of a file after a crash/hang")
    ap.add_argument("--work", help="results and logs (default: build/numba_suite/<backend>)")
    ap.add_argument("--ledger", default=DEFAULT_LEDGER)
    ap.add_argument("--check", action="store_true",
                    help="fail on a test that does not pass and has no ledger line")
    ap.add_argument("--update-ledger", action="store_true",
                    help="rewrite the ledger from this run, keeping existing reasons")
    ap.add_argument("--from-results", metavar="JSON",
                    help="skip running: use a results.json of an earlier run")
    ap.add_argument("--names", action="store_true", help="print the name-resolution table")
    ap.add_argument("files", nargs="*", help="only files whose path contains one of these")
    args = ap.parse_args()
    if args.names:
        import pcj_numba_names
        print(pcj_numba_names.markdown_table())
        return 0
    args.work = os.path.abspath(args.work or os.path.join(REPO, "build", "numba_suite", args.backend))
    for sub in ("jsonl", "logs"):
        os.makedirs(os.path.join(args.work, sub), exist_ok=True)

    t0 = time.time()
    if args.from_results:
        with open(args.from_results) as f:
            run = json.load(f)
    else:
        py = args.python or prepare_venv(os.path.abspath(
            args.venv or os.path.join(REPO, "build", "numba_suite", "venv")))
        root = tests_root(py)
        files = select_files(root, args.files)
        print(f"== numba_suite: {len(files)} files of numba-cuda {numba_cuda_version(py)} "
              f"on the {args.backend} backend, {args.jobs} at a time", flush=True)
        per_file = {}
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for rel, res, secs in pool.map(lambda f: run_file(args, py, root, f), files):
                per_file[rel] = (res, secs)
        results = {i: r for res, _ in per_file.values() for i, r in res.items()}
        run = {"backend": args.backend, "numba_cuda": numba_cuda_version(py),
               "files": {rel: round(secs, 1) for rel, (_, secs) in per_file.items()},
               "partial": bool(args.files), "results": results}
        print_summary(results, per_file, time.time() - t0)
        run = merge_into_previous(run, os.path.join(args.work, "results.json"))
        with open(os.path.join(args.work, "results.json"), "w") as f:
            json.dump(run, f, indent=1, sort_keys=True)
    status = 0
    if args.check:
        status = ledger.check(run, args.ledger)
    if args.update_ledger:
        if run["backend"] != "cpu" and args.ledger == DEFAULT_LEDGER:
            sys.exit("numba_suite: RESULTS.md is the CPU executor's ledger (CI checks it); "
                     "give a GPU run its own --ledger, and its totals to the closing note")
        ledger.update(run, args.ledger)
    return status


if __name__ == "__main__":
    sys.exit(main())
