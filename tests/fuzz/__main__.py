"""Differential fuzzer: random scalar kernels on the current backend
(PYCUDA_JIT_BACKEND=cpu in CI) against the reference semantics.

    python -m tests.fuzz --seed 7 --count 500 --jobs 2
    python -m tests.fuzz --seed 7 --kernel 123          # one kernel, shrunk
    python -m tests.fuzz --seed 7 --count 50 --ptxas 50 # PTX through ptxas

Kernels run in worker processes that report each kernel before compiling
it, so a crash or a hang is attributed to its kernel.  Every failure is
shrunk (in a separate process) to a small reproducer printed as a runnable
script; the exit status is 1 when anything failed.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

from .runner import kernel_name, make, reproducer, shrink, test_one

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def ptxas_path():
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    p = os.path.join(home, "bin", "ptxas")
    return p if os.path.exists(p) else shutil.which("ptxas")


def assemble(prog, name, ptxas):
    """PTX for sm_90 through ptxas; an error message or None."""
    from pycuda_jit import cuda
    from .program import tname
    from .runner import compile_source
    fn, _ = compile_source(prog, name)
    sig = "void(" + ", ".join(f"{tname(t)}[:, ::1]" for t in list(prog.inputs) + list(prog.outputs)) + ")"
    ptx, _ = cuda.compile_ptx(fn, sig, cc=(9, 0))
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        r = subprocess.run([ptxas, "-arch=sm_90", src, "-o", os.path.join(d, "k.cubin")],
                           capture_output=True, text=True, timeout=120)
        if r.returncode:
            return f"ptxas failed: {r.stderr.strip()[:2000]}"
    return None


def worker(args):
    """Run kernels start, start+stride, ... < stop; one JSON line each."""
    ptxas = ptxas_path() if args.ptxas else None
    for k in range(args.start, args.stop, args.stride):
        emit({"k": k, "start": True})
        try:
            prog, inputs = make(args.seed, k, args.rows)
            name = kernel_name(args.seed, k)
            f, compared, skipped = test_one(prog, inputs, name)
        except Exception:  # noqa: BLE001 - a bug of the fuzzer itself
            emit({"k": k, "failure": "fuzzer error: " + traceback.format_exc()[-1500:]})
            continue
        rec = {"k": k, "compared": compared, "skipped": skipped}
        if f is not None:
            rec["failure"] = str(f)
        elif ptxas and k % max(1, args.ptxas_every) == 0:
            try:
                err = assemble(prog, name, ptxas)
            except Exception as e:  # noqa: BLE001
                err = f"compile_ptx: {type(e).__name__}: {e}"
            rec["ptxas"] = err or "ok"
            if err:
                rec["failure"] = err
        emit(rec)


def shrink_one(args):
    """Shrink kernel args.kernel and print its reproducer."""
    prog, inputs = make(args.seed, args.kernel, args.rows)
    name = kernel_name(args.seed, args.kernel)
    f = test_one(prog, inputs, name)[0]
    if f is None:
        print(f"# seed {args.seed} kernel {args.kernel}: passes")
        return 0
    if f.kind in ("mismatch", "compile", "error"):
        prog, inputs, f = shrink(prog, inputs, f, name)
    print(reproducer(prog, inputs, f, name))
    return 1


def sub_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("PYCUDA_JIT_BACKEND", "cpu")
    return env


def run_workers(args):
    """Kernels [start, start+count) over args.jobs workers; returns
    {k: record} with crashes and hangs as failures."""
    stop = args.start + args.count
    results = {}
    pending = {w: args.start + w for w in range(args.jobs)}  # next kernel per lane
    deadline = time.time() + args.timeout
    procs = {}

    def launch(lane, first):
        cmd = [sys.executable, "-m", "tests.fuzz", "--worker", "--seed", str(args.seed),
               "--start", str(first), "--stop", str(stop), "--stride", str(args.jobs),
               "--rows", str(args.rows)]
        if args.ptxas:
            cmd += ["--ptxas", str(args.ptxas), "--ptxas-every", str(args.ptxas_every)]
        procs[lane] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True, env=sub_env(), cwd=ROOT)

    for lane, first in pending.items():
        if first < stop:
            launch(lane, first)
    while procs:
        for lane, p in list(procs.items()):
            started = None
            try:
                out, err = p.communicate(timeout=max(1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
                hung = True
            else:
                hung = False
            for line in out.splitlines():
                rec = json.loads(line)
                if rec.get("start"):
                    started = rec["k"]
                else:
                    results[rec["k"]] = rec
                    started = None
            del procs[lane]
            if started is not None:  # died (or hung) inside this kernel
                why = "hang (killed after the time limit)" if hung else \
                    f"worker died with status {p.returncode}: {err.strip()[-800:]}"
                results[started] = {"k": started, "failure": f"crash: {why}", "crash": True}
                if not hung and started + args.jobs < stop:
                    launch(lane, started + args.jobs)
            elif p.returncode and not hung:
                raise SystemExit(f"fuzz worker failed: {err}")
    return results


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--rows", type=int, default=32)
    ap.add_argument("--kernel", type=int, help="shrink and print this kernel")
    ap.add_argument("--ptxas", type=int, default=0,
                    help="also assemble about this many of the kernels with ptxas (sm_90)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds for the whole run")
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--stop", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--stride", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--ptxas-every", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args)
        return 0
    if args.kernel is not None:
        return shrink_one(args)
    if args.ptxas:
        args.ptxas_every = max(1, args.count // args.ptxas)
        if not ptxas_path():
            print("fuzz: ptxas not found (CUDA_HOME); skipping the ptxas sample", file=sys.stderr)
            args.ptxas = 0
    t0 = time.time()
    results = run_workers(args)
    failed = sorted(k for k, r in results.items() if "failure" in r)
    compared = sum(r.get("compared", 0) for r in results.values())
    skipped = sum(r.get("skipped", 0) for r in results.values())
    assembled = sum(1 for r in results.values() if r.get("ptxas") == "ok")
    missing = args.count - len(results)
    print(f"fuzz: seed {args.seed}: {len(results)} kernels, {len(failed)} failed, "
          f"{compared} rows compared, {skipped} rows skipped (open topics), "
          f"{assembled} assembled by ptxas, {time.time() - t0:.1f} s")
    for k in failed:
        r = results[k]
        print(f"\n== seed {args.seed} kernel {k}: {r['failure']}")
        if args.no_shrink or r.get("crash"):
            prog, _ = make(args.seed, k, args.rows)
            from .program import source
            print(source(prog, kernel_name(args.seed, k)))
            continue
        p = subprocess.run([sys.executable, "-m", "tests.fuzz", "--seed", str(args.seed),
                            "--kernel", str(k), "--rows", str(args.rows)],
                           capture_output=True, text=True, env=sub_env(), cwd=ROOT, timeout=900)
        print(p.stdout + p.stderr)
    if missing > 0:
        print(f"fuzz: {missing} kernels did not report (time limit)")
    return 1 if failed or missing > 0 else 0


if __name__ == "__main__":
    sys.exit(main())
