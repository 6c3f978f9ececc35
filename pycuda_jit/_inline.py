"""numba's inline= cost models: ``inline=model`` where ``model(expr,
caller_info, callee_info)`` returns True to inline a call.

numba calls the model with its own IR objects (an ``ir.Expr`` call and
``(func_ir, typemap, calltypes, signature)`` tuples).  pycuda_jit has no
numba IR: the compiler asks the model once for each device function a
function calls (with the first caller that compiles it) and passes
objects that carry what it has: the Python functions, their qualified
names and the callee object; numba's IR fields are present and None
(docs/migration.md)."""


class InlineCall:
    """``expr``: the call of ``callee`` (the device function or kernel
    object) from ``caller`` (the Python function that calls it)."""

    op = "call"

    def __init__(self, caller, callee):
        self.caller = caller
        self.callee = callee
        self.func = callee

    def __repr__(self):
        return f"<call of {self.callee.__qualname__} in {self.caller.__qualname__}>"


class InlineInfo:
    """``caller_info`` / ``callee_info``: the function's Python function
    and qualified name; numba's IR fields are None."""

    func_ir = None
    typemap = None
    calltypes = None
    signature = None

    def __init__(self, py_func):
        self.py_func = py_func
        self.qualname = getattr(py_func, "__qualname__", "?")

    def __repr__(self):
        return f"<inline info of {self.qualname}>"


def is_cost_model(inline):
    """Whether ``inline`` is a cost-model function (not a mode)."""
    return callable(inline) and not isinstance(inline, (bool, str))


def decide(model, caller, callee):
    """The model's answer (a bool) for a call of ``callee`` in ``caller``."""
    callee_func = getattr(callee, "py_func", callee)
    return bool(model(InlineCall(caller, callee), InlineInfo(caller),
                      InlineInfo(callee_func)))
