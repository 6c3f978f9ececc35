// The pipeline (see Compile.h).
#include "driver/Compile.h"

#include "bytecode/Decoder.h"
#include "cfg/CFG.h"
#include "codegen/Codegen.h"
#include "lower/Lower.h"
#include "ssa/SSABuilder.h"
#include "stdlib/Registry.h"
#include "support/Diagnostics.h"
#include "transforms/InsertCasts.h"
#include "typeinfer/TypeInfer.h"
#include "types/Signature.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include <chrono>

namespace pcj::driver {

namespace {

class Stopwatch {
public:
  explicit Stopwatch(std::vector<StageTiming> &Out) : Out(Out) {}
  void lap(const char *Stage) {
    auto Now = std::chrono::steady_clock::now();
    Out.push_back(
        {Stage, std::chrono::duration<double, std::milli>(Now - Last).count()});
    Last = Now;
  }

private:
  std::vector<StageTiming> &Out;
  std::chrono::steady_clock::time_point Last = std::chrono::steady_clock::now();
};

std::string moduleText(const llvm::Module &M) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  M.print(OS, nullptr);
  return OS.str();
}

} // namespace

CompileResult compileKernel(const bc::RawCode &Raw,
                            const std::vector<types::TypeRef> &ArgTypes,
                            ir::Resolver &R, const CompileOptions &O) {
  CompileResult Out;
  Out.argTypes = ArgTypes;
  Stopwatch Clock(Out.timings);
  auto Want = [&](const char *Stage) {
    return O.dumps.count(Stage) || O.dumps.count("all");
  };

  bc::DecodedCode Code = bc::decode(Raw);
  if (Want("bytecode"))
    Out.dumps["bytecode"] = Code.dump();
  Clock.lap("decode");

  cfg::CFG G = cfg::buildCFG(Code);
  if (Want("cfg"))
    Out.dumps["cfg"] = G.dump(Code);
  Clock.lap("cfg");

  std::unique_ptr<ir::Function> F = ssa::buildSSA(Code, G);
  if (Want("ir"))
    Out.dumps["ir"] = F->print(false);
  Clock.lap("ssa");

  Out.resolutions = typeinfer::inferTypes(*F, ArgTypes, R, {});
  Clock.lap("typeinfer");

  transforms::insertCasts(*F);
  ir::verify(*F, true);
  if (Want("typed"))
    Out.dumps["typed"] = F->print(true);
  Clock.lap("transforms");

  types::Signature Sig{types::noneTy(), ArgTypes};
  Out.signature = Sig.str();
  lower::LowerOptions LO;
  LO.target = O.backend == Backend::CUDA ? lower::Target::NVPTX
                                         : lower::Target::Host;
  LO.ccMajor = O.ccMajor;
  LO.ccMinor = O.ccMinor;
  LO.boundsCheck = O.boundsCheck;
  LO.fastMath = O.fastMath;
  LO.kernelName = lower::mangleKernelName(F->qualname, Out.signature);
  Out.kernelName = LO.kernelName;

  auto Ctx = std::make_unique<llvm::LLVMContext>();
  auto M = std::make_unique<llvm::Module>(LO.kernelName, *Ctx);
  if (O.backend == Backend::CUDA)
    codegen::configureForNvptx(*M, O.ccMajor, O.ccMinor);
  else
    codegen::configureForHost(*M);
  lower::LowerResult L = lower::lowerKernel(*F, *M, LO);
  Out.abi = L.abi;
  Out.usesBarriers = L.usesBarriers;
  Out.usesWarpOps = L.usesWarpOps;
  Out.usesGridSync = L.usesGridSync;
  Out.staticSharedBytes = L.staticSharedBytes;
  if (Want("llvm"))
    Out.dumps["llvm"] = moduleText(*M);
  Clock.lap("lower");

  if (O.backend == Backend::CUDA) {
    codegen::NvptxOptions NO;
    NO.ccMajor = O.ccMajor;
    NO.ccMinor = O.ccMinor;
    NO.optLevel = O.optLevel;
    NO.fastMath = O.fastMath;
    NO.lineInfo = O.lineInfo;
    NO.kernelNames = {LO.kernelName};
    codegen::NvptxResult P = codegen::emitPtx(*M, NO);
    Out.ptx = std::move(P.ptx);
    Out.dumps["llvm-opt"] = std::move(P.optimizedIR);
    Out.dumps["ptx"] = Out.ptx;
    Out.timings.push_back({"codegen.libdevice", P.msLinkLibdevice});
    Out.timings.push_back({"codegen.optimize", P.msOptimize});
    Out.timings.push_back({"codegen.emit", P.msEmit});
    Clock.lap("codegen");
  } else {
    codegen::HostOptions HO;
    HO.optLevel = O.optLevel;
    HO.fastMath = O.fastMath;
    Out.host = codegen::jitForHost(std::move(M), std::move(Ctx), HO,
                                   {LO.kernelName});
    Out.hostEntry = Out.host->entry(LO.kernelName);
    PCJ_ASSERT(Out.hostEntry, "host JIT lost the kernel entry " + LO.kernelName);
    Out.dumps["llvm-opt"] = Out.host->optimizedIR;
    Out.timings.push_back({"codegen.optimize", Out.host->msOptimize});
    Out.timings.push_back({"codegen.jit", Out.host->msJit});
    Clock.lap("codegen");
  }
  return Out;
}

std::string compilerBuildId() {
  std::string Keys;
  for (const std::string &K : stdlib::intrinsicKeys())
    Keys += K + ";";
  uint64_t H = 1469598103934665603ull;
  for (char C : Keys) {
    H ^= (unsigned char)C;
    H *= 1099511628211ull;
  }
  char Hex[17];
  snprintf(Hex, sizeof Hex, "%016llx", (unsigned long long)H);
  return std::string("pycuda_jit-0.1.0+") + __DATE__ + "T" + __TIME__ +
         "/llvm-" LLVM_VERSION_STRING "/registry-" + Hex;
}

} // namespace pcj::driver
