"""The sanitizer corpus (tests/sanitizer/san_corpus.py: kernels with one seeded
bug each, and their fixed twins) under our CPU-executor sanitizer and, on a
GPU machine, under NVIDIA's compute-sanitizer: which bugs each finds, false
alarms on the fixed kernels, and wall times, side by side.

Every run is its own process (``san_corpus.py run CASE bug|fix``), so both sides
pay interpreter start, import, compilation and the launch alike:

  ours      PYCUDA_JIT_BACKEND=cpu san_corpus.py run CASE VERSION --sanitize
            (found: exit status 3)
  compute-sanitizer
            compute-sanitizer --tool TOOL --error-exitcode 99 san_corpus.py run
            CASE VERSION on the GPU (found: "ERROR SUMMARY: N errors" (racecheck:
            "RACECHECK SUMMARY: N hazards") with
            N > 0), TOOL by the bug's kind: racecheck (race), initcheck
            (init), memcheck (bounds, use after free), synccheck (sync);
            --all-tools runs all four on every case (four times longer).

    PYTHONPATH=. python3 benchmarks/sanitizer_vs_compute_sanitizer.py \\
        [--budget 450] [--timeout 60] [--all-tools] [--only ours|gpu] \\
        [--json results.json] [CASE ...]

Bounded in time: no run starts once --budget seconds (default 450, so the
whole script stays under 8 minutes) have passed, and each run is killed
after --timeout seconds (a bug that hangs the GPU, such as a divergent
barrier, then reads "timeout").  Without a GPU or compute-sanitizer the GPU
columns say why they are empty.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "sanitizer", "san_corpus.py")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(CORPUS))

TOOL = {"race": "racecheck", "init": "initcheck", "bounds": "memcheck",
        "uaf": "memcheck", "sync": "synccheck"}
ALL_TOOLS = ("racecheck", "initcheck", "memcheck", "synccheck")


def run(cmd, env, timeout):
    """(status, output, seconds); status None when killed at the timeout."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        status = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        status = None
    return status, out, time.perf_counter() - t0


def compute_sanitizer():
    for cand in (shutil.which("compute-sanitizer"),
                 "/usr/local/cuda/bin/compute-sanitizer",
                 os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin",
                              "compute-sanitizer")):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def have_gpu(env):
    probe = [sys.executable, "-c", "from pycuda_jit import cuda; import sys; "
             "sys.exit(0 if cuda.is_available() else 1)"]
    status, _, _ = run(probe, env, 60)
    return status == 0


def ours(case, version, env, timeout):
    status, out, secs = run([sys.executable, CORPUS, "run", case, version, "--sanitize"],
                            dict(env, PYCUDA_JIT_BACKEND="cpu"), timeout)
    if status is None:
        return {"result": "timeout", "seconds": secs}
    if status == 3:
        return {"result": "found", "seconds": secs, "detail": out.strip().splitlines()[-1]}
    if status == 0:
        return {"result": "clean", "seconds": secs}
    return {"result": f"error {status}", "seconds": secs, "detail": out.strip()[-300:]}


def theirs(cs, tool, case, version, env, timeout):
    cmd = [cs, "--tool", tool, "--error-exitcode", "99", sys.executable, CORPUS, "run",
           case, version]
    status, out, secs = run(cmd, dict(env, PYCUDA_JIT_BACKEND="cuda"), timeout)
    if status is None:
        return {"result": "timeout", "seconds": secs}
    # memcheck, initcheck, synccheck: "ERROR SUMMARY: N errors"; racecheck:
    # "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
    m = (re.search(r"ERROR SUMMARY:\s*(\d+)", out)
         or re.search(r"RACECHECK SUMMARY:\s*(\d+) hazards? displayed", out))
    errors = int(m.group(1)) if m else None
    if errors:
        first = next((ln for ln in out.splitlines() if "=========" in ln and "SUMMARY" not in ln
                      and "COMPUTE-SANITIZER" not in ln and ln.strip("= ").strip()), "")
        return {"result": "found", "seconds": secs, "errors": errors,
                "detail": first.strip("= ").strip()[:160]}
    if errors == 0 and status in (0, 3, 4):
        return {"result": "clean", "seconds": secs}
    return {"result": f"error {status}", "seconds": secs, "detail": out.strip()[-300:]}


def mark(res, bug):
    """The table cell: + found a bug / - missed it; on fixed kernels '!'
    marks a false alarm."""
    if res is None:
        return "n/a"
    r = res["result"]
    if bug:
        sym = "+" if r == "found" else ("T" if r == "timeout" else ("-" if r == "clean" else "E"))
    else:
        sym = "ok" if r == "clean" else ("!" if r == "found" else ("T" if r == "timeout" else "E"))
    return f"{sym} {res['seconds']:.1f}s"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", help="case names (default: all)")
    ap.add_argument("--budget", type=float, default=450.0)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--all-tools", action="store_true")
    ap.add_argument("--only", choices=("ours", "gpu"))
    ap.add_argument("--json")
    a = ap.parse_args()

    import san_corpus as corpus
    names = a.cases or list(corpus.CASES)
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    start = time.perf_counter()

    gpu_note = ""
    cs = None
    if a.only != "ours":
        cs = compute_sanitizer()
        if not cs:
            gpu_note = "compute-sanitizer not found"
        elif not have_gpu(env):
            gpu_note = "no CUDA GPU"
            cs = None
    rows = []
    for name in names:
        c = corpus.CASES[name]
        row = {"case": name, "kind": c.kind, "ours": {}, "gpu": {}}
        for version in ("bug", "fix"):
            if time.perf_counter() - start > a.budget:
                break
            if a.only != "gpu":
                row["ours"][version] = ours(name, version, env, a.timeout)
            if cs:
                tools = ALL_TOOLS if a.all_tools else (TOOL[c.kind],)
                for tool in tools:
                    if time.perf_counter() - start > a.budget:
                        break
                    row["gpu"].setdefault(tool, {})[version] = theirs(cs, tool, name, version,
                                                                      env, a.timeout)
        rows.append(row)
        print(f"  {name}: {json.dumps({k: row[k] for k in ('ours', 'gpu')}, default=str)[:200]}",
              file=sys.stderr)

    tools = ALL_TOOLS if a.all_tools else ("tool",)
    head = f"{'case':40} {'kind':6} {'ours bug':>10} {'ours fix':>10}"
    for t in tools:
        head += f" {t[:10] + ' bug':>15} {t[:10] + ' fix':>15}"
    print(head)
    totals = {"ours": [0, 0, 0]}
    for row in rows:
        line = f"{row['case']:40} {row['kind']:6} {mark(row['ours'].get('bug'), True):>10} " \
               f"{mark(row['ours'].get('fix'), False):>10}"
        o = row["ours"]
        if "bug" in o:
            totals["ours"][0] += o["bug"]["result"] == "found"
            totals["ours"][1] += 1
        if "fix" in o:
            totals["ours"][2] += o["fix"]["result"] == "found"
        for t in tools:
            tool = TOOL[row["kind"]] if t == "tool" else t
            res = row["gpu"].get(tool, {})
            line += f" {(tool[:4] + ' ') if t == 'tool' else ''}{mark(res.get('bug'), True):>10}" \
                    f" {mark(res.get('fix'), False):>15}"
            tot = totals.setdefault(t, [0, 0, 0])
            if "bug" in res:
                tot[0] += res["bug"]["result"] == "found"
                tot[1] += 1
            if "fix" in res:
                tot[2] += res["fix"]["result"] == "found"
        print(line)
    for k, (found, ran, false) in totals.items():
        label = "ours (CPU executor)" if k == "ours" else f"compute-sanitizer {k}"
        print(f"{label}: {found}/{ran} bugs found, {false} false alarms on fixed kernels")
    if gpu_note:
        print(f"compute-sanitizer columns empty: {gpu_note}")
    def total_time(side):
        secs = [r["seconds"] for row in rows for v in (row[side].values() if side == "ours" else
                [x for d in row[side].values() for x in d.values()]) for r in [v]]
        return sum(secs)
    print(f"wall time: ours {total_time('ours'):.0f} s, compute-sanitizer {total_time('gpu'):.0f} s, "
          f"script {time.perf_counter() - start:.0f} s")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "gpu_note": gpu_note}, f, indent=1, default=str)


if __name__ == "__main__":
    main()
