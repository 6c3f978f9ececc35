// The compiler pipeline, one readable function: each stage in order, with
// its dump and timing.  Stages (docs/compiler.md):
//
//   decode -> cfg -> ssa -> typeinfer -> transforms -> lower -> codegen
//
// The result holds everything the runtime needs to launch the kernel (PTX or
// a host entry point, the parameter ABI) plus every requested stage dump.
#pragma once

#include "bytecode/RawCode.h"
#include "ir/CompileTimeValue.h"
#include "runtime/CacheMeta.h" // KernelMeta (a struct only)
#include "support/Backend.h"
#include "support/SourceLoc.h"
#include "typeinfer/TypeInfer.h"
#include "types/KernelABI.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace pcj::codegen {
class HostResult;
}

namespace pcj::driver {

using pcj::Backend; // support/Backend.h

// The stages with a text dump, in pipeline order (PYCUDA_JIT_DUMP,
// kernel.inspect_stage, cuda.compile_stages); "nvvm": the NVVM IR text, only
// when the kernel goes through libNVVM (lto, PYCUDA_JIT_VIA_NVVM).
inline constexpr const char *kStageNames[] = {
    "bytecode", "cfg", "ir", "typed", "llvm", "llvm-opt", "nvvm", "ptx"};

// The options: fields from driver/CompileOptions.def (which also makes
// their cache-key text, optionsKeyText), then what a compile is asked for
// besides them, which is not an option of the code: the dumps to keep (no
// effect on the code), the link= code (keyed by its bytes through the
// analysis' resolutions) and a device function's declared result (keyed
// through the signature).
struct CompileOptions {
#define PCJ_COMPILE_OPTION(Type, Field, Default, Doc) Type Field = Default;
#include "driver/CompileOptions.def"

  // Stage dumps to keep: any of bytecode, cfg, ir, typed, llvm, llvm-opt,
  // ptx ("all" for every one).  Only these are rendered as text (ptx is
  // the result itself: always there).
  std::set<std::string> dumps;
  // The kernel's link= code (cuda.jit(link=[...])), read at this compile:
  // linked for the GPU, its bytes part of the cache key.
  std::vector<ir::LinkItem> links;
  // compile_ptx(device=True, sig=...): the declared result (null: inferred).
  types::TypeRef declaredReturn = nullptr;
};

// Whether the code announces array accesses to the sanitizer (CPU backend
// with race, init or bounds; any check also announces barriers and warp
// operations).
inline bool sanitizesAccesses(const CompileOptions &O) {
  return O.backend == Backend::CPU && (O.sanitize & 7) != 0;
}

// The options' part of the cache key: every row of CompileOptions.def as
// "name=value;" (Analyze.cpp).
std::string optionsKeyText(const CompileOptions &O);

struct StageTiming {
  std::string stage;
  double ms;
};

// Where a kernel may write an argument's arrays (transforms/ArrayEffects):
// the launch refuses read-only arrays there.
struct ArgWrite {
  std::string param;    // the parameter's name
  bool written = false; // some store, atomic or call may write it
  SourceLoc at;         // the first such write
};

struct CompileResult {
  std::string kernelName;
  std::string signature;     // "(array(float32, 1d, C), float32) -> none"
  types::TypeRef returnType; // none for kernels; a device function's result
  std::vector<types::TypeRef> argTypes;
  std::vector<types::AbiSlot> abi;
  std::vector<typeinfer::Resolution> resolutions;
  bool usesBarriers = false;
  bool usesWarpOps = false;
  bool usesGridSync = false;       // needs a cooperative launch
  std::vector<bool> readOnlyArgs;  // per argument: an array only read
  std::vector<ArgWrite> argWrites; // per argument (known after analysis)
  size_t staticSharedBytes = 0;    // CPU backend
  // CUDA backend
  std::string ptx;
  // With CompileOptions::lto: the same code as libNVVM's LTO-IR (empty when
  // the NVVM IR writer cannot express the kernel: it links as PTX then).
  std::string ltoir;
  // Code the PTX links with (the foreign functions' link= items, then the
  // kernel's own), each once; empty after a disk-cache hit (the cached
  // cubin is linked).
  std::vector<ir::LinkItem> links;
  // CPU backend
  // The foreign functions' addresses in their host-compiled CUDA C
  // (support/HostCuda.h), which the host JIT links the kernel against.
  std::vector<std::pair<std::string, void *>> hostSymbols;
  std::shared_ptr<codegen::HostResult> host;
  void *hostEntry = nullptr;
  // Stage name -> text (see CompileOptions::dumps).
  std::map<std::string, std::string> dumps;
  std::vector<StageTiming> timings;
};

// The pipeline in two steps, so that a disk cache can sit between them:
// analyzeKernel runs the frontend (decode .. type inference, well under a
// millisecond) and computes the content key of everything the kernel's
// machine code depends on; generateKernel lowers and generates code.
struct Analysis;
struct AnalysisDeleter {
  void operator()(Analysis *A) const;
};
using AnalysisPtr = std::unique_ptr<Analysis, AnalysisDeleter>;

AnalysisPtr analyzeKernel(const bc::RawCode &Raw,
                          const std::vector<types::TypeRef> &ArgTypes,
                          ir::Resolver &R, const CompileOptions &O);
// Lets go of the resolvers the analysis asked about device functions
// (objects of the caller's, e.g. Python's): code generation needs none, and
// may run on another thread (runtime/jit/CompilePool.h).
void dropResolvers(Analysis &A);
// 64 hex digits: SHA-256 over the normalized bytecode, constants and names
// of the kernel and (transitively) of every device function it calls, the
// resolved values of globals and closure variables, the signature, the
// options, the target (arch / host CPU), the Python version and the
// compiler's build id.  Line numbers enter only where the code embeds them
// (checked mode, lineinfo).
const std::string &cacheKey(const Analysis &A);
// The kernel symbol, signature and resolutions known after analysis.
const CompileResult &analysisResult(const Analysis &A);
// The analysis' stage times (decode .. transforms).
const std::vector<StageTiming> &analysisTimings(const Analysis &A);
CompileResult generateKernel(AnalysisPtr A, const CompileOptions &O);

// analyzeKernel + generateKernel (filling O.hostTarget for the CPU backend).
CompileResult compileKernel(const bc::RawCode &Raw,
                            const std::vector<types::TypeRef> &ArgTypes,
                            ir::Resolver &R, const CompileOptions &O);

// What a cache entry must record to rebuild a CompileResult without
// compiling (the code itself is stored beside it; runtime/CacheMeta.h
// encodes the record).
rt::KernelMeta cacheMeta(const CompileResult &R);
// Fills the fields cacheMeta recorded into R (the analysis' result); false
// if the record holds an impossible value or disagrees with the analysis (a
// damaged or forged entry: the caller rebuilds it).
bool restoreFromCache(const rt::KernelMeta &Meta, CompileResult &R);

// Identifies the compiler in cache keys: the content of both binaries --
// FrontendId and CodegenId are the GNU build ids (support/BuildId.h) of
// the one holding the frontend (_core.abi3.so) and of the code generator
// (libpcj_codegen.so) -- and the CPU executor's ABI version
// (runtime/cpu/ThreadCtx.h), with the version, the LLVM version and a hash
// of the registry for readers.  A rebuild that changes any code changes it.
std::string compilerBuildId(const std::string &FrontendId,
                            const std::string &CodegenId);
// The build id of the binary this driver is linked into ("none" if it has
// none).
const std::string &frontendBuildId();

} // namespace pcj::driver
