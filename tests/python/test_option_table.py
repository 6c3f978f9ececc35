"""The Python options are declared once (pycuda_jit/_core_src/JitOptions.def):
the table names every option cuda.jit and compile_ptx pass, bad values are
a TypeError / ValueError naming the option, and a bool is no count (True
was taken as 3 for every int option)."""
import inspect
import re

import pytest

from pycuda_jit import cuda
from pycuda_jit._lazy import core


def empty():
    pass


def _table():
    return {name: (default, doc) for name, default, doc in core().jit_options()}


def test_every_jit_option_is_a_row():
    rows = _table()
    # cuda.jit's options that reach the compiler (the others choose what is
    # built: a device function, inlining).
    not_rows = {"func_or_sig", "device", "inline", "forceinline", "kwargs"}
    params = set(inspect.signature(cuda.jit).parameters) - not_rows
    assert params <= set(rows), params - set(rows)
    for name, (default, doc) in rows.items():
        assert doc and default, name
        if name in inspect.signature(cuda.jit).parameters:
            assert repr(inspect.signature(cuda.jit).parameters[name].default) == default, name


def test_unknown_option_is_a_type_error():
    with pytest.raises(TypeError, match="unknown compile option 'max_regs'"):
        core().compile_ptx(empty, "void()", 9, 0, {"max_regs": 3})


@pytest.mark.parametrize("kw", [{"max_registers": True}, {"launch_bounds": True},
                                {"launch_bounds": (128, True)}])
def test_a_bool_is_no_count(kw):
    # It compiled with .maxnreg 3 / .maxntid 3 before.
    name = next(iter(kw))
    with pytest.raises(TypeError, match=f"{name} must be an int, not True"):
        cuda.compile_ptx(empty, "void()", **kw)
    with pytest.raises(TypeError, match=f"{name} must be an int, not True"):
        cuda.jit(**kw)(empty)


@pytest.mark.parametrize("kw,exc,msg", [
    ({"max_registers": "32"}, TypeError, "max_registers must be an int, not '32'"),
    ({"max_registers": 2.5}, TypeError, "max_registers must be an int, not 2.5"),
    ({"max_registers": -1}, ValueError, "max_registers must be positive, not -1"),
    ({"launch_bounds": (128, -2)}, ValueError, "launch_bounds must be positive"),
    ({"launch_bounds": "a"}, TypeError, "launch_bounds must be an int, not 'a'"),
    ({"opt": 7}, ValueError, "opt must be 0, 1, 2 or 3"),
    ({"fastmath": 3}, TypeError, "fastmath must be True, False or a set"),
])
def test_bad_values_name_the_option(kw, exc, msg):
    with pytest.raises(exc, match=re.escape(msg)):
        cuda.compile_ptx(empty, "void()", **kw)


def test_cpu_timeout_and_link_types():
    with pytest.raises(TypeError, match="cpu_timeout must be a number of seconds, not 'x'"):
        cuda.jit(cpu_timeout="x")(empty)
    with pytest.raises(TypeError, match="cpu_timeout must be a number of seconds, not True"):
        cuda.jit(cpu_timeout=True)(empty)


def test_numpy_ints_are_counts():
    np = pytest.importorskip("numpy")
    ptx, _ = cuda.compile_ptx(empty, "void()", max_registers=np.int64(40),
                              launch_bounds=(np.int32(128), 2))
    assert re.search(r"\.maxnreg\s+40\b", ptx)
    assert re.search(r"\.maxntid\s+128\b", ptx)


def test_python_options_dict_keys_are_rows():
    # cuda._options builds the dict the table parses: every key is a row, and
    # every row is a key or one that compile_ptx / cuda.jit(link=) adds.
    from pycuda_jit.cuda import _options
    keys = set(_options(False, False, 3, False))
    rows = set(_table())
    assert keys <= rows
    assert rows - keys == {"link", "device", "device_name", "assume_noalias", "lto"}
