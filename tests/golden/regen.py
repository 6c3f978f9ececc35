"""Regenerate the golden stage dumps in tests/golden/expected.

    PYTHONPATH=. /usr/bin/python3 tests/golden/regen.py [name ...]

Review the diff (git diff tests/golden/expected) before committing: every
change in emitted IR or PTX should be one you meant.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from golden_lib import STAGES, compile_kernel, kernel_names  # noqa: E402


def main(names):
    for name in names or kernel_names():
        dumps = compile_kernel(name)
        for stage in STAGES:
            path = os.path.join(HERE, "expected", f"{name}.{stage}")
            with open(path, "w") as f:
                f.write(dumps[stage])
        print(f"regenerated {name}")


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main(sys.argv[1:])
