"""The conformance suite (see harness.py): runs under pytest and under
`python -m unittest discover -s tests/conformance` on every Python."""
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for p in (ROOT, HERE):
    if p not in sys.path:
        sys.path.insert(0, p)

warnings.filterwarnings("ignore", message="pycuda_jit: no CUDA GPU")

from harness import make_testcase  # noqa: E402

Conformance = make_testcase()
