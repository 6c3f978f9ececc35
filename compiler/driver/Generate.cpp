// The code-generation half of the pipeline (see Compile.h): lowering to
// LLVM IR, then PTX (CUDA) or host machine code (CPU executor).
#include "driver/Analysis.h"
#include "driver/StageOptions.h"

#include "codegen/Codegen.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

namespace pcj::driver {

namespace {

std::string moduleText(const llvm::Module &M) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  M.print(OS, nullptr);
  return OS.str();
}

// lto / viaNvvm: the module as NVVM IR through libNVVM.  viaNvvm: the
// PTX comes from there (true: done; the writer's and libNVVM's errors are
// the compile's).  lto: Out.ltoir (false: NVPTX makes the PTX as usual); a
// kernel the writer cannot express or libNVVM rejects, or no libNVVM,
// leaves ltoir empty and links as PTX, as without lto
// (PYCUDA_JIT_VIA_NVVM=1 shows the error).
bool viaNvvm(const llvm::Module &M, const CompileOptions &O,
             const codegen::NvptxOptions &NO, bool WantIr, CompileResult &Out) {
  codegen::NvvmIrOptions WO;
  WO.kernelNames = NO.kernelNames;
  WO.maxThreadsPerBlock = O.maxThreadsPerBlock;
  WO.minBlocksPerSM = O.minBlocksPerSM;
  WO.maxRegisters = O.maxRegisters;
  codegen::NvvmCompileOptions CO;
  CO.ccMajor = O.ccMajor;
  CO.ccMinor = O.ccMinor;
  CO.optLevel = O.optLevel;
  CO.fastMath = O.fastMath;
  std::string Ir;
  try {
    Ir = codegen::writeNvvmIr(M, WO);
    if (WantIr)
      Out.dumps["nvvm"] = Ir;
    if (O.viaNvvm) {
      Out.ptx = codegen::compileNvvmIr(Ir, CO);
      Out.dumps["ptx"] = Out.ptx;
    }
    if (O.lto && (O.viaNvvm || codegen::libNvvmAvailable())) {
      CO.output = codegen::NvvmOutput::LtoIr;
      Out.ltoir = codegen::compileNvvmIr(Ir, CO);
    }
  } catch (const CompileError &E) {
    if (O.viaNvvm)
      throw;
    Out.ltoir.clear(); // lto: NVPTX's PTX, linked without LTO
  }
  return O.viaNvvm;
}

} // namespace

CompileResult generateKernel(AnalysisPtr A, const CompileOptions &O) {
  CompileResult Out = std::move(A->result);
  Out.timings = std::move(A->timings);
  Stopwatch Clock(Out.timings);
  auto Want = [&](const char *Stage) {
    return O.dumps.count(Stage) || O.dumps.count("all");
  };
  ir::Function *F = A->kernel.fn.get();
  lower::LowerOptions LO = lowerOptions(O, Out.readOnlyArgs, Out.kernelName);

  auto Ctx = std::make_unique<llvm::LLVMContext>();
  auto M = std::make_unique<llvm::Module>(LO.kernelName, *Ctx);
  if (O.backend == Backend::CUDA)
    codegen::configureForNvptx(*M, O.ccMajor, O.ccMinor);
  else
    codegen::configureForHost(*M);
  std::vector<lower::DeviceFunction> Callees;
  for (Session::Callee *Sp : A->session.order)
    Callees.push_back({Sp->typed.fn.get(), Sp->symbol, Sp->inlineAlways});
  std::vector<lower::ForeignFunction> Foreign;
  for (const Session::ForeignUse &U : A->session.foreign) {
    const types::Signature &S = U.info.signature;
    Foreign.push_back({U.wrapper, U.info.symbol, U.info.cAbi, U.params, S.args,
                       S.ret == types::voidTy() ? types::noneTy() : S.ret});
  }
  lower::LowerResult L = lower::lowerKernel(*F, Callees, *M, LO, Foreign);
  Out.abi = L.abi;
  Out.usesBarriers = L.usesBarriers;
  Out.usesWarpOps = L.usesWarpOps;
  // Foreign code declared use_cooperative=True syncs the grid itself.
  Out.usesGridSync = L.usesGridSync;
  for (const Session::ForeignUse &U : A->session.foreign)
    Out.usesGridSync |= U.info.cooperative;
  Out.staticSharedBytes = L.staticSharedBytes;
  if (Want("llvm"))
    Out.dumps["llvm"] = moduleText(*M);
  Clock.lap("lower");

  // Which multiply-adds fuse, decided here once for both targets.
  PCJ_ASSERT(
      O.fmad || (!O.fastMath && !(O.fastMathFlags & lower::fastmath::Contract)),
      "fmad=False with fastmath contraction reached code generation");
  codegen::fuseMultiplyAdds(
      *M, !O.fmad ? codegen::Contraction::Off
          : O.fastMath || (O.fastMathFlags & lower::fastmath::Contract)
              ? codegen::Contraction::RuleKeepFlags
              : codegen::Contraction::Rule);
  Clock.lap("contract");

  if (O.backend == Backend::CUDA) {
    codegen::NvptxOptions NO = nvptxOptions(O, Want("llvm-opt"));
    if (O.maxClusterRank && O.ccMajor < 9)
      throw CompileError(
          ErrorKind::Unsupported, SourceLoc{F->file, F->firstLine, -1, -1},
          "launch_bounds' third entry (the maximum cluster rank) needs "
          "thread block clusters: compute capability 9.0 or later, not " +
              std::to_string(O.ccMajor) + "." + std::to_string(O.ccMinor),
          "give launch_bounds=(max_threads, min_blocks) for this GPU");
    if (O.deviceFunction)
      NO.exportedSymbols = {LO.kernelName};
    else
      NO.kernelNames = {LO.kernelName};
    if (O.forceInline)
      if (llvm::Function *Fn = M->getFunction(LO.kernelName)) {
        Fn->removeFnAttr(llvm::Attribute::NoInline);
        Fn->addFnAttr(llvm::Attribute::AlwaysInline);
      }
    if (O.lto || O.viaNvvm) {
      // NVVM IR from the module before LLVM optimizes it (libNVVM does).
      if (viaNvvm(*M, O, NO, Want("nvvm"), Out)) {
        Clock.lap("codegen.nvvm");
        return Out;
      }
      // lto: "codegen.nvvm" when the LTO-IR was made, else the lap of the
      // attempt (the kernel links as PTX).
      Clock.lap(Out.ltoir.empty() ? "codegen.nvvm-unused" : "codegen.nvvm");
    }
    codegen::NvptxResult P = codegen::emitPtx(*M, NO);
    Out.ptx = std::move(P.ptx);
    if (NO.keepOptimizedIR)
      Out.dumps["llvm-opt"] = std::move(P.optimizedIR);
    Out.dumps["ptx"] = Out.ptx;
    Out.timings.push_back({"codegen.libdevice", P.msLinkLibdevice});
    Out.timings.push_back({"codegen.optimize", P.msOptimize});
    Out.timings.push_back({"codegen.emit", P.msEmit});
    Clock.lap("codegen");
  } else {
    codegen::HostOptions HO = hostOptions(O, Want("llvm-opt"));
    HO.symbols = Out.hostSymbols; // foreign functions' host code
    Out.host =
        codegen::jitForHost(std::move(M), std::move(Ctx), HO, {LO.kernelName});
    Out.hostEntry = Out.host->entry(LO.kernelName);
    PCJ_ASSERT(Out.hostEntry,
               "host JIT lost the kernel entry " + LO.kernelName);
    if (HO.keepOptimizedIR)
      Out.dumps["llvm-opt"] = Out.host->optimizedIR;
    Out.timings.push_back({"codegen.optimize", Out.host->msOptimize});
    Out.timings.push_back({"codegen.jit", Out.host->msJit});
    Clock.lap("codegen");
  }
  return Out;
}

CompileResult compileKernel(const bc::RawCode &Raw,
                            const std::vector<types::TypeRef> &ArgTypes,
                            ir::Resolver &R, const CompileOptions &O) {
  if (O.backend == Backend::CPU && O.hostTarget.empty()) {
    CompileOptions WithTarget = O;
    WithTarget.hostTarget = codegen::hostTarget();
    return generateKernel(analyzeKernel(Raw, ArgTypes, R, WithTarget),
                          WithTarget);
  }
  return generateKernel(analyzeKernel(Raw, ArgTypes, R, O), O);
}

} // namespace pcj::driver
