"""The error corpus: programs outside the kernel language (lang_*.py) and
bad launches / host calls (host_*.py).  Every case runs in a child process
(tests/corpus/child.py; the cases of one module share a child, and a child
that crashes or hangs is rerun case by case, so the failure lands on its
case) and must raise the expected pycuda_jit exception naming the user's
file and line; the child then compiles and runs a good kernel."""
import sys

import pytest

from tests.corpus import cases
from tests.corpus.check import load, modules, problems, results

MODULES = load(modules("lang_*.py") + modules("host_*.py"))


def _backend():
    import warnings
    from pycuda_jit import cuda
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return cuda.backend()
        except Exception:  # no backend came up: run them (they say so)
            return None


def params(table):
    out = []
    for module in MODULES:
        # A module whose refusals belong to some backends only (BACKENDS:
        # lang_foreign's CUDA C the CPU executor cannot build) is skipped on
        # the others.
        only = getattr(sys.modules[module], "BACKENDS", None)
        skip = only is not None and _backend() not in (None,) + tuple(only)
        for c in table.get(module, []):
            marks = [pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else []
            if skip:
                marks = [pytest.mark.skip(reason=f"refusals of the {'/'.join(only)} backend")]
            out.append(pytest.param(c, id=f"{module.rsplit('.', 1)[1]}.{c.name}", marks=marks))
    return out


@pytest.mark.parametrize("case", params(cases.LANG))
def test_language_case(case):
    rec = results(case.module)[0][case.name]
    assert not problems(case, rec), "\n".join(problems(case, rec))


@pytest.mark.parametrize("case", params(cases.HOST))
def test_host_case(case):
    rec = results(case.module)[0][case.name]
    assert not problems(case, rec), "\n".join(problems(case, rec))


@pytest.mark.parametrize("module", MODULES)
def test_good_kernel_runs_after_the_cases(module):
    # Children that crashed are reported by their case; every other child
    # must have compiled and run the good kernel after its cases.
    goods = results(module)[1]
    assert goods, "no child process finished"
    assert all(g is True for g in goods), goods


def test_corpus_sizes():
    n_lang = sum(len(v) for v in cases.LANG.values())
    n_host = sum(len(v) for v in cases.HOST.values())
    assert n_lang >= 150 and n_host >= 60, (n_lang, n_host)
