"""Corpus: control flow outside the kernel language (async, generators,
try/except/finally, with, raise forms outside the language, match, del).  The line with
`# <- error` is where the error must point."""
import contextlib

from pycuda_jit.errors import NameResolutionError, TypingError, UnsupportedError

from tests.corpus.cases import lang


def passthrough(f):
    return f


# ---- async ---------------------------------------------------------------------------

@lang(UnsupportedError, match="async")
async def async_kernel(x):  # <- error
    x[0] = 1


@lang(UnsupportedError, match="async")
@passthrough
async def async_two_decorators(x):  # <- error
    x[0] = 1


@lang(UnsupportedError, match="async")
async def async_with_await(x):  # <- error
    x[0] = 1
    await x


@lang(UnsupportedError, match="async")
async def async_for(x):  # <- error
    async for v in x:
        x[0] = v


@lang(UnsupportedError, match="async")
async def async_with(x):  # <- error
    async with x:
        x[0] = 1


@lang(UnsupportedError, match="async")
async def async_generator(x):  # <- error
    yield x[0]


@lang(UnsupportedError, match="async")
async def async_comprehension(x):  # <- error
    x[0] = [v async for v in x][0]


# ---- generators ------------------------------------------------------------------------

@lang(UnsupportedError, match="generator")
def gen_yield(x):
    x[0] = 1
    yield x[0]  # <- error


@lang(UnsupportedError, match="generator")
def gen_yield_in_loop(x):
    for i in range(3):
        x[i] = i
        if i > 1:
            yield i  # <- error


@lang(UnsupportedError, match="generator")
def gen_yield_from(x):
    x[0] = 1
    yield from range(3)  # <- error


@lang(UnsupportedError, match="generator")
def gen_yield_expression(x):
    v = yield  # <- error
    x[0] = v


@lang(UnsupportedError, match="generator")
def gen_bare_yield_after_return(x):
    x[0] = 1
    if x[1] > 0:
        return
    yield  # <- error


@lang(UnsupportedError)
def gen_expression(x):
    x[0] = sum(v for v in range(3))  # <- error


# ---- try / except / finally -------------------------------------------------------------

@lang(UnsupportedError, match="try")
def try_except(x):
    x[0] = 0
    try:  # <- error
        x[0] = 1
    except Exception:
        x[0] = 2


@lang(UnsupportedError, match="try")
def try_first_statement(x):
    try:  # <- error
        x[0] = 1
    except IndexError:
        pass


@lang(UnsupportedError, match="try")
def try_finally(x):
    try:  # <- error
        x[0] = 1
    finally:
        x[1] = 2


@lang(UnsupportedError, match="try")
def try_except_else(x):
    v = x[0]
    try:  # <- error
        v = v + 1
    except ValueError:
        v = 0
    else:
        v = 2
    x[0] = v


@lang(UnsupportedError, match="try")
def try_in_loop(x):
    for i in range(4):
        x[i] = i
        try:  # <- error
            x[i] = x[i] / 0
        except ZeroDivisionError:
            x[i] = 0


@lang(UnsupportedError, match="try")
def try_in_branch(x):
    if x[0] > 0:
        x[1] = 1
    else:
        try:  # <- error
            x[1] = 2
        finally:
            x[2] = 3


@lang(UnsupportedError, match="try")
def try_nested(x):
    x[0] = 1
    try:  # <- error
        try:
            x[0] = 2
        except Exception:
            x[0] = 3
    except Exception:
        x[0] = 4


@lang(UnsupportedError, match="try")
def try_except_star_name(x):
    try:  # <- error
        x[0] = 1
    except (ValueError, TypeError) as e:
        x[0] = len(e.args)


@lang(UnsupportedError, match="try")
def try_pass_body(x):
    x[0] = 1
    try:  # <- error
        x[0] = x[1]
    except BaseException:
        pass
    x[2] = 3


# ---- with ----------------------------------------------------------------------------------

@lang(UnsupportedError, match="with")
def with_statement(x):
    x[0] = 1
    with contextlib.suppress(Exception):  # <- error
        x[0] = 2


@lang(UnsupportedError, match="with")
def with_as(x):
    with contextlib.nullcontext(3) as v:  # <- error
        x[0] = v


@lang(UnsupportedError, match="with")
def with_in_loop(x):
    for i in range(2):
        with contextlib.nullcontext():  # <- error
            x[i] = i


@lang(UnsupportedError, match="with")
def with_two_items(x):
    with contextlib.nullcontext(), contextlib.nullcontext():  # <- error
        x[0] = 1


# ---- raise / assert outside the language (builtin classes with constant arguments work) ----

@lang(UnsupportedError, match="constant string or integer")
def raise_computed_message(x):
    if x[0] < 0:
        raise ValueError(x[0])  # <- error
    x[0] = 1


@lang(UnsupportedError, match="cannot be raised in a kernel")
def raise_non_builtin_class(x):
    x[0] = 1
    raise KeyboardInterrupt  # <- error


@lang(UnsupportedError, match="raise")
def raise_from(x):
    if x[0] > 0:
        raise ValueError("a") from None  # <- error


@lang(UnsupportedError, match="re-raise")
def raise_bare(x):
    x[0] = 1
    raise  # <- error


@lang(UnsupportedError, match="constant string or integer")
def assert_computed_message(x):
    assert x[1] >= 0, x[1]  # <- error
    x[0] = 1


@lang(UnsupportedError, match="not from a variable")
def raise_from_a_variable(x):
    e = ValueError("x")
    for i in range(3):
        x[i] = i
        if x[i] > 10:
            raise e  # <- error


# ---- match / del ---------------------------------------------------------------------------

@lang(UnsupportedError, match="del")
def del_local(x):
    v = x[0]
    del v  # <- error
    x[0] = 1


@lang(UnsupportedError)
def del_item(x):
    x[0] = 1
    del x[1]  # <- error


@lang(UnsupportedError)
def del_attribute(x):
    del x.shape  # <- error


@lang(UnsupportedError)
def del_global(x):
    global SOME_GLOBAL
    del SOME_GLOBAL  # <- error


SOME_GLOBAL = 1


# ---- names -----------------------------------------------------------------------------------

@lang(NameResolutionError, match="not_defined_here")
def undefined_name(x):
    x[0] = 1
    x[1] = not_defined_here  # noqa: F821  # <- error


@lang(NameResolutionError, match="used before")
def unbound_local(x):
    if x[0] > 100:
        x[1] = 1
    x[0] = later  # <- error
    later = 2  # noqa: F841


@lang(NameResolutionError)
def undefined_module_attribute(x):
    x[0] = contextlib.not_a_function()  # <- error
