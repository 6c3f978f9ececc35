"""GPU ufuncs: ``vectorize`` and ``guvectorize`` with ``target="cuda"``
(numba-cuda's API; ``cuda.vectorize`` and ``cuda.guvectorize`` are the same).

``@vectorize(["float32(float32, float32)", ...])`` turns a scalar function
into a ufunc over arrays (``@vectorize`` without signatures: one compiled
per input dtypes on first use); ``@guvectorize(["void(float32[:], float32[:])"],
"(n)->(n)")`` turns a function over core arrays into a generalized ufunc.
The function becomes a device function; a kernel is generated around it
per signature and argument shape (one thread per element:
one flat index over contiguous arrays, or the
index unravelled over the broadcast shape), compiled on first use and kept.

A call takes our device arrays, any ``__cuda_array_interface__`` or CUDA
DLPack object (zero-copy), NumPy arrays and anything ``numpy.asarray``
takes (copied to the device), and scalars; ``out=`` and ``stream=``.  The
result stays on the device when an input (or ``out``) is a device array,
else it is copied back, as in numba-cuda.  Signatures match array dtypes
exactly (NumPy's ``casting="no"``); scalars take the signature's type.
"""
import itertools
import linecache
import math
import re
import warnings

import numpy as np

from . import cuda

__all__ = ["vectorize", "guvectorize", "UFunc", "GUFunc"]

_THREADS = 256
_MAX_BLOCKS = 2**31 - 1
_IDENTITIES = {None: None, 0: 0, 1: 1, "reorderable": "reorderable"}


# ---- signatures ----------------------------------------------------------------------

_ALIASES = {"boolean": "bool", "bool_": "bool", "b1": "bool", "intp": "int64",
            "uintp": "uint64", "intc": "int32", "uintc": "uint32", "byte": "int8",
            "half": "float16", "single": "float32", "double": "float64"}
# A name (datetime64/timedelta64 with a [unit]), then [:, ::1] dims or none.
_TYPE_RE = re.compile(r"^(\w+(?:\[[A-Za-z]+\])?)(\[([:,\s1]*)\])?$")


def _signature_text(sig):
    """A signature as text: a string, or pycuda_jit's signature objects
    where the package has them."""
    if isinstance(sig, str):
        return sig
    try:
        from .types import signature_text
    except ImportError:
        raise TypeError(f"signatures are strings such as 'float32(float32, float32)', not {sig!r}") \
            from None
    return signature_text(sig)


def _split_args(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def _parse_type(text, sig):
    """(dtype or None for void, ndim) of one type in a signature."""
    m = _TYPE_RE.match(text.strip())
    if not m:
        raise TypeError(f"cannot read the type '{text}' in the signature '{sig}'")
    name = _ALIASES.get(m.group(1), m.group(1))
    ndim = 0 if m.group(2) is None else len(m.group(3).split(","))
    if name in ("void", "none"):
        if ndim:
            raise TypeError(f"'{text}' is not a type (in the signature '{sig}')")
        return None, 0
    try:
        dtype = np.dtype(name)
    except TypeError:
        raise TypeError(f"unknown type '{m.group(1)}' in the signature '{sig}'") from None
    if dtype.kind not in "biufcMm":
        raise TypeError(f"unknown type '{m.group(1)}' in the signature '{sig}'")
    return dtype, ndim


def _parse_signature(sig):
    """(return (dtype, ndim) or None, [(dtype, ndim) per argument], text)."""
    text = _signature_text(sig)
    m = re.match(r"^\s*([\w\[\]:,\s]*?)\s*\((.*)\)\s*$", text)
    if not m:
        raise TypeError(f"cannot read the signature '{text}': expected 'ret(arg, ...)'")
    ret = _parse_type(m.group(1), text) if m.group(1) else (None, 0)
    args = [_parse_type(a, text) for a in _split_args(m.group(2))]
    return (None if ret[0] is None else ret), args, text


def _check_options(kind, options):
    opts = dict(options)
    nopython = opts.pop("nopython", None)
    if kind == "vectorize":
        if nopython is not None:
            warnings.warn("nopython kwarg for cuda target is redundant", RuntimeWarning,
                          stacklevel=3)
        if opts:
            raise KeyError("Unrecognized options. cuda vectorize target does not support "
                           f"option: '{next(iter(opts))}'")
    else:
        if nopython is not None and not nopython:
            raise TypeError("nopython flag must be True")
        if opts:
            raise TypeError("The following target options are not supported: "
                            + ", ".join(repr(k) for k in opts))


def _check_target(target):
    if target not in ("cuda", "gpu"):
        raise ValueError(f"Unsupported target: {target} (pycuda_jit compiles ufuncs for "
                         "the GPU: target='cuda'; numba's CPU targets stay numba's)")


# ---- kernels generated around the core function --------------------------------------


def _build_kernel(name, source, core, cache):
    """Compile the generated kernel source (kept in linecache, so compile
    errors show its lines) with ``core`` as its global."""
    filename = f"<pycuda_jit {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    scope = {"cuda": cuda, "core": core}
    exec(compile(source, filename, "exec"), scope)
    return cuda.jit(cache=cache)(scope["kernel"])


def _index_names(ndim):
    return [f"i{d}" for d in range(ndim)]


def _loop(lines, extent, ndim, shape_of):
    """One thread per element (the launch covers ``extent``), as a
    hand-written kernel does: the flat index unravelled over the first
    ``ndim`` dimensions of ``shape_of`` (C order)."""
    body = ["    i = cuda.grid(1)", f"    if i < {extent}:"]
    if ndim == 1:
        body.append("        i0 = i")
    elif ndim > 1:
        body.append("        r = i")
        for d in range(ndim - 1, 0, -1):
            body.append(f"        i{d} = r % {shape_of}.shape[{d}]")
            body.append(f"        r = r // {shape_of}.shape[{d}]")
        body.append("        i0 = r")
    return body + ["        " + line for line in lines]


def _ufunc_source(scalars, ndim):
    """kernel(a0, ..., out): out[idx] = core(a0[idx], ...) over out's
    elements; ``scalars`` marks the arguments passed as scalars."""
    args = [f"a{k}" for k in range(len(scalars))]
    idx = ", ".join(_index_names(ndim))
    items = ", ".join(a if s else f"{a}[{idx}]" for a, s in zip(args, scalars))
    extent = "out.shape[0]" if ndim == 1 else "out.size"
    body = _loop([f"out[{idx}] = core({items})"], extent, ndim, "out")
    return "\n".join([f"def kernel({', '.join(args + ['out'])}):"] + body) + "\n"


# ---- argument handling ----------------------------------------------------------------

_SCALARS = (int, float, complex, bool, np.generic)


def _devicearray():
    from . import devicearray
    return devicearray


def _as_device(obj):
    """A device array for a device-resident object, else None."""
    da = _devicearray()
    if isinstance(obj, da.DeviceNDArray):
        return obj
    if isinstance(obj, np.ndarray):
        return None
    if hasattr(obj, "__cuda_array_interface__"):
        return cuda.as_cuda_array(obj)
    dev = getattr(obj, "__dlpack_device__", None)
    if dev is not None and dev()[0] in (2, 3, 13):  # kDLCUDA, kDLCUDAHost, kDLCUDAManaged
        return cuda.from_dlpack(obj)
    return None


def _broadcast_view(ary, shape):
    """A view of the device array ``ary`` with NumPy's broadcasting to
    ``shape`` (stride 0 along the broadcast axes)."""
    if tuple(ary.shape) == tuple(shape):
        return ary
    lead = len(shape) - len(ary.shape)
    strides = [0] * lead + [0 if n == 1 and m != 1 else s
                            for n, m, s in zip(ary.shape, shape[lead:], ary.strides)]
    return ary._view(ary.device_ctypes_pointer_value, tuple(shape), tuple(strides))


def _to_device(host, stream):
    return _devicearray().to_device(host, stream=stream)


def _finish(dev, host_out, stream):
    """Copy ``dev`` to ``host_out`` (or a new array) and return it."""
    host = dev.copy_to_host(host_out, stream=stream)
    if stream:
        stream.synchronize()
    return host


def _blocks(n, threads):
    blocks = -(-n // threads)
    if blocks > _MAX_BLOCKS:
        raise ValueError(f"{n} elements need more than {_MAX_BLOCKS} blocks of {threads} threads")
    return max(1, blocks)


# ---- vectorize ----------------------------------------------------------------------------


class UFunc:
    """A GPU ufunc made by ``vectorize``: call it on arrays and scalars.
    Without signatures it is dynamic (numba's DUFunc): a call with input
    dtypes it has not seen compiles the function for them, its result type
    inferred, and adds that signature."""

    def __init__(self, pyfunc, signatures, identity=None, cache=False):
        self.py_func = pyfunc
        self.__name__ = pyfunc.__name__
        self.__qualname__ = getattr(pyfunc, "__qualname__", pyfunc.__name__)
        self.__doc__ = pyfunc.__doc__
        self.identity = identity
        self._cache = cache
        self._types = {}     # input dtypes -> (result dtype, signature text)
        self._cores = {}     # signature text -> device function
        self._kernels = {}   # (signature text, scalar mask, ndim) -> kernel
        self._resolved = {}  # (dtype, is scalar) per argument -> input dtypes
        for sig in signatures:
            self._add(sig)
        self._dynamic = not self._types
        if self._dynamic:
            self.nin = _positional_arity(pyfunc)
        else:
            self.nin = len(next(iter(self._types)))
        self.nout = 1
        self.nargs = self.nin + 1
        self._no_scalars = (False,) * self.nin
        self._last_1d = None
        self._DeviceNDArray = _devicearray().DeviceNDArray

    def _add(self, sig):
        ret, args, text = _parse_signature(sig)
        if text.lstrip().startswith("(") and args and not any(nd for _, nd in args):
            # argument types only (numba's (datetime_t, datetime_t)): the
            # result type is the one typing infers
            self._compile_for(tuple(dt for dt, _ in args))
            return
        if ret is None or ret[1] or any(nd for _, nd in args):
            raise TypeError(f"a vectorize signature takes and returns scalars: '{text}'")
        key = tuple(dt for dt, _ in args)
        if self._types and len(key) != len(next(iter(self._types))):
            raise TypeError(f"signature '{text}' has {len(key)} arguments, the others "
                            f"{len(next(iter(self._types)))}")
        self._types.setdefault(key, (ret[0], text))

    @property
    def types(self):
        """The signatures as NumPy's ufunc.types spells them ('ff->f')."""
        return ["".join(dt.char for dt in k) + "->" + r.char for k, (r, _) in self._types.items()]

    @property
    def ntypes(self):
        return len(self._types)

    def __repr__(self):
        return f"<pycuda_jit GPU ufunc {self.__qualname__}>"

    # -- compiled pieces

    def _core(self, text):
        core = self._cores.get(text)
        if core is None:
            core = self._cores[text] = cuda.jit(text, device=True, inline="always")(self.py_func)
        return core

    def _kernel(self, text, scalars, ndim):
        key = text, scalars, ndim
        k = self._kernels.get(key)
        if k is None:
            k = self._kernels[key] = _build_kernel(
                f"ufunc {self.__name__}", _ufunc_source(scalars, ndim), self._core(text),
                self._cache)
        return k

    # -- signature choice (numba-cuda's: array dtypes exactly, scalars coerced)

    def _compile_for(self, dtypes):
        """A dynamic ufunc's signature for input dtypes: the function typed
        for them (its inferred result must be a scalar)."""
        from . import types as _types
        args = tuple(_types.from_dtype(dt) for dt in dtypes)
        _ptx, resty = cuda.compile_ptx(self.py_func, args, device=True)
        try:
            res = np.dtype(_types.as_dtype(resty))
        except (TypeError, ValueError, NotImplementedError):
            res = None
        if res is None or res.fields is not None or res.subdtype is not None:
            raise TypeError(f"{self.__name__}: a ufunc returns a number; for "
                            f"({', '.join(str(dt) for dt in dtypes)}) it returns {resty}")
        self._add(f"{res.name}({', '.join(np.dtype(dt).name for dt in dtypes)})")

    def _resolve(self, kinds):
        got = self._resolved.get(kinds)
        if got is not None:
            return got
        exact = tuple(dt for dt, _ in kinds)
        if self._dynamic and exact not in self._types:
            self._compile_for(exact)
        if exact in self._types:
            got = exact
        else:
            matches = [k for k in self._types
                       if all(s or dt == want for (dt, s), want in zip(kinds, k))]
            if not matches:
                raise TypeError(
                    f"{self.__name__}: no signature for the argument types "
                    f"({', '.join(str(dt) for dt in exact)}); a GPU ufunc needs array "
                    "arguments of exactly a signature's types (like casting='no'); "
                    f"signatures: {', '.join(t for _, t in self._types.values())}")
            if len(matches) > 1:
                raise TypeError(
                    f"{self.__name__}: the scalar arguments match several signatures "
                    f"({', '.join(self._types[m][1] for m in matches)}); give them a NumPy "
                    "type, e.g. np.float32(x)")
            got = matches[0]
        self._resolved[kinds] = got
        return got

    # -- calls

    def _launch_1d(self, args, out, stream):
        """The common case in few steps: 1-d device arrays of one length and
        exactly a signature's dtypes, a device array ``out`` of its result
        type.  None when the call is not of that kind."""
        shape = out.shape
        if len(shape) != 1 or len(args) != self.nin:
            return None
        dtypes = []
        for a in args:
            if type(a) is not self._DeviceNDArray or a.shape != shape:
                return None
            dtypes.append(a.dtype)
        n = shape[0]
        # (input dtypes, out dtype, kernel, length, stream, configured launch)
        # of the last such call: a repeated call launches what it configured.
        last = self._last_1d
        if last is not None and last[0] == dtypes and last[1] == out.dtype:
            if last[3] == n and last[4] is stream:
                last[5](*args, out)
                return out
            kernel = last[2]
        else:
            found = self._types.get(tuple(dtypes))
            if found is None or found[0] != out.dtype:
                return None
            kernel = self._kernels.get((found[1], self._no_scalars, 1))
            if kernel is None:
                kernel = self._kernel(found[1], self._no_scalars, 1)
        if n:
            launch = kernel[_blocks(n, _THREADS), _THREADS, stream]
            self._last_1d = (dtypes, out.dtype, kernel, n, stream, launch)
            launch(*args, out)
        return out

    def __call__(self, *args, out=None, stream=0, **kws):
        if type(out) is self._DeviceNDArray and not kws:
            done = self._launch_1d(args, out, stream)
            if done is not None:
                return done
        if kws:
            raise TypeError(f"{self.__name__}() got unexpected keyword arguments: "
                            f"{', '.join(sorted(kws))} (a GPU ufunc takes out= and stream=)")
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} arguments ({len(args)} given)")
        devs, hosts, kinds = [], [], []
        for a in args:
            d = None if isinstance(a, _SCALARS) else _as_device(a)
            if d is not None:
                devs.append(d)
                hosts.append(None)
                kinds.append((np.dtype(d.dtype), False))
                continue
            h = np.asarray(a)
            devs.append(None)
            hosts.append(h)
            kinds.append((h.dtype, h.ndim == 0))
        key = self._resolve(tuple(kinds))
        resty, text = self._types[key]
        any_device = any(d is not None for d in devs)
        shapes = [tuple(d.shape) if d is not None else h.shape
                  for d, h, (_, s) in zip(devs, hosts, kinds) if not s]
        shape = np.broadcast_shapes(*shapes) if shapes else (1,)
        scalars = tuple(s for _, s in kinds)

        out_dev = out_host = None
        if out is not None:
            out_dev = _as_device(out)
            if out_dev is None:
                if not isinstance(out, np.ndarray):
                    raise TypeError(f"out must be an array, not {type(out).__name__}")
                out_host = out
            target = out_dev if out_dev is not None else out_host
            if tuple(target.shape) != tuple(shape):
                raise ValueError(f"{self.__name__}: out has shape {tuple(target.shape)}, the "
                                 f"result {tuple(shape)}")
            if np.dtype(target.dtype) != resty:
                raise TypeError(f"{self.__name__}: out has dtype {target.dtype}, the "
                                f"signature '{text}' gives {resty}")

        # Inputs on the device, of the signature's types.
        params = []
        for d, h, (_, s), want in zip(devs, hosts, kinds, key):
            if s:
                params.append(want.type(h[()]))
            elif d is not None:
                params.append(d)
            else:
                params.append(_to_device(h, stream))
        n = math.prod(shape)
        arrays = [p for p, s in zip(params, scalars) if not s]
        order = "C"
        if arrays and all(a.is_f_contiguous() and not a.is_c_contiguous() for a in arrays):
            order = "F"
        if out_dev is None:
            result = _devicearray().device_array(shape, resty, order=order, stream=stream)
        else:
            result = out_dev
        if n:
            flat = all(tuple(a.shape) == tuple(shape) for a in arrays) and (
                all(a.is_c_contiguous() for a in arrays + [result]) or
                all(a.is_f_contiguous() for a in arrays + [result]))
            if flat:
                ravel_order = "C" if result.is_c_contiguous() else "F"
                call = [p if s else p.reshape(n, order=ravel_order)
                        for p, s in zip(params, scalars)]
                call.append(result.reshape(n, order=ravel_order))
                ndim = 1
            else:
                call = [p if s else _broadcast_view(p, shape) for p, s in zip(params, scalars)]
                call.append(result)
                ndim = len(shape)
            kernel = self._kernel(text, scalars, ndim)
            kernel[_blocks(n, _THREADS), _THREADS, stream](*call)
        if out_dev is not None:
            return out_dev  # a foreign out comes back as our view of it, as in numba-cuda
        if out_host is not None:
            return _finish(result, out_host, stream)
        if any_device:
            return result
        return _finish(result, None, stream)

    def reduce(self, arg, stream=0):
        """Reduce a 1-d array with this binary ufunc (like numpy's
        ufunc.reduce along axis 0, without an identity): the array's
        elements combined in order; an empty array is a TypeError."""
        if self.nin != 2:
            raise TypeError(f"{self.__name__}.reduce needs a binary ufunc")
        from . import reduction
        dev = _as_device(arg)
        host = None if dev is not None else np.asarray(arg)
        shape = tuple(dev.shape) if dev is not None else host.shape
        if len(shape) != 1:
            raise TypeError(f"{self.__name__}.reduce: only 1-d arrays")
        dtype = np.dtype(dev.dtype if dev is not None else host.dtype)
        if self._dynamic and (dtype, dtype) not in self._types:
            self._compile_for((dtype, dtype))
        if (dtype, dtype) not in self._types:
            raise TypeError(f"{self.__name__}.reduce: no signature for ({dtype}, {dtype})")
        if shape[0] == 0:
            raise TypeError("Reduction on an empty array.")
        if dev is None:
            dev = _to_device(host, stream)
        text = self._types[(dtype, dtype)][1]
        kernel = self._kernels.get((text, "reduce"))
        if kernel is None:
            kernel = self._kernels[(text, "reduce")] = reduction._reduce_kernel(
                self._core(text), dtype)
        return reduction._run(kernel, dev, None, dtype.type(0), False, stream)


def _positional_arity(func):
    """The number of inputs of a dynamic ufunc: the function's parameters
    (positional, without defaults)."""
    import inspect
    params = inspect.signature(func).parameters.values()
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or
           p.default is not p.empty for p in params):
        raise TypeError(f"vectorize: {func.__name__}() must take positional "
                        "parameters without defaults")
    n = len(params)
    if n == 0:
        raise TypeError(f"vectorize: {func.__name__}() takes no arguments")
    return n


def vectorize(ftylist_or_function=(), target="cuda", identity=None, cache=False, **options):
    """Make a GPU ufunc: ``@vectorize(["float32(float32, float32)", ...])``
    (signature strings or signature objects), or a dynamic one with
    ``@vectorize`` / ``@vectorize()`` (compiled per input dtypes on first
    use).  ``target`` is "cuda" (the default: pycuda_jit has no CPU target);
    ``identity`` None, 0, 1 or "reorderable"; ``cache=True`` keeps the
    kernels in the disk cache."""
    _check_target(target)
    _check_options("vectorize", options)
    if identity not in _IDENTITIES:
        raise ValueError(f"Invalid identity value {identity!r}")
    if callable(ftylist_or_function) and not isinstance(ftylist_or_function, str):
        return UFunc(ftylist_or_function, [], identity=identity, cache=cache)
    sigs = ftylist_or_function
    if isinstance(sigs, str) or not isinstance(sigs, (list, tuple)):
        sigs = [sigs]

    def wrap(func):
        return UFunc(func, sigs, identity=identity, cache=cache)

    return wrap


# ---- guvectorize ----------------------------------------------------------------------------


def _parse_layout(layout):
    """'(m,n),(n,p)->(m,p)' -> ([('m','n'), ('n','p')], [('m','p')])."""
    if not isinstance(layout, str):
        raise TypeError(f"the gufunc layout is a string such as '(n),(n)->()', not {layout!r}")
    text = re.sub(r"\s+", "", layout)
    ins, arrow, outs = text.partition("->")
    groups = []
    for part in (ins, outs):
        dims = []
        for m in re.finditer(r"\(([^()]*)\)|(.)", part):
            if m.group(2) is not None:
                if m.group(2) == ",":
                    continue
                raise ValueError(f'bad token in signature "{m.group(2)}"')
            names = tuple(s for s in m.group(1).split(",") if s)
            for s in names:
                if not s.isidentifier():
                    raise ValueError(f'bad token in signature "{s}"')
            dims.append(names)
        groups.append(dims)
    if not arrow or not groups[0] or not groups[1]:
        raise ValueError(f"the gufunc layout '{layout}' needs inputs -> outputs, "
                         "e.g. '(n),(n)->()'")
    known = set(itertools.chain.from_iterable(groups[0]))
    missing = set(itertools.chain.from_iterable(groups[1])) - known
    if missing:
        raise NameError(f"undefined output symbols: {','.join(sorted(missing))}")
    return groups[0], groups[1]


def _gufunc_source(nin, nargs, items_of, loop_ndim):
    """kernel(a0, ..., n): core(a0[idx, :...], ...) for the n positions of the
    loop dimensions (the first dimensions of every argument; the first
    output has their sizes)."""
    args = [f"a{k}" for k in range(nargs)]
    idx = ", ".join(_index_names(loop_ndim))
    items = ", ".join(items_of(a, k, idx) for k, a in enumerate(args))
    body = _loop([f"core({items})"], "n", loop_ndim, f"a{nin}")
    return "\n".join([f"def kernel({', '.join(args + ['n'])}):"] + body) + "\n"


class GUFunc:
    """A generalized GPU ufunc made by ``guvectorize``."""

    def __init__(self, pyfunc, signatures, layout, identity=None, cache=False):
        self.py_func = pyfunc
        self.__name__ = pyfunc.__name__
        self.__qualname__ = getattr(pyfunc, "__qualname__", pyfunc.__name__)
        self.__doc__ = pyfunc.__doc__
        self.identity = identity
        self.signature = layout
        self._in, self._out = _parse_layout(layout)
        self.nin, self.nout = len(self._in), len(self._out)
        self.nargs = self.nin + self.nout
        self._cache = cache
        self._core = cuda.jit(device=True)(pyfunc)
        self._types = {}    # input dtypes -> (output dtypes, argument ndims, text)
        self._kernels = {}
        for sig in signatures:
            self._add(sig)

    def _add(self, sig):
        ret, args, text = _parse_signature(sig)
        if ret is not None:
            raise TypeError("guvectorized functions cannot return values: signature "
                            f"{text} specifies {ret[0]} return type")
        if len(args) != self.nargs:
            raise TypeError(f"signature '{text}' has {len(args)} arguments; the layout "
                            f"'{self.signature}' has {self.nargs}")
        for (dt, nd), dims in zip(args, self._in + self._out):
            if nd not in (len(dims), len(dims) + 1) or (nd == len(dims) + 1 and dims):
                raise TypeError(f"signature '{text}': an argument of {nd} dimensions for "
                                f"the layout '({','.join(dims)})'")
        key = tuple(dt for dt, _ in args[:self.nin])
        self._types.setdefault(key, (tuple(dt for dt, _ in args[self.nin:]),
                                     tuple(nd for _, nd in args), text))

    def __repr__(self):
        return f"<pycuda_jit GPU gufunc {self.__qualname__} '{self.signature}'>"

    def _kernel(self, key, loop_ndim):
        _, ndims, text = self._types[key]
        k = self._kernels.get((key, loop_ndim))
        if k is None:
            dims = self._in + self._out

            def items_of(name, pos, idx):
                core = len(dims[pos])
                if core:
                    return f"{name}[{idx}, {', '.join([':'] * core)}]"
                if ndims[pos] == 1:  # a 1-element array for a () dimension
                    last = f"i{loop_ndim - 1}"
                    return f"{name}[{idx[:idx.rfind(last)]}{last}:{last} + 1]"
                return f"{name}[{idx}]"

            source = _gufunc_source(self.nin, self.nargs, items_of, loop_ndim)
            k = self._kernels[(key, loop_ndim)] = _build_kernel(
                f"gufunc {self.__name__}", source, self._core, self._cache)
        return k

    def _choose(self, dtypes):
        if dtypes in self._types:
            return dtypes
        for k in self._types:
            if all(np.can_cast(have, want, "same_kind") for have, want in zip(dtypes, k)):
                return k
        raise TypeError(f"{self.__name__}: no signature for the input types "
                        f"({', '.join(map(str, dtypes))}); signatures: "
                        f"{', '.join(t for *_, t in self._types.values())}")

    def __call__(self, *args, out=None, stream=0, **kws):
        if kws:
            raise TypeError(f"{self.__name__}() got unexpected keyword arguments: "
                            f"{', '.join(sorted(kws))} (a GPU gufunc takes out= and stream=)")
        nin, nout = self.nin, self.nout
        if out is None and len(args) not in (nin, nin + nout):
            def count(n):
                return f"{n} positional argument{'s' * (n != 1)}"
            raise TypeError(f"This gufunc accepts {count(nin)} (when providing input only) "
                            f"or {count(nin + nout)} (when providing input and output). "
                            f"Got {count(len(args))}.")
        if out is not None and len(args) > nin:
            raise ValueError("cannot specify argument 'out' as both positional and keyword")
        if out is not None:
            outs = list(out) if nout > 1 and isinstance(out, (tuple, list)) else [out]
            if len(outs) != nout:
                raise TypeError(f"{self.__name__}: out needs {nout} arrays")
        else:
            outs = list(args[nin:]) or [None] * nout

        inputs = []
        any_device = False
        for a in args[:nin]:
            d = _as_device(a)
            any_device |= d is not None
            inputs.append(d if d is not None else np.asarray(a))
        out_devs = [None if o is None else _as_device(o) for o in outs]
        any_device |= any(d is not None for d in out_devs)

        key = self._choose(tuple(np.dtype(a.dtype) for a in inputs))
        outtypes, ndims, text = self._types[key]
        for k, (a, want) in enumerate(zip(inputs, key)):
            if np.dtype(a.dtype) != want:
                if not hasattr(a, "astype"):
                    raise TypeError("compatible signature is possible by casting but "
                                    f"{type(a).__name__} does not support .astype()")
                inputs[k] = a.astype(want)

        loop_shape, pinned, symbols = self._schedule([tuple(a.shape) for a in inputs])
        out_shapes = [loop_shape + tuple(symbols[s] for s in dims) for dims in self._out]
        for o, od, shape in zip(outs, out_devs, out_shapes):
            if o is None:
                continue
            if od is None and not isinstance(o, np.ndarray):
                raise TypeError(f"out must be an array, not {type(o).__name__}")
            have = tuple((od if od is not None else o).shape)
            if have != shape:
                raise ValueError(f"output shape mismatch: {have}, expected {shape}")

        # Device arrays of every argument, with the loop dimensions first
        # (one, of size 1, when there are none).
        loops = loop_shape or (1,)
        params = []
        for a, dims, pin in zip(inputs, self._in, pinned):
            dev = a if not isinstance(a, np.ndarray) else _to_device(a, stream)
            core_ndim = len(dims)
            core_shape = tuple(dev.shape[len(dev.shape) - core_ndim:]) if core_ndim else ()
            if pin and len(dev.shape) > core_ndim:  # outer shape (1,): the same element
                dev = dev._view(dev.device_ctypes_pointer_value, tuple(dev.shape[1:]),
                                tuple(dev.strides[1:]))
            params.append(_broadcast_view(dev, loops + core_shape))
        results = []
        for o, od, shape, dt in zip(outs, out_devs, out_shapes, outtypes):
            r = od if od is not None else _devicearray().device_array(shape, dt, stream=stream)
            results.append(r)
            params.append(r if loop_shape else r.reshape((1,) + shape))
        n = math.prod(loops)
        if n:
            threads = 128
            self._kernel(key, len(loops))[_blocks(n, threads), threads, stream](*params, n)

        final = []
        for o, od, r in zip(outs, out_devs, results):
            if od is not None:
                final.append(od)
            elif o is not None:
                final.append(_finish(r, o, stream))
            elif any_device:
                final.append(r)
            else:
                final.append(_finish(r, None, stream))
        return final[0] if nout == 1 else tuple(final)

    def _schedule(self, shapes):
        """(loop shape, pinned per input, core dimension sizes), numba-cuda's
        rule: the loop shape is the largest outer shape; every other outer
        shape equals it or is () or (1,) (the same element for every loop)."""
        symbols, outers = {}, []
        for argn, (shape, dims) in enumerate(zip(shapes, self._in), start=1):
            if len(shape) < len(dims):
                raise ValueError(f"arg #{argn}: insufficient inner dimension")
            inner = shape[len(shape) - len(dims):] if dims else ()
            outers.append(shape[:len(shape) - len(dims)])
            for axis, (size, sym) in enumerate(zip(inner, dims), start=len(outers[-1])):
                if symbols.setdefault(sym, size) != size:
                    raise ValueError(f"arg #{argn}: shape[{axis}] mismatch argument")
        sizes = [math.prod(o) for o in outers]
        loop_shape = outers[sizes.index(max(sizes))]
        pinned = []
        for argn, o in enumerate(outers, start=1):
            if o == loop_shape:
                pinned.append(False)
            elif o in ((), (1,)):
                pinned.append(True)
            else:
                raise ValueError(f"arg #{argn}: outer dimension mismatch")
        return tuple(loop_shape), pinned, symbols


def guvectorize(*args, target="cuda", identity=None, cache=False, **options):
    """Make a generalized GPU ufunc: ``@guvectorize(signatures, layout)``,
    e.g. ``@guvectorize(["void(float32[:], float32[:])"], "(n)->()")``; the
    function writes its outputs (the last arguments) and returns nothing."""
    if len(args) != 2:
        raise TypeError("guvectorize() takes a list of signatures and a layout, e.g. "
                        "guvectorize(['void(float32[:], float32[:])'], '(n)->()')")
    sigs, layout = args
    _check_target(target)
    _check_options("guvectorize", options)
    if identity not in _IDENTITIES:
        raise ValueError(f"Invalid identity value {identity!r}")
    if isinstance(sigs, str) or not isinstance(sigs, (list, tuple)):
        sigs = [sigs]

    def wrap(func):
        return GUFunc(func, sigs, layout, identity=identity, cache=cache)

    return wrap
