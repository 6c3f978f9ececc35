"""The sanitizer corpus: kernels with one seeded bug each, and their fixed
twins (issue 17), in corpus_race.py, corpus_memory.py (uninitialized reads,
bounds, use after free) and corpus_sync.py, registered through corpus_lib.py.

Every case has a kind -- "race", "init", "bounds", "uaf" (use after free,
part of the bounds check) or "sync" -- a buggy kernel whose source marks the
lines of the bug with a trailing ``# !<kind>`` comment, a fixed kernel, and a
``setup(rng, fixed)`` that returns the launch: grid, block, arguments, the
dynamic shared memory size, and for the fixed kernel a check of its results.

    python tests/sanitizer/san_corpus.py list
    python tests/sanitizer/san_corpus.py run CASE bug|fix [--sanitize]

``run`` executes one case on the current backend (the GPU, or the CPU
executor with PYCUDA_JIT_BACKEND=cpu) and exits with 3 when the sanitizer
reported something (it prints the kinds and lines), 4 when a fixed kernel
computed a wrong result, else 0; benchmarks/
sanitizer_vs_compute_sanitizer.py runs every case that way under
compute-sanitizer.  tests/sanitizer/test_corpus.py checks on the CPU executor
that the sanitizer finds every bug at its marked lines and nothing in the
fixed kernels.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from corpus_lib import CASES  # noqa: E402
import corpus_race  # noqa: E402,F401  (registers its cases)
import corpus_memory  # noqa: E402,F401
import corpus_sync  # noqa: E402,F401
from pycuda_jit import cuda  # noqa: E402

# =============================================================================
# Running a case
# =============================================================================

def compiled(c, fixed, **options):
    """The case's kernel compiled with `options` (cached per case)."""
    key = (c.name, fixed, tuple(sorted(options.items())))
    k = _compiled.get(key)
    if k is None:
        k = _compiled[key] = cuda.jit(**options)(c.fixed if fixed else c.buggy)
    return k


_compiled = {}


def run(c, fixed, rng, **options):
    """Runs one case once; returns its Launch (check() verifies a fixed one)."""
    k = compiled(c, fixed, **options)  # first: a sanitized kernel arms the
    spec = c.setup(rng, fixed)          # tracking of freed memory
    if spec.shared:
        k[spec.grid, spec.block, 0, spec.shared](*spec.args)
    else:
        k[spec.grid, spec.block](*spec.args)
    cuda.synchronize()
    return spec


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="the sanitizer corpus")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list")
    r = sub.add_parser("run")
    r.add_argument("case")
    r.add_argument("version", choices=("bug", "fix"))
    r.add_argument("--sanitize", action="store_true",
                   help="compile with sanitize=True (the CPU executor's checks)")
    a = ap.parse_args(argv)
    if a.cmd == "list":
        for c in CASES.values():
            print(f"{c.name:44} {c.kind:7} {c.what}")
        return 0
    c = CASES[a.case]
    rng = np.random.default_rng(17)
    from pycuda_jit import errors
    try:
        spec = run(c, a.version == "fix", rng, **({"sanitize": True} if a.sanitize else {}))
    except errors.KernelError as e:
        kinds = sorted({f.kind for f in e.findings}) or [type(e).__name__]
        lines = sorted({line for f in e.findings for line in f.lines})
        print(f"{c.name} {a.version}: FOUND {','.join(kinds)} lines {lines}")
        return 3
    if a.version == "fix":
        try:
            spec.check()
        except AssertionError as e:
            print(f"{c.name} {a.version}: WRONG RESULT {e}")
            return 4
    print(f"{c.name} {a.version}: ran")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
