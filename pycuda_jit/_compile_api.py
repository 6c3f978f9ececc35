"""numba-cuda's ahead-of-time compile functions: ``compile_ptx`` (kernels and
device functions), ``compile``, ``compile_all``, ``compile_for_current_device``.
No GPU is needed.

A device function (``device=True``) is compiled as an exported PTX function
with the C ABI: ``.visible .func (.param .b32 func_retval0) name(.param ...)``
-- its parameters as they are, its result in ``func_retval0`` (none for a
function returning None).  pycuda_jit has no other device-function ABI:
``abi="numba"`` (compile_ptx's default, as in numba-cuda) gives the C ABI
too, under the mangled name instead of the Python name.
"""
from . import types as _types
from ._lazy import core

_ABIS = ("c", "numba")
_OUTPUTS = ("ptx", "ltoir")


def _return_type(text):
    """The type object of the compiler's spelling of a result type."""
    if text == "none":
        return _types.none
    for value in vars(_types).values():
        if isinstance(value, _types.Type) and str(value) == text:
            return value
    # datetime64[D], [char x 5]: a type object made for its unit / width
    scalar = _types._scalar_type(text)
    if scalar is not None:
        return scalar
    return text  # a type with no object of its own (a tuple, a record): its text


def _device_name(pyfunc, abi, abi_info):
    """The exported symbol: abi_info's abi_name, else (C ABI) the function's
    name; None (the mangled name) for abi="numba"."""
    name = (abi_info or {}).get("abi_name")
    if name is None and abi == "c":
        name = pyfunc.__name__
    if name is not None and not name.replace("$", "_").isidentifier():
        raise ValueError(f"'{name}' is not a valid PTX function name; give one with "
                         "abi_info={'abi_name': ...}")
    return name


def compile_ptx(pyfunc, sig, debug=False, lineinfo=False, device=False, fastmath=False,
                cc=None, opt=True, abi="numba", abi_info=None, fmad=None,
                launch_bounds=None, max_registers=None, forceinline=False):
    """Compile ``pyfunc`` for ``sig`` (a string, a signature object or a tuple
    of argument types) to PTX for compute capability ``cc`` (default 9.0);
    needs no GPU.  Returns (ptx, return type): void for a kernel; for a
    device function (``device=True``) the signature's result, or the one
    inferred when the signature gives none.  ``launch_bounds`` and
    ``max_registers`` as for cuda.jit (kernels)."""
    from .cuda import _options
    if abi not in _ABIS:
        raise NotImplementedError(f"Unsupported ABI: {abi}")
    if abi == "c" and not device:
        raise NotImplementedError("The C ABI is not supported for kernels")
    if forceinline:
        raise ValueError("Can only designate forced inlining in LTO-IR; pycuda_jit "
                         "marks device functions alwaysinline with "
                         "cuda.jit(device=True, forceinline=True)")
    cc = tuple(cc or (9, 0))
    opts = _options(debug, fastmath, opt, lineinfo, fmad=fmad, max_registers=max_registers,
                    launch_bounds=launch_bounds)
    if device:
        opts["device"] = True
        opts["device_name"] = _device_name(pyfunc, abi, abi_info)
    # cc=(10, 0, 'a'): arch-specific PTX (sm_100a), only when asked; a cc
    # newer than the code generator knows gives its newest architecture.
    ptx, _name, _dumps, ret = core().compile_ptx(
        pyfunc, _types.signature_text(sig), cc[0], cc[1], opts, None,
        str(cc[2]) if len(cc) > 2 else "")
    return ptx, (_return_type(ret) if device else _types.void)


def compile(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False,
            cc=None, opt=True, abi="c", abi_info=None, output="ptx", forceinline=False,
            launch_bounds=None):
    """compile_ptx with numba-cuda's ``compile`` defaults (a device function
    with the C ABI).  ``output="ltoir"``: LTO-IR bytes from the toolkit's
    libNVVM (through the NVVM IR writer; needs libNVVM, no GPU), which
    nvJitLink links with ``-lto`` (e.g. ``cuda.LTOIRSource`` in a kernel's
    ``link=``); ``forceinline=True`` (LTO-IR only) marks the function
    alwaysinline there."""
    if output not in _OUTPUTS:
        raise NotImplementedError(f"Unsupported output type: {output}")
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR")
    if output == "ltoir":
        return _compile_ltoir(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                              fastmath=fastmath, cc=cc, opt=opt, abi=abi, abi_info=abi_info,
                              forceinline=forceinline, launch_bounds=launch_bounds)
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                       fastmath=fastmath, cc=cc, opt=opt, abi=abi, abi_info=abi_info,
                       launch_bounds=launch_bounds)


def _compile_ltoir(pyfunc, sig, debug, lineinfo, device, fastmath, cc, opt, abi, abi_info,
                   forceinline, launch_bounds):
    """compile(output="ltoir"): (LTO-IR bytes, return type)."""
    from .cuda import _options
    if abi not in _ABIS:
        raise NotImplementedError(f"Unsupported ABI: {abi}")
    if abi == "c" and not device:
        raise NotImplementedError("The C ABI is not supported for kernels")
    cc = tuple(cc or (9, 0))
    opts = _options(debug, fastmath, opt, lineinfo, launch_bounds=launch_bounds)
    if device:
        opts["device"] = True
        opts["device_name"] = _device_name(pyfunc, abi, abi_info)
    code, _name, _dumps, ret = core().compile_ptx(
        pyfunc, _types.signature_text(sig), cc[0], cc[1], opts, None,
        str(cc[2]) if len(cc) > 2 else "", "ltoir", bool(forceinline))
    return code, (_return_type(ret) if device else _types.void)


def compile_all(pyfunc, sig, debug=False, lineinfo=False, device=True, fastmath=False,
                cc=None, opt=True, abi="c", abi_info=None, output="ltoir",
                forceinline=False, launch_bounds=None):
    """``compile`` returning ([code], return type): the list holds the
    function's own code (pycuda_jit links nothing else into it)."""
    code, resty = compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                          fastmath=fastmath, cc=cc, opt=opt, abi=abi, abi_info=abi_info,
                          output=output, forceinline=forceinline,
                          launch_bounds=launch_bounds)
    return [code], resty


def compile_for_current_device(pyfunc, sig, **kwargs):
    """``compile`` for the compute capability of the current device."""
    from .devices import get_current_device
    return compile(pyfunc, sig, cc=get_current_device().compute_capability, **kwargs)



def device_function_ptx(devfn, signature, cc=None, stage=None):
    """DeviceFunction.inspect_asm: the function compiled on its own (mangled
    name) with the options cuda.jit gave it; the text of ``stage`` ("llvm"...,
    for inspect_llvm) instead of the PTX when given."""
    from .cuda import _options
    cc = tuple(cc or (9, 0))
    opts = dict(devfn._pcj_options) or _options(False, False, 3, False)
    opts["device"] = True
    opts["device_name"] = None
    ptx, _name, dumps, _ret = core().compile_ptx(
        devfn.py_func, _types.signature_text(signature), cc[0], cc[1], opts,
        [stage] if stage else [])
    return dumps[stage] if stage else ptx
