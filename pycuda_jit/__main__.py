"""python -m pycuda_jit info | compile | cache

  info [--json]                      versions, CUDA toolkit pieces and where they
                                     were found, driver, GPUs, backend, cache
  compile FILE.py:KERNEL --sig SIG [--cc 9.0] [-o out.ptx|out.cubin]
                                     ahead-of-time PTX or cubin, no GPU needed
  cache list|info|clear [--dir D]    the on-disk kernel cache
"""
import argparse
import json
import sys


def _info(args):
    from . import _info
    r = _info.report()
    print(json.dumps(r, indent=2) if args.json else _info.format_report(r))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m pycuda_jit")
    sub = ap.add_subparsers(dest="cmd", required=True)
    info = sub.add_parser("info", help="versions, CUDA toolkit, driver, GPUs, backend, cache")
    info.add_argument("--json", action="store_true", help="machine-readable output")
    comp = sub.add_parser("compile", help="compile one kernel ahead of time to PTX or a cubin")
    comp.add_argument("target", metavar="FILE.py:KERNEL")
    comp.add_argument("--sig", help="signature, e.g. 'void(float32[::1], float32)' "
                                    "(default: the kernel's one eager signature)")
    comp.add_argument("--cc", default="9.0", help="compute capability (default 9.0)")
    comp.add_argument("-o", "--output", help="out.ptx or out.cubin (default KERNEL.sm_XY.ptx)")
    comp.add_argument("--debug", action="store_true", help="bounds-checked accesses")
    comp.add_argument("--lineinfo", action="store_true", help="source line information")
    comp.add_argument("--fastmath", action="store_true")
    comp.add_argument("--fmad", type=int, choices=[0, 1], default=None,
                      help="floating-point contraction (default: PYCUDA_JIT_FMAD or 1)")
    comp.add_argument("--opt", type=int, choices=[0, 1, 2, 3], default=3)
    comp.add_argument("--max-registers", type=int, default=None)
    cache = sub.add_parser("cache", help="the on-disk kernel cache")
    cache.add_argument("action", choices=["list", "info", "clear"])
    cache.add_argument("--dir", help="cache directory (default: $PYCUDA_JIT_CACHE_DIR "
                                     "or the per-user cache directory)")
    args = ap.parse_args(argv)
    if args.cmd == "info":
        return _info(args)
    if args.cmd == "compile":
        from . import _aot
        return _aot.main(args)
    from ._lazy import core
    c = core()
    d = args.dir or c.cache_dir()
    if args.action == "clear":
        print(f"removed {c.cache_clear(d)} entries from {d}")
        return 0
    entries = c.cache_list(d)
    if args.action == "info":
        valid = [e for e in entries if e["valid"]]
        size = sum(e["bytes"] for e in entries)
        print(f"directory: {d}")
        print(f"entries:   {len(valid)} valid, {len(entries) - len(valid)} ignored (invalid)")
        print(f"size:      {size} bytes")
        print(f"compiler:  {c.build_id()}")
        return 0
    for e in entries:
        state = "ok" if e["valid"] else f"IGNORED ({e['problem']})"
        print(f"{e['key'][:16]}  {e['bytes']:>9}  {','.join(e['sections']):<18} "
              f"{e['kernel'] or '-':<32} {state}")
    print(f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'} in {d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
