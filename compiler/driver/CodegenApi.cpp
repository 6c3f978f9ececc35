// The entry point of libpcj_codegen.so (see CodegenApi.h).  Compiled into the
// plugin itself, not a stage library, so that it stays exported while every
// other symbol of the plugin (LLVM's included) is hidden.
#include "driver/CodegenApi.h"

#include "driver/Analysis.h"

#include "codegen/Codegen.h"

namespace pcj::driver {
namespace {

CompileResult generate(AnalysisPtr A, const CompileOptions &O) {
  return generateKernel(std::move(A), O);
}

void *entryOf(const codegen::HostResult &R, const std::string &Name) {
  return R.entry(Name);
}

const CodegenApi Api{
    kCodegenApiVersion,         PCJ_BUILD_STAMP,         sizeof(CompileResult),
    sizeof(CompileOptions),     sizeof(Analysis),        generate,
    codegen::hostTarget,        codegen::loadHostObject, entryOf,
    codegen::registerHostSymbol};

} // namespace
} // namespace pcj::driver

extern "C" __attribute__((visibility("default")))
const pcj::driver::CodegenApi *
pcj_codegen_api() {
  return &pcj::driver::Api;
}
