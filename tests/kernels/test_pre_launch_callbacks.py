"""kernel[grid, block].pre_launch_callbacks (numba-cuda's): host callables
run in order right before the launch, after the kernel is specialized for
the arguments, with (the specialization's Overload, the launch
configuration); an exception from one stops the launch.  A configuration
with callbacks does not pickle."""
import pickle

import numpy as np
import pytest

from gpu_util import poisoned
from pycuda_jit import cuda


@cuda.jit
def axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def test_callbacks_run_in_order_before_the_launch(rng):
    x = rng.random(300)
    y = rng.random(300)
    out = cuda.to_device(poisoned(300, np.float64))
    cfg = axpy[3, 128]
    assert cfg.pre_launch_callbacks == []
    seen = []

    def first(kernel, launch_config):
        seen.append(("first", kernel.signature, launch_config.griddim, launch_config.blockdim))

    def second(kernel, launch_config):
        seen.append(("second", kernel.signature, launch_config is cfg))

    cfg.pre_launch_callbacks.append(first)
    cfg.pre_launch_callbacks.append(second)
    cfg(2.5, x, y, out)
    np.testing.assert_allclose(out.copy_to_host(), 2.5 * x + y, rtol=1e-15)
    sig = axpy.signatures[-1]
    assert "float64" in sig
    assert seen == [("first", sig, (3, 1, 1), (128, 1, 1)), ("second", sig, True)]
    # The Overload is the specialization that launched.
    assert axpy.overloads[sig].signature == sig
    # Every launch through this configuration runs them; another
    # configuration has its own (empty) list.
    cfg(1.0, x, y, out)
    assert len(seen) == 4
    axpy[3, 128](1.0, x, y, out)
    assert len(seen) == 4


def test_an_exception_in_a_callback_stops_the_launch(rng):
    x = rng.random(64)
    out = cuda.to_device(poisoned(64, np.float64))
    cfg = axpy[1, 64]

    def refuse(kernel, launch_config):
        raise RuntimeError("not now")

    cfg.pre_launch_callbacks.append(refuse)
    with pytest.raises(RuntimeError, match="not now"):
        cfg(1.0, x, x, out)
    assert np.isnan(out.copy_to_host()).all()
    cfg.pre_launch_callbacks.clear()
    cfg(1.0, x, x, out)
    np.testing.assert_allclose(out.copy_to_host(), 2 * x, rtol=1e-15)


def test_the_list_can_be_replaced():
    cfg = axpy[1, 1]
    calls = []
    cfg.pre_launch_callbacks = [lambda k, c: calls.append(k.signature)]
    out = cuda.to_device(poisoned(1, np.float64))
    cfg(3.0, np.ones(1), np.ones(1), out)
    assert out.copy_to_host()[0] == 4.0 and len(calls) == 1
    with pytest.raises(TypeError, match="must be a list"):
        cfg.pre_launch_callbacks = (print,)


def test_pickling_with_callbacks_is_refused():
    cfg = axpy[5, 8]
    assert pickle.loads(pickle.dumps(cfg)).griddim == (5, 1, 1)
    cfg.pre_launch_callbacks.append(lambda kernel, launch_config: None)
    with pytest.raises(pickle.PicklingError,
                       match="Cannot pickle configured launches with pre-launch callbacks"):
        pickle.dumps(cfg)
