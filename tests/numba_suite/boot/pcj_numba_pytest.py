"""pytest plugin for one numba-cuda test file (loaded with ``-p pcj_numba_pytest``).

* imports the test files (and their packages) by package name
  (numba.cuda.tests.cudapy.test_x) rather than by path, so the layer's
  finder runs them as test code;
* supplies the ``initialize_from_pytest_config`` fixture that numba-cuda's
  CUDATestCase asks for (numba-cuda defines it in a conftest.py that its
  wheel does not ship);
* appends one JSON line per event to $PCJ_NUMBA_RESULTS:
    {"collected": [ids]}               after collection
    {"collect_error": id, "status", "message"}  a module that did not import
    {"start": id}                      before each test (finds a hang or crash)
    {"id", "status", "message", "detail", "touched"}  after each test
  status: pass, fail (an assertion failed), error (any other exception),
  skip, xfail (an expectedFailure test that failed, as numba-cuda expects),
  xpass (an expectedFailure test whose assertions held).
"""
import importlib
import importlib.util
import json
import os
import sys

import unittest

import pytest
from _pytest import python as _pytest_python

LAYER = os.environ.get("PCJ_NUMBA_LAYER") == "1"
if LAYER:
    import pcj_numba_layer as layer

    layer.install()


def tests_root():
    spec = importlib.util.find_spec("numba_cuda")
    return os.path.join(spec.submodule_search_locations[0], "numba", "cuda", "tests")


_ROOT = os.path.realpath(tests_root())
_out = None


def _emit(record):
    global _out
    if _out is None:
        path = os.environ.get("PCJ_NUMBA_RESULTS")
        if not path:
            return
        _out = open(path, "a", buffering=1)
    _out.write(json.dumps(record) + "\n")
    _out.flush()


def _first_line(text, limit=200):
    for line in str(text).splitlines():
        line = line.strip()
        if line:
            return line[:limit]
    return ""


def describe(exc_type, exc):
    name = exc_type.__name__
    mod = getattr(exc_type, "__module__", "")
    if mod not in ("builtins", "") and not mod.startswith("numba.cuda.tests"):
        name = f"{mod}.{name}"
    return f"{name}: {_first_line(exc)}"


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    if request.cls is not None:
        request.cls._dump_failed_filechecks = False
    yield


_collect_failures = {}


def _canonical_import(path, **kwargs):
    """pytest's import_path for numba-cuda's test tree: by package name."""
    real = os.path.realpath(str(path))
    if real != _ROOT and not real.startswith(_ROOT + os.sep):
        return _import_path(path, **kwargs)
    rel = os.path.relpath(real, _ROOT)
    if os.path.basename(rel) == "__init__.py":
        rel = os.path.dirname(rel)
    rel = rel[:-3] if rel.endswith(".py") else rel
    name = "numba.cuda.tests" + ("" if rel in ("", ".") else "." + rel.replace(os.sep, "."))
    if LAYER:
        layer.ensure_first()
    try:
        return importlib.import_module(name)
    except BaseException as e:
        if not isinstance(e, (KeyboardInterrupt, SystemExit)):
            skipped = isinstance(e, (pytest.skip.Exception, unittest.SkipTest))
            _collect_failures[os.path.relpath(real, _ROOT)] = (
                "skip" if skipped else "error", describe(type(e), e))
        raise


# pytest imports test modules and packages by path through this one name
# (pytest 7 to 9); numba-cuda's tree must be imported by package name.
_import_path = _pytest_python.import_path
_pytest_python.import_path = _canonical_import


def pytest_collectreport(report):
    key = report.nodeid.split("::")[0]
    if report.failed or (report.skipped and key in _collect_failures):
        status, message = _collect_failures.get(
            key, ("error", _first_line(report.longreprtext)))
        _emit({"collect_error": report.nodeid, "status": status, "message": message,
               "touched": sorted(set(layer.touched)) if LAYER else []})


def pytest_collection_finish(session):
    _emit({"collected": [item.nodeid for item in session.items]})


# ---- per-test outcome ---------------------------------------------------------------

_state = {}


def pytest_runtest_logstart(nodeid, location):
    _state[nodeid] = {"status": None, "message": "", "detail": ""}
    if LAYER:
        del layer.touched[:]
    _emit({"start": nodeid})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None:
        exc = call.excinfo.value
        report.pcj_assertion = isinstance(exc, (AssertionError, pytest.fail.Exception))
        report.pcj_message = describe(call.excinfo.type, exc)
        report.pcj_detail = str(exc)[:2000]


def pytest_runtest_logreport(report):
    st = _state.setdefault(report.nodeid, {"status": None, "message": "", "detail": ""})
    if report.failed:
        if st["status"] not in ("fail", "error"):
            if report.when == "call" and "Unexpected success" in report.longreprtext:
                st["status"] = "xpass"  # an expectedFailure whose assertions held
            elif report.when == "call" and getattr(report, "pcj_assertion", False):
                st["status"] = "fail"
            else:
                st["status"] = "error"
            st["message"] = getattr(report, "pcj_message", "") or _first_line(report.longreprtext)
            st["detail"] = getattr(report, "pcj_detail", "") or report.longreprtext[-2000:]
            if report.when != "call":
                st["message"] = f"in {report.when}: {st['message']}"
    elif report.skipped and st["status"] is None:
        if hasattr(report, "wasxfail"):
            st["status"] = "xfail"
            st["message"] = getattr(report, "pcj_message", "") or str(report.wasxfail)
        else:
            st["status"] = "skip"
            longrepr = report.longrepr
            reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else longrepr
            st["message"] = _first_line(reason).removeprefix("Skipped: ")
    elif report.passed and report.when == "call" and st["status"] is None:
        st["status"] = "pass"
    if report.when == "teardown":
        _emit({"id": report.nodeid, "status": st["status"] or "error",
               "message": st["message"], "detail": st["detail"],
               "touched": sorted(set(layer.touched)) if LAYER else []})
