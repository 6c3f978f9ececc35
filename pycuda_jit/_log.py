"""pycuda_jit's log: the standard ``logging`` logger ``pycuda_jit``.

Every compile is logged at DEBUG; a compile that took longer than a second
at INFO (so ``logging.basicConfig(level=logging.INFO)`` shows the slow ones).
The C++ dispatcher calls :func:`compiled` after each specialization.
"""
import logging

logger = logging.getLogger("pycuda_jit")

SLOW_COMPILE_MS = 1000.0


def compiled(func, signature, ms, load_path, cache):
    level = logging.INFO if ms >= SLOW_COMPILE_MS else logging.DEBUG
    if not logger.isEnabledFor(level):
        return
    name = getattr(func, "__qualname__", repr(func))
    where = ""
    code = getattr(func, "__code__", None)
    if code is not None:
        where = f" ({code.co_filename}:{code.co_firstlineno})"
    slow = " (longer than a second)" if level == logging.INFO else ""
    logger.log(level, "compiled %s%s for %s in %.1f ms%s [%s, cache %s]",
               name, where, signature, ms, slow, load_path or "-", cache or "off")
