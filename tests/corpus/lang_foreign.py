"""Corpus: foreign code (cuda.declare_device) the CPU executor cannot run.
It compiles CUDA C sources for the host (compiler/support/HostCuda.h); GPU
code (PTX, cubin, ...) and CUDA C that needs the GPU (barriers, shared
memory, warp intrinsics, inline PTX) are refused at the kernel's call of
the foreign function, naming the linked file and the compiler's message."""
from pycuda_jit import cuda
from pycuda_jit.errors import BackendError, UnsupportedError

from tests.corpus.cases import lang

# On a GPU, NVRTC compiles this CUDA C (and the PTX links): these refusals
# are the CPU executor's.
BACKENDS = ("cpu",)


def _decl(name, body, file):
    src = cuda.CUSource('extern "C" __device__ int %s(float *o, float x) { %s return 0; }'
                        % (name, body), name=file)
    return cuda.declare_device(name, "float32(float32)", link=src)


_barrier = _decl("pcj_corpus_barrier", "__syncthreads(); *o = x;", "barrier.cu")
_shared = _decl("pcj_corpus_shared", "__shared__ float s[32]; s[0] = x; *o = s[0];",
                "shared.cu")
_shuffle = _decl("pcj_corpus_shuffle", "*o = __shfl_sync(0xffffffffu, x, 0);", "shuffle.cu")
_ptx_asm = _decl("pcj_corpus_asm",
                 'unsigned l; asm("mov.u32 %0, %%laneid;" : "=r"(l)); *o = x + l;', "asm.cu")
_syntax = _decl("pcj_corpus_syntax", "*o = x SYNTAX ERROR;", "syntax.cu")
_missing = cuda.declare_device("pcj_corpus_missing", "float32(float32)",
                               link=cuda.CUSource("// defines nothing", name="empty.cu"))
_ptx = cuda.declare_device(
    "pcj_corpus_ptx", "float32(float32)",
    link=cuda.PTXSource(".version 8.0\n.target sm_80\n.address_size 64\n", name="code.ptx"))


@lang(BackendError, match=r"(?s)cannot compile barrier\.cu.*__syncthreads: a block barrier")
def foreign_barrier(x):
    x[0] = _barrier(x[1])  # <- error


@lang(BackendError, match=r"(?s)cannot compile shared\.cu.*__shared__ memory needs the GPU")
def foreign_shared_memory(x):
    x[0] = _shared(x[1])  # <- error


@lang(BackendError, match=r"(?s)shuffle\.cu.*__shfl_sync: a warp shuffle needs the GPU")
def foreign_warp_shuffle(x):
    x[0] = _shuffle(x[1])  # <- error


@lang(BackendError, match=r"(?s)cannot compile asm\.cu.*laneid")
def foreign_inline_ptx(x):
    x[0] = _ptx_asm(x[1])  # <- error


@lang(BackendError, match=r"(?s)cannot compile syntax\.cu.*syntax\.cu:1")
def foreign_syntax_error(x):
    x[0] = _syntax(x[1])  # <- error


@lang(BackendError, match=r"'pcj_corpus_missing' is not defined in empty\.cu")
def foreign_symbol_not_defined(x):
    x[0] = _missing(x[1])  # <- error


@lang(UnsupportedError, match=r"linked with code\.ptx \(ptx code\), which runs on the GPU only")
def foreign_ptx_code(x):
    x[0] = _ptx(x[1])  # <- error
