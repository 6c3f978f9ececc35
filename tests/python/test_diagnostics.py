"""Every diagnostic names the user's file and line, shows the source and,
where one exists, a hint; no C++ detail leaks into the message."""
import inspect

import numpy as np
import pytest

from pycuda_jit import cuda, errors

HERE = __file__


def line_of(func, needle):
    lines, start = inspect.getsourcelines(func)
    for k, text in enumerate(lines):
        if needle in text:
            return start + k
    raise AssertionError(needle)


def compile_error(func, sig="void(float32[:])"):
    with pytest.raises(errors.CompileError) as info:
        cuda.compile_ptx(func, sig)
    return info.value


def k_dict(x):
    d = {1: 2}
    x[0] = 1


def k_list(x):
    x[0] = [1, 2][0]


def k_set(x):
    s = {1, 2}
    x[0] = 1


def k_comprehension(x):
    v = [i for i in range(3)]
    x[0] = 1


def k_try(x):
    try:
        x[0] = 1
    except Exception:
        x[0] = 2


def k_with(x):
    with open("f"):
        x[0] = 1


def k_generator(x):
    yield x


def k_lambda(x):
    f = lambda v, *, w=1: v + w  # noqa: E731
    x[0] = f(1)


def k_import(x):
    import os
    x[0] = 1


def k_fstring(x):
    s = f"{x}"
    x[0] = 1


def k_star_call(x):
    x[0] = max(x[1], *x)


def k_global_store(x):
    global G
    G = 1


def k_unknown_call(x):
    x[0] = np.linalg.norm(x)


def k_type_mismatch(x):
    x[0] = x + 1.0


def k_unknown_name(x):
    x[0] = not_defined_anywhere


def k_return_value(x):
    return x[0]


def k_bad_index(x):
    x[1.5] = 2.0


def k_attr_store(x):
    x.shape = 3


def k_phi_conflict(x):
    if x[0] > 0:
        v = x
    else:
        v = 1.0
    x[0] = v


def k_print_kwargs(x):
    print(x[0], sep=",")


CASES = [
    (k_print_kwargs, errors.TypingError, "print() in kernels takes no keyword arguments", 'print(x[0], sep=",")', "one call per line"),
    (k_dict, errors.UnsupportedError, "dict displays are not supported", "d = {1: 2}", "cuda.local.array"),
    (k_list, errors.UnsupportedError, "list displays are not supported", "x[0] = [1, 2][0]", "cuda.local.array"),
    (k_set, errors.UnsupportedError, "set displays are not supported", "s = {1, 2}", None),
    (k_comprehension, errors.UnsupportedError, "not supported in kernels", "v = [i for", None),
    (k_try, errors.UnsupportedError, "try/except/finally is not supported", "try:", None),
    (k_with, errors.UnsupportedError, "'with' statements are not supported", 'with open("f"):', None),
    (k_generator, errors.UnsupportedError, "generators", "yield x", None),
    (k_lambda, errors.UnsupportedError, "keyword-only parameters of nested functions", "f = lambda", "ordinary parameters"),
    (k_import, errors.UnsupportedError, "import statements", "import os", "module level"),
    (k_fstring, errors.UnsupportedError, "string formatting", 's = f"{x}"', None),
    (k_star_call, errors.UnsupportedError, "arguments before a *tuple", "max(x[1], *x)", None),
    (k_global_store, errors.UnsupportedError, "assigning to a global", "G = 1", None),
    (k_unknown_call, errors.UnsupportedError, "numpy.linalg.norm", "np.linalg.norm(x)", None),
    (k_type_mismatch, errors.TypingError, "unsupported operand types for +: array(float32, 1d, A) (argument 'x') and float64 (the literal 1.0)", "x + 1.0", "element by element"),
    (k_unknown_name, errors.NameResolutionError, "name 'not_defined_anywhere' is not defined", "not_defined_anywhere", None),
    (k_return_value, errors.TypingError, "a kernel must have void return type: it returns float32", "return x[0]", "array argument"),
    (k_bad_index, errors.TypingError, "array indices must be integers, slices, None or ..., not float64", "x[1.5] = 2.0", None),
    (k_attr_store, errors.UnsupportedError, "assigning to attributes", "x.shape = 3", None),
    (k_phi_conflict, errors.TypingError, "incompatible types on different paths: array(float32, 1d, A) (argument 'x') and float64 (the literal 1.0)", "x[0] = v", None),
]


@pytest.mark.parametrize("func, cls, message, source, hint", CASES, ids=[c[0].__name__ for c in CASES])
def test_diagnostic(func, cls, message, source, hint):
    err = compile_error(func)
    assert isinstance(err, cls), type(err)
    text = str(err)
    assert message in text
    assert err.file == HERE
    assert err.line == line_of(func, source), text
    assert source.strip() in text  # the source line is shown
    if hint:
        assert hint in err.hint
    for leak in (".cpp", "pcj::", "std::"):
        assert leak not in text


def test_caret_marks_the_expression():
    err = compile_error(k_type_mismatch)
    lines = str(err).splitlines()
    src = next(i for i, l in enumerate(lines) if "x[0] = x + 1.0" in l)
    caret = lines[src + 1]
    start = lines[src].index("x + 1.0")
    assert caret.index("^") == start and caret.count("^") == len("x + 1.0")


def test_typing_errors_are_type_errors():
    with pytest.raises(TypeError):
        cuda.compile_ptx(k_type_mismatch, "void(float32[:])")


def test_lazy_kernel_reports_at_launch():
    k = cuda.jit(k_dict)
    with pytest.raises(errors.UnsupportedError, match="dict displays"):
        k[1, 1](np.zeros(1, np.float32))


def test_unsupported_argument_type():
    k = cuda.jit(k_list)
    with pytest.raises(TypeError, match="kernel argument 1: kernels cannot take a dict"):
        k[1, 1]({})
