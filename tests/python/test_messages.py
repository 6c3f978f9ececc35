"""Messages that must point the right way: hints for library functions
kernels do not support, no repeated names, and warnings that name the
user's line (not a line inside pycuda_jit)."""
import inspect
import os
import subprocess
import sys
import textwrap

import cmath
import math

import numpy as np
import pytest

from pycuda_jit import cuda, errors

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def compile_error(func, sig="void(float32[:])"):
    with pytest.raises(errors.CompileError) as info:
        cuda.compile_ptx(func, sig)
    return info.value


def k_np_cumsum(x):
    x[0] = np.cumsum(x)[0]


def k_np_linspace(x):
    t = np.linspace(0, 1, 4)
    x[0] = t[0]


def k_np_dot(x):
    x[0] = np.dot(x, x)


def k_math_fsum(x):
    x[0] = math.fsum(x)


def k_cmath_isclose(x):
    x[0] = cmath.isclose(x[0], x[1])


def user_helper(v):
    return v + 1


def k_plain_function(x):
    x[0] = user_helper(x[0])


@pytest.mark.parametrize("func, name", [
    (k_np_cumsum, "np.cumsum"), (k_np_linspace, "np.linspace"), (k_np_dot, "np.dot")])
def test_numpy_array_functions_get_a_numpy_hint(func, name):
    err = compile_error(func)
    assert isinstance(err, errors.UnsupportedError)
    text = str(err)
    # Named once, as the user wrote it, with what it is.
    assert text.splitlines()[0] == f"'{name}' is a NumPy function, which kernels cannot use"
    assert "device=True" not in text  # not a function of the user's to decorate
    assert err.hint.startswith("numpy." + name[3:] + " and the other NumPy array functions")
    assert "cuda.local.array" in err.hint if name == "np.linspace" else "loop over" in err.hint


@pytest.mark.parametrize("func, name, module", [
    (k_math_fsum, "math.fsum", "math"), (k_cmath_isclose, "cmath.isclose", "cmath")])
def test_unsupported_math_functions_name_the_module(func, name, module):
    err = compile_error(func)
    assert str(err).splitlines()[0] == f"'{name}' is a {module} function, which kernels cannot use"
    assert "device=True" not in str(err)
    assert err.hint.startswith(f"{name} is not supported in kernels")
    assert "docs/language.md" in err.hint


def test_plain_python_functions_still_suggest_a_device_function():
    err = compile_error(k_plain_function)
    assert "user_helper" in str(err) and "@cuda.jit(device=True)" in str(err)


# ---- warnings name the user's line ---------------------------------------------------

FIRST_USE = {
    "to_device": "cuda.to_device(np.zeros(3))",
    "device_array": "cuda.device_array(4)",
    "stream": "cuda.stream()",
    "gpus": "len(cuda.gpus)",
    "launch": "k[1, 1](np.zeros(1))",
}


@pytest.mark.parametrize("use", sorted(FIRST_USE))
def test_no_gpu_warning_names_the_users_line(tmp_path, use):
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(f"""\
        import warnings
        import numpy as np
        from pycuda_jit import cuda

        @cuda.jit
        def k(x):
            x[0] = 1.0

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            {FIRST_USE[use]}
        for w in caught:
            print(f"{{w.filename}}:{{w.lineno}}:{{w.message}}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            print("backend:", cuda.backend())
        """))
    env = {k: v for k, v in os.environ.items() if k != "PYCUDA_JIT_BACKEND"}
    env["PYTHONPATH"] = ROOT
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    if "backend: cuda" in p.stdout:
        pytest.skip("a GPU is present: no fallback warning")
    # One warning, naming the line of the script that first used pycuda_jit.
    [line] = [ln for ln in p.stdout.splitlines() if "no CUDA GPU" in ln]
    assert line.startswith(f"{script}:11:"), line
