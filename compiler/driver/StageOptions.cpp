// The stages' options from the compile options (see StageOptions.h).
#include "driver/StageOptions.h"

namespace pcj::driver {

lower::LowerOptions lowerOptions(const CompileOptions &O,
                                 const std::vector<bool> &ReadOnlyArgs,
                                 const std::string &KernelName) {
  lower::LowerOptions LO;
#define PCJ_COMPILE_OPTION(Type, Field, Default, Doc)
#define PCJ_LOWER_OPTION(Type, Field, Default, Doc) LO.Field = O.Field;
#define PCJ_LOWER_NVPTX_OPTION PCJ_LOWER_OPTION
#define PCJ_ALL_STAGES_OPTION PCJ_LOWER_OPTION
#include "driver/CompileOptions.def"
  LO.target = O.backend;
  // Line tables where the GPU tools read them.  Variables too (debugInfo,
  // DWARF): for cuda-gdb, and in the CPU executor's inspect_llvm(); its
  // JIT ignores them.
  LO.lineInfo = O.lineInfo && O.backend == Backend::CUDA;
  LO.sanitize = sanitizesAccesses(O);
  LO.sanitizeSync = O.backend == Backend::CPU && O.sanitize != 0;
  if (O.noAliasReadOnly)
    LO.noAliasReadOnly = ReadOnlyArgs;
  LO.kernelName = KernelName;
  LO.deviceEntry = O.deviceFunction;
  return LO;
}

codegen::NvptxOptions nvptxOptions(const CompileOptions &O,
                                   bool KeepOptimizedIR) {
  codegen::NvptxOptions NO;
#define PCJ_COMPILE_OPTION(Type, Field, Default, Doc)
#define PCJ_NVPTX_OPTION(Type, Field, Default, Doc) NO.Field = O.Field;
#define PCJ_LOWER_NVPTX_OPTION PCJ_NVPTX_OPTION
#define PCJ_CODEGEN_OPTION PCJ_NVPTX_OPTION
#define PCJ_ALL_STAGES_OPTION PCJ_NVPTX_OPTION
#include "driver/CompileOptions.def"
  // Line tables, also kept for the debug info.
  NO.lineInfo = (O.lineInfo && O.backend == Backend::CUDA) || O.debugInfo;
  NO.widenNarrowArithmetic = O.widenNarrowInts;
  NO.keepOptimizedIR = KeepOptimizedIR;
  return NO;
}

codegen::HostOptions hostOptions(const CompileOptions &O,
                                 bool KeepOptimizedIR) {
  codegen::HostOptions HO;
#define PCJ_COMPILE_OPTION(Type, Field, Default, Doc)
#define PCJ_CODEGEN_OPTION(Type, Field, Default, Doc) HO.Field = O.Field;
#define PCJ_ALL_STAGES_OPTION PCJ_CODEGEN_OPTION
#include "driver/CompileOptions.def"
  HO.cancelPoints = true; // the CPU executor can stop endless kernels
  HO.keepOptimizedIR = KeepOptimizedIR;
  return HO;
}

} // namespace pcj::driver
