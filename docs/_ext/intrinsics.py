"""Sphinx extension: writes intrinsics.md (the kernel-side names) from the
type stub pycuda_jit/cuda/__init__.pyi before the build reads the sources, so the
reference cannot drift from the stub, which tests/python/test_stubs.py checks
against the compiler's registry."""
import ast
import os

SECTIONS = {  # stub class -> the namespace it types
    "_Dim3": None, "_SharedNamespace": "cuda.shared", "_LocalNamespace": "cuda.local",
    "_ConstNamespace": "cuda.const", "_AtomicNamespace": "cuda.atomic",
    "_CooperativeGroups": "cuda.cg", "_GridGroup": "cuda.cg.this_grid()",
    "_Fp16Namespace": "cuda.fp16", "_Bf16Namespace": "cuda.bf16",
    "_Fp8Namespace": "cuda.fp8",
}


def _args(fn):
    a = ast.unparse(fn.args)
    ret = f" -> {ast.unparse(fn.returns)}" if fn.returns is not None else ""
    return f"({a}){ret}"


def _first_line(doc):
    return _cell(" ".join((doc or "").split()))


def _cell(text):
    return text.replace("|", "\\|")  # a table cell


def render(stub_path):
    tree = ast.parse(open(stub_path).read())
    body = tree.body
    start = next(i for i, n in enumerate(body)
                 if isinstance(n, ast.ClassDef) and n.name == "_Dim3")
    rows, seen = [], set()
    for i, node in enumerate(body[start:], start):
        if isinstance(node, ast.FunctionDef) and node.name not in seen:
            seen.add(node.name)
            rows.append((f"cuda.{node.name}{_args(node)}", ast.get_docstring(node)))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            nxt = body[i + 1] if i + 1 < len(body) else None
            doc = nxt.value.value if isinstance(nxt, ast.Expr) else ""
            rows.append((f"cuda.{node.target.id}: {ast.unparse(node.annotation)}", doc))
    out = ["# Kernel-side names", "",
           "Generated from `pycuda_jit/cuda/__init__.pyi`.  These names have a meaning only "
           "inside `@cuda.jit` kernels and device functions; calling them on the "
           "host is an error.  `_Dim3` has the attributes `x`, `y`, `z`.", "",
           "| name | meaning |", "|---|---|"]
    for name, doc in rows:
        out.append(f"| `{_cell(name)}` | {_first_line(doc)} |")
    for node in body:
        if isinstance(node, ast.ClassDef) and SECTIONS.get(node.name):
            out += ["", f"## `{SECTIONS[node.name]}`", "", "| name | meaning |", "|---|---|"]
            for m in node.body:
                if isinstance(m, ast.FunctionDef):
                    out.append(f"| `{_cell(SECTIONS[node.name] + '.' + m.name + _args(m))}` | "
                               f"{_first_line(ast.get_docstring(m))} |")
    return "\n".join(out) + "\n"


def _generate(app, config=None):
    root = os.path.dirname(app.srcdir.rstrip("/")) if isinstance(app.srcdir, str) else \
        str(app.srcdir.parent)
    text = render(os.path.join(root, "pycuda_jit", "cuda", "__init__.pyi"))
    target = os.path.join(str(app.srcdir), "intrinsics.md")
    if not os.path.exists(target) or open(target).read() != text:
        with open(target, "w") as f:
            f.write(text)


def setup(app):
    app.connect("config-inited", _generate)
    return {"parallel_read_safe": True, "version": "1"}
