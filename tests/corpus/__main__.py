"""python -m tests.corpus [--lang]: the error corpus without pytest (for
the other supported interpreters, which have no numpy: modules that need
it are skipped).  Exit status 1 when a case fails."""
import sys

from tests.corpus import cases
from tests.corpus.check import load, modules, problems, results


def main(argv):
    names = modules("lang_*.py") + ([] if "--lang" in argv else modules("host_*.py"))
    failed = total = 0
    for m in load(names):
        recs, goods = results(m)
        for c in cases.LANG.get(m, []) + cases.HOST.get(m, []):
            total += 1
            p = problems(c, recs[c.name])
            if bool(p) != bool(c.xfail):
                failed += 1
                why = p or [f"passes, but is marked xfail ({c.xfail})"]
                print(f"FAIL {m}.{c.name}: " + "\n    ".join(why))
        if not goods or not all(g is True for g in goods):
            failed += 1
            print(f"FAIL {m}: the good kernel did not run after the cases ({goods})")
    print(f"corpus: {total} cases, {failed} failed ({sys.executable})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
