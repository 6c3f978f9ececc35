"""pycuda_jit/cuda/__init__.pyi covers every public name: the module's __all__, and
every kernel-side name of the registry (cuda.threadIdx.x, cuda.atomic.add,
cuda.fp16.hadd, ...), each with a docstring; py.typed marks the package."""
import ast
import inspect
import os

import pycuda_jit
from pycuda_jit import cuda
from pycuda_jit._lazy import core

PKG = os.path.dirname(pycuda_jit.__file__)
STUB = ast.parse(open(os.path.join(PKG, "cuda", "__init__.pyi")).read())


def _docstring_after(body, i):
    nxt = body[i + 1] if i + 1 < len(body) else None
    return (isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str))


def _members(body):
    """name -> (node, has docstring) for defs, classes and annotated names."""
    out = {}
    for i, node in enumerate(body):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            if node.name not in out:  # the first overload carries the docstring
                out[node.name] = (node, ast.get_docstring(node) is not None)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = (node, _docstring_after(body, i))
        elif isinstance(node, ast.ImportFrom) and node.level > 0:  # re-exports
            for a in node.names:
                out[a.asname or a.name] = (node, True)  # documented where defined
    return out


TOP = _members(STUB.body)
CLASSES = {n.name: n for n in STUB.body if isinstance(n, ast.ClassDef)}


def _resolve(key):
    """The stub node for 'cuda.a.b', through the annotated namespace types."""
    parts = key.split(".")[1:]
    node, documented = TOP[parts[0]]
    for part in parts[1:]:
        assert isinstance(node, ast.AnnAssign), key
        ann = node.annotation
        if isinstance(ann, ast.Subscript):  # type[_GridGroup]
            ann = ann.slice
        cls = CLASSES[ann.id]
        node, documented = _members(cls.body)[part]
    return node, documented


def test_py_typed_marker():
    assert os.path.exists(os.path.join(PKG, "py.typed"))


def test_every_registry_name_is_declared_and_documented():
    keys = sorted(k for k in core().intrinsic_keys() if k.startswith("cuda."))
    assert len(keys) > 100
    missing, undocumented = [], []
    for k in keys:
        try:
            _node, documented = _resolve(k)
        except (KeyError, AssertionError):
            missing.append(k)
            continue
        if not documented and k.count(".") == 1:
            undocumented.append(k)
    assert missing == []
    assert undocumented == []


def test_every_public_host_name_is_declared():
    names = set(cuda.__all__) | {"link_ptx", "compile_stages", "Kernel", "DeviceFunction"}
    assert sorted(n for n in names if n not in TOP) == []


def test_declared_names_exist_at_run_time():
    # A stub entry for a name the module does not have would mislead editors.
    for name, (node, _doc) in TOP.items():
        if name.startswith("_") or name in ("Kernel", "DeviceFunction"):
            continue
        assert name in dir(cuda), name


def test_stub_parameters_match_the_functions():
    # Every parameter a function takes at run time is declared in its stub
    # (over all overloads), and the stub declares none it does not take.
    checked = 0
    for node in STUB.body:
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
            continue
        fn = getattr(cuda, node.name, None)
        if not inspect.isfunction(fn):
            continue  # kernel-side names: no Python signature
        stub = set()
        for other in STUB.body:
            if isinstance(other, ast.FunctionDef) and other.name == node.name:
                a = other.args
                stub |= {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
        real = {n for n, p in inspect.signature(fn).parameters.items()
                if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
        assert stub == real, (node.name, sorted(stub ^ real))
        checked += 1
    assert checked >= 6


def test_stub_kernel_methods_match_the_kernel_class():
    cls = cuda._kernel_class()
    checked = 0
    for node in CLASSES["Kernel"].body:
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
            continue
        fn = inspect.getattr_static(cls, node.name, None)
        if not inspect.isfunction(fn):
            continue  # properties and C methods
        a = node.args
        stub = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} - {"self"}
        stub |= {x.arg for x in (a.vararg, a.kwarg) if x}  # *args, **kwargs
        real = set(list(inspect.signature(fn).parameters)[1:])
        assert stub == real, (node.name, sorted(stub ^ real))
        checked += 1
    assert checked >= 5
