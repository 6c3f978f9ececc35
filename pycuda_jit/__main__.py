"""python -m pycuda_jit cache list|info|clear"""
import argparse
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m pycuda_jit")
    sub = ap.add_subparsers(dest="cmd", required=True)
    cache = sub.add_parser("cache", help="the on-disk kernel cache")
    cache.add_argument("action", choices=["list", "info", "clear"])
    cache.add_argument("--dir", help="cache directory (default: $PYCUDA_JIT_CACHE_DIR "
                                     "or the per-user cache directory)")
    args = ap.parse_args(argv)
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
