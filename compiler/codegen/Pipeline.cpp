// Pipeline: diagnostics capture, verification, internalization, the
// new-pass-manager optimisation pipeline and the legacy codegen pipeline,
// shared by the NVPTX and host backends (see Pipeline.h).
#include "codegen/Pipeline.h"

#include "codegen/PassTiming.h"
#include "support/Diagnostics.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/GlobalDCE.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <cstdio>
#include <optional>

namespace pcj::codegen::detail {

DiagnosticCapture::DiagnosticCapture(llvm::LLVMContext &Ctx)
    : Ctx(Ctx), Saved(Ctx.getDiagnosticHandler()) {
  // The base DiagnosticHandler forwards to a plain callback: no subclass.
  auto H = std::make_unique<llvm::DiagnosticHandler>(this);
  H->DiagHandlerCallback = &DiagnosticCapture::handle;
  Ctx.setDiagnosticHandler(std::move(H));
}

DiagnosticCapture::~DiagnosticCapture() {
  Ctx.setDiagnosticHandler(std::move(Saved));
}

void DiagnosticCapture::handle(const llvm::DiagnosticInfo *DI, void *Self) {
  // Runs inside LLVM: must not throw.
  if (DI->getSeverity() != llvm::DS_Error)
    return;
  auto *Me = static_cast<DiagnosticCapture *>(Self);
  llvm::raw_string_ostream OS(Me->Errors);
  llvm::DiagnosticPrinterRawOStream DP(OS);
  DI->print(DP);
  OS << "\n";
}

void DiagnosticCapture::throwIfErrors(const char *What) {
  if (Errors.empty())
    return;
  std::string Msg = std::string(What) + ": " + Errors;
  while (!Msg.empty() && Msg.back() == '\n')
    Msg.pop_back();
  Errors.clear();
  throw CompileError(ErrorKind::Backend, SourceLoc{}, std::move(Msg));
}

void verifyOrThrow(const llvm::Module &M, const char *Stage) {
  std::string Report;
  llvm::raw_string_ostream OS(Report);
  if (!llvm::verifyModule(M, &OS))
    return;
  OS.flush();
  while (!Report.empty() && Report.back() == '\n')
    Report.pop_back();
  throw CompileError(ErrorKind::Internal, SourceLoc{},
                     std::string("invalid LLVM module ") + Stage + ": " +
                         Report,
                     "this is a bug in pycuda_jit's lowering; please report "
                     "it with PYCUDA_JIT_DUMP=llvm output");
}

void internalizeAllBut(llvm::Module &M, const std::set<std::string> &Keep) {
  llvm::internalizeModule(M, [&](const llvm::GlobalValue &GV) {
    return Keep.count(GV.getName().str()) != 0;
  });
}

void addFunctionAttrToAll(llvm::Module &M, const char *Kind,
                          const char *Value) {
  for (llvm::Function &F : M) {
    if (F.isDeclaration())
      continue;
    F.addFnAttr(Kind, Value);
  }
}

static llvm::OptimizationLevel optimizationLevel(int OptLevel) {
  switch (OptLevel) {
  case 0:
    return llvm::OptimizationLevel::O0;
  case 1:
    return llvm::OptimizationLevel::O1;
  case 2:
    return llvm::OptimizationLevel::O2;
  default:
    return llvm::OptimizationLevel::O3;
  }
}

void runOptimizationPipeline(llvm::Module &M, llvm::TargetMachine &TM,
                             int OptLevel, bool Vectorize) {
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;

  llvm::PipelineTuningOptions PTO;
  PTO.LoopVectorization = Vectorize && OptLevel >= 2;
  PTO.SLPVectorization = Vectorize && OptLevel >= 2;
  PTO.LoopUnrolling = OptLevel >= 2;
  // The PassBuilder constructor calls TM.registerPassBuilderCallbacks(), so
  // target passes (for NVPTX: NVVMReflect, NVVMIntrRange at pipeline start)
  // join the default pipeline; TargetIRAnalysis comes from TM too.
  // PYCUDA_JIT_TIMING=passes: each pass's self time, one line on stderr.
  llvm::PassInstrumentationCallbacks PIC;
  std::optional<PassTimer> Timer;
  if (passTimingRequested()) {
    Timer.emplace();
    Timer->registerCallbacks(PIC);
  }
  llvm::PassBuilder PB(&TM, PTO, std::nullopt, Timer ? &PIC : nullptr);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);

  llvm::OptimizationLevel Level = optimizationLevel(OptLevel);
  llvm::ModulePassManager MPM = OptLevel <= 0
                                    ? PB.buildO0DefaultPipeline(Level)
                                    : PB.buildPerModuleDefaultPipeline(Level);
  MPM.run(M, MAM);
  if (Timer) {
    std::string Line = Timer->report(M.getModuleIdentifier()) + "\n";
    std::fwrite(Line.data(), 1, Line.size(), stderr);
  }
}

void dropDeadGlobals(llvm::Module &M) {
  llvm::ModuleAnalysisManager MAM;
  llvm::PassBuilder PB;
  PB.registerModuleAnalyses(MAM);
  llvm::ModulePassManager MPM;
  MPM.addPass(llvm::GlobalDCEPass());
  MPM.run(M, MAM);
}

void emitWithLegacyCodegen(llvm::Module &M, llvm::TargetMachine &TM,
                           llvm::CodeGenFileType Type,
                           llvm::SmallVectorImpl<char> &Out) {
  llvm::raw_svector_ostream OS(Out);
  llvm::legacy::PassManager PM;
  if (TM.addPassesToEmitFile(PM, OS, nullptr, Type))
    throw CompileError(ErrorKind::Backend, SourceLoc{},
                       "the " + TM.getTargetTriple().str() +
                           " target cannot emit this file type");
  PM.run(M);
}

std::string printModule(const llvm::Module &M) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  M.print(OS, nullptr);
  OS.flush();
  return S;
}

} // namespace pcj::codegen::detail
