"""The surface of the libraries numba-cuda users import: cuda.random,
vectorize/guvectorize (pycuda_jit.* and cuda.*), cuda.reduce/Reduce.
Nothing here launches a kernel."""
import importlib
import warnings

import pytest

import pycuda_jit
from pycuda_jit import cuda


def vector_add(a, b):
    return a + b


def test_names_numba_users_import():
    assert cuda.vectorize is pycuda_jit.vectorize
    assert cuda.guvectorize is pycuda_jit.guvectorize
    assert cuda.reduce is cuda.Reduce
    from pycuda_jit.cuda import random, vectorize  # noqa: F401
    # numba-cuda users write `from numba.cuda.random import ...`.
    from pycuda_jit.cuda.random import create_xoroshiro128p_states  # noqa: F401
    assert importlib.import_module("pycuda_jit.cuda.random") is random
    assert importlib.import_module("pycuda_jit.random") is random
    for name in ("create_xoroshiro128p_states", "init_xoroshiro128p_states",
                 "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64",
                 "xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64",
                 "xoroshiro128p_next", "xoroshiro128p_jump", "xoroshiro128p_dtype"):
        assert hasattr(random, name), name
    assert random.xoroshiro128p_dtype.names == ("s0", "s1")
    assert random.xoroshiro128p_dtype.itemsize == 16
    with pytest.raises(AttributeError):
        pycuda_jit.no_such_name  # noqa: B018


def test_vectorize_keeps_the_function_and_signatures():
    u = cuda.vectorize(["float32(float32, float32)", "f8(f8, f8)", "int32(int32, int32)"])(
        vector_add)
    assert u.__name__ == "vector_add" and u.nin == 2 and u.nout == 1
    assert u.types == ["ff->f", "dd->d", "ii->i"]
    assert u.ntypes == 3
    assert pycuda_jit.vectorize("f8(f8)", target="cuda")(abs).__name__ == "abs"


def test_vectorize_options_as_numba_cuda_checks_them():
    with pytest.warns(RuntimeWarning, match="nopython kwarg for cuda target is redundant"):
        cuda.vectorize(["float32(float32, float32)"], nopython=True)(vector_add)
    with pytest.raises(KeyError, match="Unrecognized options"):
        cuda.vectorize(["float32(float32, float32)"], nonexistent=2)(vector_add)
    with pytest.raises(ValueError, match="Unsupported target: cpu"):
        pycuda_jit.vectorize(["float32(float32, float32)"], target="cpu")
    with pytest.raises(ValueError, match="Invalid identity"):
        cuda.vectorize(["float32(float32, float32)"], identity=5)
    # without signatures: a dynamic ufunc, typed per input dtypes on use
    dyn = cuda.vectorize(vector_add)
    assert (dyn.nin, dyn.ntypes, dyn.types) == (2, 0, [])
    with pytest.raises(TypeError, match="without defaults"):
        cuda.vectorize(lambda a, b=1: a + b)


@pytest.mark.parametrize("sig,match", [
    ("float32(float32[:], float32)", "takes and returns scalars"),
    ("float32 float32", "cannot read the signature"),
    ("float32(flaot32, float32)", "unknown type 'flaot32'"),
    ("void(float32, float32)", "takes and returns scalars"),
])
def test_bad_vectorize_signatures(sig, match):
    with pytest.raises(TypeError, match=match):
        cuda.vectorize([sig])(vector_add)


def test_signatures_of_different_arity_are_refused():
    with pytest.raises(TypeError, match="has 1 arguments"):
        cuda.vectorize(["float32(float32, float32)", "float64(float64)"])(vector_add)


def test_guvectorize_checks_signatures_and_layout():
    def copy(a, b):
        pass

    g = cuda.guvectorize(["void(float32[:], float32[:])"], "(x)->(x)")(copy)
    assert g.__name__ == "copy" and (g.nin, g.nout) == (1, 1)
    assert cuda.guvectorize(["(float32[:], float32[:])"], "(x)->(x)")(copy).nout == 1
    with pytest.raises(TypeError, match="cannot return values: signature int32"):
        cuda.guvectorize(["int32(int32[:], int32[:])"], "(m)->(m)")(copy)
    with pytest.raises(TypeError, match="nopython flag must be True"):
        cuda.guvectorize(["void(float32[:], float32[:])"], "(x)->(x)", nopython=False)(copy)
    cuda.guvectorize(["void(float32[:], float32[:])"], "(x)->(x)", nopython=True)(copy)
    with pytest.raises(TypeError, match="The following target options are not supported: "
                                        "'what1', 'ever2'"):
        cuda.guvectorize(["void(float32[:], float32[:])"], "(x)->(x)", what1=True,
                         ever2=False)(copy)
    with pytest.raises(NameError, match="undefined output symbols: q"):
        cuda.guvectorize(["void(float32[:], float32[:])"], "(x)->(q)")(copy)
    with pytest.raises(ValueError, match="bad token"):
        cuda.guvectorize(["void(float32[:], float32[:])"], "(x)->[x]")(copy)
    with pytest.raises(TypeError, match="has 3 arguments"):
        cuda.guvectorize(["void(float32[:], float32[:], float32[:])"], "(x)->(x)")(copy)
    with pytest.raises(TypeError, match="an argument of 2 dimensions"):
        cuda.guvectorize(["void(float32[:, :], float32[:])"], "(x)->(x)")(copy)
    with pytest.raises(TypeError, match="a list of signatures and a layout"):
        cuda.guvectorize("(x)->(x)")


def test_ufunc_call_argument_errors_need_no_kernel():
    u = cuda.vectorize(["float32(float32, float32)"])(vector_add)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        u(1.0)
    with pytest.raises(TypeError, match="unexpected keyword arguments: where"):
        u(1.0, 2.0, where=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import numpy as np
        with pytest.raises(TypeError, match="no signature for the argument types"):
            u(np.zeros(3, np.int64), np.zeros(3, np.int64))
        amb = cuda.vectorize(["float32(float32, float32)", "float64(float64, int32)"])(
            vector_add)
        with pytest.raises(TypeError, match="several signatures"):
            amb(1, 2)


def test_reduce_objects():
    r = cuda.Reduce(vector_add)
    assert isinstance(r, cuda.reduce)
    with pytest.raises(TypeError, match="binary function"):
        cuda.reduce(None)
