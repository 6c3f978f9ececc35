"""Foreign functions (cuda.declare_device, link=) without a GPU: the
declaration API, the calls in the LLVM IR and PTX for both ABIs, linking the
kernel's PTX with NVRTC-compiled CUDA C++ and PTX into a cubin (nvJitLink),
the errors for bad C++ and undefined names, and the CPU executor's refusal
of GPU code (PTX...; it compiles CUDA C for the host).  The launches that
check values are in tests/kernels/test_ffi_launch.py and test_foreign_cu.py."""
import os
import re

import numpy as np
import pytest

from pycuda_jit import cuda, errors, float32, int32, types

TIMES2 = cuda.CUSource("""
extern "C" __device__ int times2(int *out, int a) { *out = 2 * a; return 0; }
""")
TIMES2_C = cuda.CUSource("""
extern "C" __device__ int times2c(int a) { return 2 * a; }
""")

times2 = cuda.declare_device("times2", "int32(int32)", link=TIMES2)
times2c = cuda.declare_device("times2c", int32(int32), link=TIMES2_C, abi="c")


def k_numba(r, x):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = times2(x[i]) + 1


def k_c(r, x):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = times2c(x[i])


SIG = "void(int32[::1], int32[::1])"


def test_declare_device_records_name_and_signature():
    f = cuda.declare_device("f1", "int32(float32[:])")
    assert f.name == "f1"
    assert f.sig.args == (float32[:],)
    assert f.sig.return_type == int32
    g = cuda.declare_device("f1", int32(float32[:]))
    assert g.sig == f.sig


@pytest.mark.parametrize("sig", [(float32[:],), "(float32[:],)"])
def test_declare_device_needs_a_return_type(sig):
    with pytest.raises(TypeError, match="Return type"):
        cuda.declare_device("f1", sig)


def test_declare_device_refuses_unknown_abi_and_bad_link():
    with pytest.raises(NotImplementedError, match="ABI"):
        cuda.declare_device("f", "int32(int32)", abi="fortran")
    with pytest.raises(ValueError, match="must end in one of"):
        cuda.declare_device("f", "int32(int32)", link="code.txt")
    with pytest.raises(RuntimeError, match="only be called from a kernel"):
        times2(3)


def test_numba_abi_call_in_llvm_and_ptx():
    st = cuda.compile_stages(k_numba, SIG, stages=("llvm", "ptx"))
    # The result comes back through a pointer; the int status is returned.
    assert re.search(r"declare i32 @times2\(ptr, i32\)", st["llvm"]), st["llvm"]
    assert re.search(r"\.extern \.func\s+\(\.param \.b32 \w+\) times2\s*\(\s*\.param \.b64 \w+,"
                     r"\s*\.param \.b32 \w+\s*\)", st["ptx"]), st["ptx"]
    assert re.search(r"call\.uni \(retval0\),\s*times2,", st["ptx"])


def test_c_abi_call_in_llvm_and_ptx():
    st = cuda.compile_stages(k_c, SIG, stages=("llvm", "ptx"))
    assert re.search(r"declare i32 @times2c\(i32\)", st["llvm"]), st["llvm"]
    assert re.search(r"\.extern \.func\s+\(\.param \.b32 \w+\) times2c\s*\(\s*\.param \.b32 \w+\s*\)",
                     st["ptx"]), st["ptx"]


def test_link_cuda_source_into_a_cubin(tmp_path):
    ptx, _ = cuda.compile_ptx(k_numba, SIG)
    cubin = cuda.link_ptx(ptx, cc=(9, 0), link=[TIMES2])
    assert cubin[:4] == b"\x7fELF"
    # The same from a .cu file, and from PTX that NVRTC would give.
    cu = tmp_path / "times2.cu"
    cu.write_text(TIMES2.data)
    assert cuda.link_ptx(ptx, cc=(9, 0), link=str(cu))[:4] == b"\x7fELF"


def test_undefined_foreign_name_is_a_linker_error():
    ptx, _ = cuda.compile_ptx(k_numba, SIG)
    with pytest.raises(errors.LinkerError, match="times2") as e:
        cuda.link_ptx(ptx, cc=(9, 0), link=[TIMES2_C])  # defines times2c only
    assert "<CUSource>" in str(e.value)


def test_bad_cuda_source_is_an_nvrtc_error_with_the_log():
    ptx, _ = cuda.compile_ptx(k_numba, SIG)
    bad = cuda.CUSource('extern "C" __device__ int times2(int *o, int a) {\n'
                        '  return undefined_name;\n}\n', name="bad_times2.cu")
    with pytest.raises(errors.NvrtcError, match="bad_times2.cu") as e:
        cuda.link_ptx(ptx, cc=(9, 0), link=[bad])
    assert "undefined_name" in str(e.value)  # NVRTC's message with the line
    assert "bad_times2.cu(2)" in str(e.value)


def test_linked_files_are_read_at_each_compile(tmp_path):
    # The compiler reads the files at each compile, so the cache key (which
    # hashes the bytes) changes with the file: never a stale cubin.
    cu = tmp_path / "f.cu"
    cu.write_text('extern "C" __device__ int f(int *o, int a) { *o = a; return 0; }')
    f = cuda.declare_device("f", "int32(int32)", link=str(cu))
    first = f._pcj_foreign_()[3]
    cu.write_text('extern "C" __device__ int f(int *o, int a) { *o = 3 * a; return 0; }')
    second = f._pcj_foreign_()[3]
    assert first[0][0] == "cu" and first[0][1] == str(cu)
    assert first[0][2] != second[0][2]
    os.remove(cu)
    with pytest.raises(FileNotFoundError, match="f.cu"):
        f._pcj_foreign_()


def test_foreign_call_with_wrong_argument_count_is_a_typing_error():
    def k(r, x):
        r[0] = times2(x[0], 1)
    with pytest.raises(errors.TypingError) as e:
        cuda.compile_ptx(k, SIG)
    assert e.value.line > 0 and "test_ffi.py" in e.value.file


TIMES2_PTX = cuda.PTXSource(".version 8.0\n.target sm_80\n.address_size 64\n",
                           name="times2.ptx")


def test_cpu_executor_refuses_gpu_code_naming_the_call():
    # CUDA C runs there (compiled for the host); PTX linked on the kernel's
    # link= for a declared function does not.
    if cuda.backend() != "cpu":
        pytest.skip("the CPU executor's behaviour")
    decl = cuda.declare_device("times2", "int32(int32)")

    @cuda.jit(link=[TIMES2_PTX])
    def k(r, x):
        r[0] = decl(x[0])  # the line named

    r = np.zeros(4, np.int32)
    with pytest.raises(errors.UnsupportedError, match="runs on the GPU only") as e:
        k[1, 4](r, np.arange(4, dtype=np.int32))
    assert "times2" in str(e.value) and "times2.ptx" in str(e.value)
    assert e.value.file.endswith("test_ffi.py")
    assert "the line named" in open(e.value.file).read().splitlines()[e.value.line - 1]


def test_kernel_link_option_is_checked_and_read_per_compile(tmp_path):
    with pytest.raises(ValueError, match="must end in one of"):
        cuda.jit(link=["x.cpp"])
    with pytest.raises(NotImplementedError, match="device function"):
        cuda.jit(device=True, link=[TIMES2])
    cu = tmp_path / "g.cu"
    cu.write_text("// one")
    k = cuda.jit(link=[str(cu), TIMES2])(k_numba)
    first = k._pcj_options["link"]()
    cu.write_text("// two")
    assert [i[0] for i in first] == ["cu", "cu"]
    assert k._pcj_options["link"]()[0][2] == b"// two" != first[0][2]


SCALE_INPLACE = cuda.CUSource("""
extern "C" __device__ int scale_at(int *status, float *a, int i, float s)
{ a[i] *= s; return 0; }
extern "C" __device__ int first_byte(int *out, void *p)
{ *out = *(unsigned char *)p; return 0; }
""")
scale_at = cuda.declare_device(
    "scale_at", types.void(types.CPointer(types.float32), types.int32, types.float32),
    link=SCALE_INPLACE)
first_byte = cuda.declare_device("first_byte", "int32(voidptr)", link=SCALE_INPLACE)


def test_pointer_types_print_compare_and_render_as_numba():
    p = types.CPointer(types.float32)
    assert str(p) == "float32*" and str(types.voidptr) == "void*"
    assert p == types.CPointer(float32) and p != types.CPointer(int32)
    assert types.void(p, types.voidptr).sig_text() == "none(CPointer(float32), voidptr)"
    with pytest.raises(TypeError, match="CPointer"):
        types.CPointer(float32[:])


def k_ptr(a, b):
    i = cuda.grid(1)
    if i < a.size:
        scale_at(a, i, 2.5)
        b[i] = first_byte(b)


def test_arrays_pass_their_data_pointer_for_cpointer_and_voidptr():
    st = cuda.compile_stages(k_ptr, "void(float32[::1], int32[::1])",
                             stages=("llvm", "ptx"))
    assert re.search(r"declare i32 @scale_at\(ptr, ptr, i32, float\)", st["llvm"])
    assert re.search(r"declare i32 @first_byte\(ptr, ptr\)", st["llvm"])
    ptx, _ = cuda.compile_ptx(k_ptr, "void(float32[::1], int32[::1])")
    assert cuda.link_ptx(ptx, link=[SCALE_INPLACE])[:4] == b"\x7fELF"


def test_an_array_of_another_dtype_is_not_a_cpointer():
    def k(a):
        scale_at(a, 0, 2.5)
    with pytest.raises(errors.TypingError, match="scale_at") as e:
        cuda.compile_ptx(k, "void(int32[::1])")
    assert e.value.line > 0


def test_kernels_take_pointers_as_one_address_parameter():
    # CPointer(T) is one 8-byte parameter; p[i] = v stores through the
    # address (st of 2.5's bits, no bounds check); a voidptr is passed on only.
    def k(p, q, i):
        p[i] = 2.5

    ptx, _ = cuda.compile_ptx(k, "void(CPointer(float32), voidptr, int64)")
    params = re.findall(r"\.param \.(\w+)(?: \.ptr \.align \d+)? \w+_param_\d+", ptx)
    assert params == ["u64", "u64", "u64"], params
    assert re.search(r"\bst(\.global)?\.(f32|b32)\s+\[%rd\d+\], 1075838976;", ptx)


def k_half_add(r, x, y):
    r[0] = x + y


def test_lto_is_accepted_and_its_ptx_is_the_kernels():
    # numba-cuda's lto=True (its default with nvJitLink): the same kernel;
    # inspect_lto_ptx is inspect_asm's PTX.
    sig = "void(float16[:], float16, float16)"
    with_lto = cuda.jit(sig, lto=True)(k_half_add)
    plain = cuda.jit(sig)(k_half_add)
    [ptx] = with_lto.inspect_lto_ptx().values()
    assert ptx == list(plain.inspect_asm().values())[0] and ".entry k_half_add" in ptx
    r = np.full(1, np.nan, np.float16)
    with_lto[1, 1](r, np.float16(1.5), np.float16(2.25))
    assert r[0] == np.float16(3.75)
