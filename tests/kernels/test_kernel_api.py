"""numba-cuda's kernel-object API (pycuda_jit/_kernel_api.py): forall,
overloads, specialize / specializations, and the function's name and
docstring on the kernel -- checked by the values the launches compute."""
import math
import re

import os

import numpy as np
import pytest

from pycuda_jit import cuda, errors, float32, int32
from gpu_util import poisoned


@cuda.jit
def add_one(x):
    """Adds one to every element."""
    i = cuda.grid(1)
    if i < x.size:
        x[i] += 1


@cuda.jit
def axpy(out, a, x, y):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


@pytest.mark.parametrize("n", [1, 127, 128, 129, 1000])
def test_forall_covers_every_element(rng, n):
    x = rng.integers(-1000, 1000, n).astype(np.int64)
    expect = x + 1
    add_one.forall(n)(x)
    np.testing.assert_array_equal(x, expect)


def test_forall_with_threads_per_block_and_stream(rng):
    n = 333
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    out = cuda.to_device(poisoned(n, np.float32))
    s = cuda.stream()
    axpy.forall(n, tpb=32, stream=s)(out, np.float32(2.5), x, y)
    s.synchronize()
    np.testing.assert_allclose(out.copy_to_host(), np.float32(2.5) * x + y, rtol=1e-6)


def test_forall_zero_tasks_launches_nothing(rng):
    x = rng.integers(0, 10, 7)
    before = x.copy()
    add_one.forall(0)(x)
    np.testing.assert_array_equal(x, before)


def test_forall_negative_tasks_is_a_value_error():
    with pytest.raises(ValueError, match="negative task count"):
        add_one.forall(-1)


def test_overloads_one_entry_per_specialization(rng):
    @cuda.jit
    def scale(out, x, a):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * a

    x = rng.random(16)
    out = poisoned(16, np.float64)
    scale[1, 16](out, x, 3)
    np.testing.assert_allclose(out, x * 3)
    scale[1, 16](out, cuda.to_device(x), 3)  # a C-contiguous device array: same types
    assert len(scale.overloads) == 1
    scale[1, 16](out, x, 0.5)
    np.testing.assert_allclose(out, x * 0.5)
    assert len(scale.overloads) == 2
    assert list(scale.overloads) == scale.signatures
    ov = scale.overloads[scale.signatures[1]]
    assert ov.signature == scale.signatures[1]
    assert not ov.cooperative
    assert ".visible .entry" in ov.inspect_asm((9, 0))
    with pytest.raises(KeyError):
        scale.overloads["(int8) -> none"]


def test_overload_of_a_grid_sync_kernel_is_cooperative(rng):
    @cuda.jit("void(int32[::1])")
    def rotate(x):
        i = cuda.grid(1)
        v = x[(i + 1) % x.size]
        cuda.cg.this_grid().sync()
        x[i] = v

    x = rng.integers(0, 100, 64).astype(np.int32)
    expect = np.roll(x, -1)
    rotate[2, 32](x)
    np.testing.assert_array_equal(x, expect)
    (ov,) = rotate.overloads.values()
    assert ov.cooperative
    assert rotate.overloads[(int32[::1],)].signature == ov.signature


def test_specialize_compiles_for_the_types_and_caches(rng):
    @cuda.jit
    def copy(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i]

    assert len(copy.specializations) == 0
    f32 = copy.specialize(float32[::1], float32[::1])
    assert copy.specialize(float32[::1], float32[::1]) is f32
    x = rng.random(8).astype(np.int32)
    i32 = copy.specialize(cuda.to_device(x), x)  # values: typed as at a launch
    assert i32 is not f32 and len(copy.specializations) == 2
    assert f32.signatures == ["(array(float32, 1d, C), array(float32, 1d, C)) -> none"]
    a = rng.random(8, dtype=np.float32)
    out = poisoned(8, np.float32)
    f32[1, 8](out, a)
    np.testing.assert_array_equal(out, a)
    with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
        f32.specialize(float32[::1], float32[::1])
    with_sig = cuda.jit("void(float32[::1])")(lambda x: None)
    with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
        with_sig.specialize(float32[::1])


def test_kernel_carries_the_functions_name_and_docstring():
    assert add_one.__doc__ == "Adds one to every element."
    assert add_one.__name__ == "add_one"
    assert add_one.__qualname__ == "add_one"
    assert add_one.__module__ == __name__
    assert add_one.__wrapped__ is add_one.py_func


def _smem_kernel():
    @cuda.jit
    def smem(out):
        sm = cuda.shared.array(10, dtype=out.dtype)
        i = cuda.threadIdx.x
        sm[i] = i + 1
        cuda.syncthreads()
        out[i] = sm[9 - i]
    return smem


def test_shared_mem_and_max_threads_per_specialization(backend):
    smem = _smem_kernel()
    for dt in (np.float32, np.float64):
        out = poisoned(10, dt)
        smem[1, 10](out)
        np.testing.assert_array_equal(out, np.arange(10, 0, -1, dtype=dt))
    s32, s64 = smem.signatures
    assert smem.get_shared_mem_per_block(s32) == 40
    assert smem.get_shared_mem_per_block((float32[::1],)) == 40
    assert smem.get_shared_mem_per_block(s64) == 80
    every = smem.get_shared_mem_per_block()
    assert every == {s32: 40, s64: 80}
    assert every[(cuda.types.float64[::1],)] == 80
    limit = cuda.get_current_device().MAX_THREADS_PER_BLOCK
    assert 0 < smem.get_max_threads_per_block(s32) <= limit


def test_launch_bounds_bound_max_threads_per_block():
    @cuda.jit("void(float32[::1])", launch_bounds=256)
    def k(x):
        x[cuda.grid(1)] = 1

    assert k.get_max_threads_per_block() == 256  # one fixed signature: an int
    x = poisoned(512, np.float32)
    k[2, 256](x)
    assert (x == 1).all()
    y = poisoned(512, np.float32)
    with pytest.raises(errors.CudaDriverError, match="launch_bounds allow at most 256") as e:
        k[1, (16, 32)](y)  # 512 threads: the driver's error on both backends
    assert "CUDA_ERROR_INVALID_VALUE" in str(e.value)
    assert np.isnan(y).all()


def test_regs_const_and_local_memory_on_the_gpu(hardware):
    table = np.arange(32, dtype=np.int64)

    @cuda.jit
    def uses(x, n):
        c = cuda.const.array_like(table)
        i = cuda.grid(1)
        if i < n:
            x[i] = math.sin(x[i]) * 3.14 + c[i % 32]

    for dt in (np.float32, np.float64):
        x = np.zeros(32, dt)
        uses[1, 32](x, 32)
        np.testing.assert_allclose(x, table.astype(dt), rtol=1e-6)
    regs = uses.get_regs_per_thread()
    assert set(regs) == set(uses.signatures)
    for sig in uses.signatures:
        assert isinstance(regs[sig], int) and regs[sig] > 0
        assert uses.get_regs_per_thread(sig) == regs[sig]
        assert uses.get_const_mem_size(sig) >= table.nbytes
        assert uses.get_local_mem_per_thread(sig) >= 0


def test_gpu_only_attributes_are_a_clear_error_on_the_cpu_executor(backend):
    if backend != "cpu":
        pytest.skip("the CPU executor's answer")
    smem = _smem_kernel()
    smem[1, 10](np.zeros(10, np.float32))
    from pycuda_jit import errors
    for get in (smem.get_regs_per_thread, smem.get_const_mem_size,
                smem.get_local_mem_per_thread):
        with pytest.raises(errors.CudaSupportError, match="GPU"):
            get(smem.signatures[0])


def test_max_cooperative_grid_blocks_is_a_grid_that_launches(rng):
    @cuda.jit("void(int32[::1])")
    def rotate(x):
        i = cuda.grid(1)
        v = x[(i + 1) % x.size]
        cuda.cg.this_grid().sync()
        x[i] = v

    (ov,) = rotate.overloads.values()
    most = ov.max_cooperative_grid_blocks(32)
    assert most >= cuda.get_current_device().MULTIPROCESSOR_COUNT
    assert ov.max_cooperative_grid_blocks((32, 1, 1)) == most
    blocks = min(most, 64)
    x = rng.integers(0, 1000, blocks * 32).astype(np.int32)
    expect = np.roll(x, -1)
    rotate[blocks, 32](x)
    np.testing.assert_array_equal(x, expect)


@pytest.mark.parametrize("config,exc,text", [
    (((1, 2, 3, 4), (5, 6)), ValueError, "griddim must be a sequence of 1, 2 or 3 integers, "
                                         "got [1, 2, 3, 4]"),
    (((1, 2), (3, 4, 5, 6)), ValueError, "blockdim must be a sequence of 1, 2 or 3 integers, "
                                         "got [3, 4, 5, 6]"),
    (((), 1), ValueError, "griddim must be a sequence of 1, 2 or 3 integers, got []"),
    ((2.0, 3), TypeError, "griddim must be a sequence of integers, got [2.0]"),
    ((2, (3.0,)), TypeError, "blockdim must be a sequence of integers, got [3.0]"),
    ((0, 1), ValueError, "griddim must be positive"),
])
def test_invalid_launch_configurations(config, exc, text):
    with pytest.raises(exc) as e:
        add_one[config]
    assert text in str(e.value)


def test_list_configurations_launch_like_tuples(rng):
    x = rng.integers(0, 100, 64)
    expect = x + 1
    add_one[[2], [32, 1]](x)
    np.testing.assert_array_equal(x, expect)


def test_launch_without_configuration_is_a_value_error():
    with pytest.raises(ValueError, match="launch configuration was not specified"):
        add_one(np.zeros(4))


def test_kernel_with_a_cluster_rank_bound_runs(rng, backend):
    if backend == "cuda" and cuda.get_current_device().compute_capability < (9, 0):
        pytest.skip("thread block clusters need compute capability 9.0")
    newest = os.environ.get("PYCUDA_JIT_NEWEST_CC")
    if backend == "cuda" and newest and tuple(map(int, newest.split("."))) < (9, 0):
        pytest.skip("the forced PTX fallback compiles for an architecture without clusters")

    @cuda.jit(launch_bounds=(128, 1, 2))
    def scale(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = 3 * x[i]

    x = rng.random(300)
    out = poisoned(300, np.float64)
    scale[3, 128](out, x)
    np.testing.assert_array_equal(out, 3 * x)
    assert ".maxclusterrank 2" in scale.inspect_asm(scale.signatures[0], (9, 0))


@pytest.mark.parametrize("carveout,percent", [("MaxL1", 0), ("MaxShared", 100),
                                              ("default", -1), (0, 0), (50, 50), (100, 100),
                                              (-1, -1)])
def test_shared_memory_carveout_valid_values(rng, backend, carveout, percent):
    @cuda.jit(shared_memory_carveout=carveout)
    def add_one_to(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += 1

    x = rng.integers(0, 100, 10).astype(np.int32)
    expect = x + 1
    add_one_to[1, 10](x)
    np.testing.assert_array_equal(x, expect)
    if backend == "cuda":  # the attribute the driver holds for the function
        got = add_one_to._function_attribute(add_one_to.signatures[0], 9)
        assert got == (percent if percent >= 0 else got)  # -1: the driver's default


@pytest.mark.parametrize("carveout,exc,text", [
    (150, ValueError, "must be between -1 and 100"), (-2, ValueError, "must be between -1"),
    (101, ValueError, "must be between -1 and 100"),
    ("InvalidOption", ValueError, "Invalid carveout value"), (2.5, TypeError, "int or a string")])
def test_shared_memory_carveout_invalid_values(carveout, exc, text):
    with pytest.raises(exc, match=text):
        cuda.jit(shared_memory_carveout=carveout)
    with pytest.raises(exc, match=text):
        cuda.jit("void(int32[:])", shared_memory_carveout=carveout)(lambda x: None)


def test_inspect_dicts_take_argument_type_tuples(rng):
    @cuda.jit
    def poly(out, a, b):
        out[0] = a + b

    out = poisoned(1, np.float64)
    poly[1, 1](out, 2, 3)
    assert out[0] == 5
    poly[1, 1](out, 2.5, 3)
    assert out[0] == 5.5
    f64 = cuda.types.float64[::1]
    for texts in (poly.inspect_llvm(), poly.inspect_asm(), poly.inspect_types()):
        assert list(texts) == poly.signatures
        assert texts[(f64, cuda.types.int64, cuda.types.int64)] == texts[poly.signatures[0]]
        assert texts[(f64, cuda.double, cuda.types.int64)] == texts[poly.signatures[1]]
        with pytest.raises(KeyError):
            texts[(f64, int32, int32)]


def test_inspect_llvm_is_the_ir_before_optimization(backend):
    # numba-cuda's inspect_llvm is the IR it hands to NVVM, where a device
    # function's call is still a call (its inline= tests look for it); ours
    # showed the optimized IR on the GPU, where LLVM had inlined it.
    @cuda.jit(inline="never")
    def set_first(a, v):
        a[0] = v

    @cuda.jit("void(int32[::1])")
    def caller(a):
        set_first(a, 7)

    a = np.zeros(2, np.int32)
    caller[1, 1](a)
    assert a.tolist() == [7, 0]
    ir = caller.inspect_llvm(caller.signatures[0])
    assert re.search(r"call [^\n]*@[^\n(]*set_first", ir), ir
    assert "alwaysinline" not in ir
    assert caller.inspect_stage("llvm-opt", caller.signatures[0]) != ir
