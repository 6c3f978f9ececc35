"""The sanitizer corpus (san_corpus.py) on the CPU executor: every seeded bug is
found, with the lines its source marks; the fixed twins run clean and
compute the right values."""
import os
import sys

import numpy as np
import pytest

from pycuda_jit import cuda, errors

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import san_corpus as corpus  # noqa: E402

pytestmark = pytest.mark.skipif(cuda.backend() != "cpu",
                                reason="the sanitizer runs on the CPU executor")

# The error each kind raises, and the kind of its findings.
ERROR = {
    "race": errors.KernelRaceError,
    "init": errors.KernelUninitializedReadError,
    "bounds": errors.KernelIndexError,
    "uaf": errors.KernelUseAfterFreeError,
    "sync": errors.KernelSyncError,
}
FINDING = {"race": "race", "init": "uninitialized", "bounds": "bounds",
           "uaf": "use-after-free", "sync": "sync"}

NAMES = sorted(corpus.CASES)


def test_corpus_size():
    kinds = [c.kind for c in corpus.CASES.values()]
    assert len(kinds) >= 40
    for kind in ERROR:
        assert kind in kinds


@pytest.mark.parametrize("name", NAMES)
def test_bug_is_found_at_its_lines(name):
    c = corpus.CASES[name]
    marked = c.marked_lines()
    assert marked, f"{name}: no '# !{c.kind}' marks"
    rng = np.random.default_rng(17)
    with pytest.raises(ERROR[c.kind]) as info:
        corpus.run(c, False, rng, sanitize=True)
    found = info.value.findings
    assert found, "the error carries no findings"
    kind = FINDING[c.kind]
    # The error is the seeded bug: its first finding, at marked lines only.
    assert found[0].kind == kind, found[0]
    assert set(found[0].lines) <= marked, (found[0], marked)
    assert found[0].message in str(info.value)
    for f in found:
        if f.kind == kind:
            assert set(f.lines) <= marked, (f, marked)
    if c.kind == "race":  # both accesses, from two different threads
        a, b = found[0].accesses
        assert (a.thread, a.block) != (b.thread, b.block)
        assert a.op != "read" or b.op != "read"


@pytest.mark.parametrize("name", NAMES)
def test_fixed_twin_is_clean(name):
    c = corpus.CASES[name]
    rng = np.random.default_rng(17)
    before = len(cuda.sanitizer_report())
    spec = corpus.run(c, True, rng, sanitize=True)
    spec.check()
    kernel = corpus.compiled(c, True, sanitize=True)
    assert len(cuda.sanitizer_report()) == before, cuda.sanitizer_report()[before:]
    assert kernel is not None
