// The code generator seen from outside its shared object.
//
// The Python extension keeps LLVM out of its own image: everything from
// lowering to machine code (Generate.cpp, compiler/lower, compiler/codegen,
// stdlib/lowering and LLVM itself) is linked into libpcj_codegen.so, which the
// extension loads on its first compile.  Importing pycuda_jit and running
// kernels from the disk cache never pay LLVM's load time.  The plugin's one
// exported symbol returns this table; the build stamp (fixed when CMake
// configures, PCJ_BUILD_STAMP), the version and the layout sizes guard
// against a plugin from another build.
#pragma once

#include "driver/Compile.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace pcj::codegen {
class HostResult;
}

namespace pcj::driver {

constexpr unsigned kCodegenApiVersion = 2;

struct CodegenApi {
  unsigned version;
  const char *buildStamp;
  // sizeof(CompileResult), sizeof(CompileOptions), sizeof(Analysis)
  size_t resultSize, optionsSize, analysisSize;
  CompileResult (*generateKernel)(AnalysisPtr A, const CompileOptions &O);
  std::string (*hostTarget)(); // for CompileOptions::hostTarget
  // CPU executor: machine code from the disk cache, its entry points, and
  // the runtime symbols host code links against.
  // Symbols: the foreign functions' addresses (CompileResult::hostSymbols).
  std::shared_ptr<codegen::HostResult> (*loadHostObject)(
      const std::string &Object, const std::vector<std::string> &Entries,
      const std::vector<std::pair<std::string, void *>> &Symbols);
  void *(*hostEntry)(const codegen::HostResult &R, const std::string &Name);
  void (*registerHostSymbol)(const std::string &Name, void *Address);
};

} // namespace pcj::driver

// Exported by libpcj_codegen.so.
extern "C" const pcj::driver::CodegenApi *pcj_codegen_api();
