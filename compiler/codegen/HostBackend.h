// HostBackend: LLVM module -> native code in this process, for the CPU
// executor (runtime/cpu), through one process-wide ORC LLJIT.
//
//   verify -> fast-math attributes -> float16 fma via double (correctly
//   rounded without AVX512-FP16) -> internalize non-entries -> new-PM
//   O0..O3 with the host TargetMachine (loop + SLP vectorisation on)
//   -> object file (legacy codegen) -> JITLink into a fresh JITDylib
//
// Each compiled module lives in its own JITDylib, so modules may define the
// same names; destroying the HostResult removes the JITDylib and frees its
// code.  Undefined symbols resolve, in order, from
//   1. symbols given to registerHostSymbol() (the executor's pcj_cpu_*
//      runtime functions: the extension is linked with hidden visibility and
//      --exclude-libs, so dlsym cannot see them),
//   2. a few compiler-runtime helpers LLVM may call (__powisf2, ...),
//   3. the process (dlsym): libm's expf/sinf/pow/..., which is what
//      llvm.exp.f32, llvm.sin.f32, llvm.pow.* etc. lower to.
// Before all of them come the module's own symbols (HostOptions::symbols,
// the `symbols` of loadHostObject): the foreign functions a kernel calls,
// in host-compiled CUDA C, which other modules may define otherwise.
//
// Thread safety: jitForHost, registerHostSymbol and HostResult's members
// may be used from any thread concurrently.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace pcj::codegen {

using HostSymbols = std::vector<std::pair<std::string, void *>>;

struct HostOptions {
  // The rows of driver/CompileOptions.def the host backend reads, with
  // their names, types and defaults: optLevel (0..3), fastMath
  // ("unsafe-fp-math" on every function).
#define PCJ_COMPILE_OPTION(Type, Field, Default, Doc)
#define PCJ_CODEGEN_OPTION(Type, Field, Default, Doc) Type Field = Default;
#define PCJ_ALL_STAGES_OPTION PCJ_CODEGEN_OPTION
#include "driver/CompileOptions.def"

  // Every loop polls the CPU executor's stop word (CancelPoints.h); the
  // code then needs pcj_cpu_stop_requests and pcj_cpu_poll registered.
  bool cancelPoints = false;
  bool keepOptimizedIR = false; // HostResult::optimizedIR as text (a dump)
  // Names this module alone resolves to these addresses.
  HostSymbols symbols;
};

// Code of one compiled module; keeps it alive until destroyed.
class HostResult {
public:
  ~HostResult();
  HostResult(const HostResult &) = delete;
  HostResult &operator=(const HostResult &) = delete;

  // The address of an entry named at compile time, or nullptr.
  void *entry(const std::string &name) const;
  // The JITDylib holding the code (unique per result).
  const std::string &dylibName() const;

  std::string optimizedIR;
  std::string object;    // the relocatable object file (for the disk cache)
  double msOptimize = 0; // IR optimisation pipeline
  double msJit = 0;      // object emission + JIT link + entry lookup

  struct Impl;

private:
  friend std::shared_ptr<HostResult>
  jitForHost(std::unique_ptr<llvm::Module>, std::unique_ptr<llvm::LLVMContext>,
             const HostOptions &, const std::vector<std::string> &);
  friend std::shared_ptr<HostResult>
  loadHostObject(const std::string &, const std::vector<std::string> &,
                 const HostSymbols &);
  friend void linkObject(HostResult &, const std::string &,
                         const std::vector<std::string> &, const HostSymbols &);
  HostResult();
  std::unique_ptr<Impl> impl;
};

// Compiles M (owned with its context; both are freed, M first, before it
// returns or throws) and links it into the process.  entryNames are the
// functions that stay visible; each must be defined in M.  Throws CompileError:
// Internal for a broken module or a missing entry, Backend for LLVM/JIT
// failures (e.g. an unresolved symbol, named in the message).
std::shared_ptr<HostResult>
jitForHost(std::unique_ptr<llvm::Module> M,
           std::unique_ptr<llvm::LLVMContext> C, const HostOptions &O,
           const std::vector<std::string> &entryNames);

// Makes `name` resolve to `addr` in all host-compiled code (later
// registrations of the same name replace earlier ones; modules already
// linked keep the address they were linked against).  Call before
// compiling code that uses it.
// Links an object file produced earlier (HostResult::object, e.g. from the
// disk cache) and resolves its entries.
std::shared_ptr<HostResult>
loadHostObject(const std::string &Object,
               const std::vector<std::string> &entryNames,
               const HostSymbols &symbols = {});

void registerHostSymbol(const std::string &name, void *addr);

// Number of HostResults alive (JITDylibs holding compiled modules).
size_t hostLiveModules();

} // namespace pcj::codegen
