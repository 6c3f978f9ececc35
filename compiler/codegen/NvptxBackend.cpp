// NvptxBackend: verify, link libdevice, optimise and emit PTX (see
// NvptxBackend.h for the pipeline and the kernel convention).
//
// TargetMachines come from the calling thread's cache
// (nvptxTargetMachineForThread): sharing one across threads is a data race
// (codegen rewrites its options per function), and creating one per compile
// costs ~60 us (NVPTX) / ~210 us (host) against ~0.1 us for a cache hit --
// 4-15% of the smallest kernel's ~1.5 ms compile (CodegenTiming, measured on
// the H200 machine's Xeon).
//
// LLVM 19 numbers NVPTX call sites with a process-wide counter, which would
// make PTX differ between identical compiles; renumberCallSites() fixes that.
#include "codegen/NvptxBackend.h"

#include "codegen/Int8ToHalf.h"
#include "codegen/Libdevice.h"
#include "codegen/LoneHalfOps.h"
#include "codegen/Pipeline.h"
#include "codegen/Targets.h"
#include "codegen/WidenNarrowInts.h"
#include "runtime/ErrorRecordAbi.h" // the error record's global names
#include "support/Diagnostics.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <cctype>
#include <map>
#include <set>

namespace pcj::codegen {

namespace {

[[noreturn]] void internalError(std::string Msg) {
  throw CompileError(ErrorKind::Internal, SourceLoc{}, std::move(Msg),
                     "this is a bug in pycuda_jit; please report it");
}

// The triple/data layout the lowering set (or set them if it did not).
void checkOrSetTarget(llvm::Module &M, const NvptxOptions &O) {
  if (M.getTargetTriple().empty()) {
    configureForNvptx(M, O.ccMajor, O.ccMinor);
    return;
  }
  llvm::Triple T(M.getTargetTriple());
  if (!T.isNVPTX())
    internalError("emitPtx: module '" + M.getModuleIdentifier() + "' targets " +
                  M.getTargetTriple().str() +
                  ", not NVPTX (call configureForNvptx before lowering)");
  if (M.getDataLayout().isDefault())
    configureForNvptx(M, O.ccMajor, O.ccMinor);
}

// The function attribute LLVM 20+ reads for a kernel limit that older
// modules give as an nvvm.annotations key ("" for other keys).
const char *limitAttribute(llvm::StringRef Key) {
  if (Key == "maxnreg")
    return "nvvm.maxnreg";
  if (Key == "maxntidx")
    return "nvvm.maxntid";
  if (Key == "minctasm")
    return "nvvm.minctasm";
  return "";
}

// Rebuilds !nvvm.annotations without the "kernel" entries (the calling
// convention replaces them) and turns the kernels' limits (maxnreg,
// maxntidx, minctasm) into the function attributes LLVM 22 reads
// ("nvvm.maxnreg"="32"...); the options' limits win.  Annotation nodes are
// {GV, key, val, key, val, ...}.
void rewriteAnnotations(llvm::Module &M,
                        const std::set<llvm::Function *> &Kernels,
                        const NvptxOptions &O) {
  llvm::NamedMDNode *Annot = M.getNamedMetadata("nvvm.annotations");
  llvm::LLVMContext &Ctx = M.getContext();
  std::vector<llvm::MDNode *> Kept;
  if (Annot) {
    for (llvm::MDNode *N : Annot->operands()) {
      if (N->getNumOperands() < 1) {
        Kept.push_back(N);
        continue;
      }
      auto *GV = llvm::mdconst::dyn_extract_or_null<llvm::GlobalValue>(
          N->getOperand(0));
      auto *F = llvm::dyn_cast_or_null<llvm::Function>(GV);
      std::vector<llvm::Metadata *> Ops{N->getOperand(0).get()};
      bool Changed = false;
      for (unsigned I = 1; I + 1 < N->getNumOperands(); I += 2) {
        auto *Key = llvm::dyn_cast_or_null<llvm::MDString>(N->getOperand(I));
        llvm::StringRef K = Key ? Key->getString() : "";
        bool IsKernelMark = K == "kernel";
        if (IsKernelMark && F && !Kernels.count(F)) {
          auto *V = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(
              N->getOperand(I + 1));
          if (V && !V->isZero())
            internalError("function '" + F->getName().str() +
                          "' is annotated as a kernel but is not listed in "
                          "kernelNames");
        }
        const char *Attr = limitAttribute(K);
        bool IsLimit = *Attr && F && Kernels.count(F);
        if (IsLimit)
          if (auto *V = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(
                  N->getOperand(I + 1)))
            F->addFnAttr(Attr, std::to_string(V->getZExtValue()));
        if (IsKernelMark || IsLimit) {
          Changed = true;
          continue;
        }
        Ops.push_back(N->getOperand(I).get());
        Ops.push_back(N->getOperand(I + 1).get());
      }
      if (!Changed)
        Kept.push_back(N);
      else if (Ops.size() > 1)
        Kept.push_back(llvm::MDNode::get(Ctx, Ops));
    }
  }
  // Per-kernel limits: .maxnreg, and launch bounds as .maxntid /
  // .minnctapersm / .maxclusterrank (function attributes in LLVM 22).
  // .maxntid names all three dimensions ("128, 1, 1", as NVVM writes it;
  // the same bound as a lone "128").
  std::vector<std::pair<const char *, std::string>> Limits;
  if (O.maxRegisters > 0)
    Limits.push_back({"nvvm.maxnreg", std::to_string(O.maxRegisters)});
  if (O.maxThreadsPerBlock > 0)
    Limits.push_back(
        {"nvvm.maxntid", std::to_string(O.maxThreadsPerBlock) + ",1,1"});
  if (O.minBlocksPerSM > 0)
    Limits.push_back({"nvvm.minctasm", std::to_string(O.minBlocksPerSM)});
  if (O.maxClusterRank > 0)
    Limits.push_back({"nvvm.maxclusterrank", std::to_string(O.maxClusterRank)});
  for (const std::string &Name : O.kernelNames) {
    llvm::Function *F = M.getFunction(Name);
    for (const auto &[Attr, Value] : Limits)
      F->addFnAttr(Attr, Value);
  }
  if (Annot)
    Annot->clearOperands();
  if (Kept.empty()) {
    if (Annot)
      M.eraseNamedMetadata(Annot);
    return;
  }
  if (!Annot)
    Annot = M.getOrInsertNamedMetadata("nvvm.annotations");
  for (llvm::MDNode *N : Kept)
    Annot->addOperand(N);
}

// Makes exactly the functions in kernelNames kernels (ptx_kernel CC).
std::set<llvm::Function *> markKernels(llvm::Module &M, const NvptxOptions &O) {
  if (O.kernelNames.empty() && O.exportedSymbols.empty())
    internalError("emitPtx: no kernel or exported names given for module '" +
                  M.getModuleIdentifier() + "'");
  std::set<llvm::Function *> Kernels;
  for (const std::string &Name : O.kernelNames) {
    llvm::Function *F = M.getFunction(Name);
    if (!F || F->isDeclaration())
      internalError("emitPtx: kernel '" + Name +
                    "' is not defined in module '" + M.getModuleIdentifier() +
                    "'");
    if (!F->getReturnType()->isVoidTy())
      internalError("emitPtx: kernel '" + Name + "' must return void");
    Kernels.insert(F);
  }
  for (llvm::Function &F : M)
    if (F.getCallingConv() == llvm::CallingConv::PTX_Kernel &&
        !Kernels.count(&F))
      internalError("function '" + F.getName().str() +
                    "' has the ptx_kernel calling convention but is not "
                    "listed in kernelNames");
  for (llvm::Function *F : Kernels)
    F->setCallingConv(llvm::CallingConv::PTX_Kernel);
  rewriteAnnotations(M, Kernels, O);
  return Kernels;
}

// LLVM 19 numbers call sites with a process-wide counter
// (NVPTXISelLowering's GlobalUniqueCallSite) that leaks into the PTX as
// "// callseq N" comments and "prototype_N" labels, so the same module
// would give different PTX on each compile.  Renumber them per module in
// order of first appearance.
std::string renumberCallSites(const std::string &Ptx) {
  std::map<std::string, std::string> Ids;
  std::string Out;
  Out.reserve(Ptx.size());
  auto IsIdent = [](char C) {
    return std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '$';
  };
  size_t I = 0;
  while (I < Ptx.size()) {
    size_t Len = 0;
    if (Ptx.compare(I, 11, "// callseq ") == 0)
      Len = 11;
    else if (Ptx.compare(I, 10, "prototype_") == 0 &&
             (I == 0 || !IsIdent(Ptx[I - 1])))
      Len = 10;
    size_t J = I + Len;
    while (Len && J < Ptx.size() &&
           std::isdigit(static_cast<unsigned char>(Ptx[J])))
      ++J;
    if (!Len || J == I + Len) {
      Out += Ptx[I++];
      continue;
    }
    std::string Num = Ptx.substr(I + Len, J - I - Len);
    auto It = Ids.try_emplace(Num, std::to_string(Ids.size())).first;
    Out.append(Ptx, I, Len);
    Out += It->second;
    I = J;
  }
  return Out;
}

// Defined function names (before linking libdevice).
std::set<std::string> definedFunctions(const llvm::Module &M) {
  std::set<std::string> Names;
  for (const llvm::Function &F : M)
    if (!F.isDeclaration())
      Names.insert(F.getName().str());
  return Names;
}

// NVVM compiles libdevice with the module's -fma setting (1 by default), so
// libdevice's plain multiplies, adds and subtracts may fuse: mark those of
// the functions linked just now `contract` (the backend fuses them within
// a block).  The kernel's own operations were decided before
// (FuseMultiplyAdd) and carry no `contract`: the two never fuse together.
void allowContractionInLinked(llvm::Module &M,
                              const std::set<std::string> &Before) {
  for (llvm::Function &F : M) {
    if (F.isDeclaration() || Before.count(F.getName().str()))
      continue;
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB)
        if (I.getOpcode() == llvm::Instruction::FMul ||
            I.getOpcode() == llvm::Instruction::FAdd ||
            I.getOpcode() == llvm::Instruction::FSub)
          I.setHasAllowContract(true);
  }
}

// Bytes of parameter space the kernels' parameters take (the largest
// kernel), laid out as ptxas does: each parameter at its alignment.
uint64_t kernelParamBytes(const std::set<llvm::Function *> &Kernels) {
  uint64_t Max = 0;
  for (llvm::Function *F : Kernels) {
    const llvm::DataLayout &DL = F->getParent()->getDataLayout();
    uint64_t Off = 0;
    for (llvm::Argument &A : F->args()) {
      llvm::Type *T = A.hasByValAttr() ? A.getParamByValType() : A.getType();
      uint64_t Align = A.hasByValAttr() ? A.getParamAlign().valueOrOne().value()
                                        : DL.getABITypeAlign(T).value();
      Off = (Off + Align - 1) / Align * Align + DL.getTypeAllocSize(T);
    }
    Max = std::max(Max, Off);
  }
  return Max;
}

// fastMath's approximate division and square root: LLVM 22's NVPTX backend
// takes them from an operation's `afn` flag (TargetOptions::UnsafeFPMath
// is gone), so every float division and sqrt call gets it.
void allowApproximations(llvm::Module &M) {
  for (llvm::Function &F : M)
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB) {
        bool Div = I.getOpcode() == llvm::Instruction::FDiv;
        auto *Call = llvm::dyn_cast<llvm::CallInst>(&I);
        bool Sqrt = Call && Call->getIntrinsicID() == llvm::Intrinsic::sqrt;
        if (Div || Sqrt)
          I.setHasApproxFunc(true);
      }
}

// Answers __nvvm_reflect(Name) calls with Value before NVVMReflect runs.
// LLVM's pass knows __CUDA_FTZ (module flag) and __CUDA_ARCH only and
// answers 0 for any other name; libdevice also asks __CUDA_PREC_SQRT (its
// sqrtf, hypotf, norm*f, jnf), where 0 selects sqrt.approx.
void answerReflect(llvm::Module &M, llvm::StringRef Name, int Value) {
  llvm::Function *R = M.getFunction("__nvvm_reflect");
  if (!R)
    return;
  std::vector<llvm::CallInst *> Calls;
  for (llvm::User *U : R->users()) {
    auto *C = llvm::dyn_cast<llvm::CallInst>(U);
    if (!C || C->getCalledFunction() != R || C->arg_size() != 1)
      continue;
    auto *GV = llvm::dyn_cast<llvm::GlobalVariable>(
        C->getArgOperand(0)->stripPointerCasts());
    if (!GV || !GV->hasInitializer())
      continue;
    auto *Str =
        llvm::dyn_cast<llvm::ConstantDataSequential>(GV->getInitializer());
    if (Str && Str->isCString() && Str->getAsCString() == Name)
      Calls.push_back(C);
  }
  for (llvm::CallInst *C : Calls) {
    C->replaceAllUsesWith(llvm::ConstantInt::get(C->getType(), Value));
    C->eraseFromParent();
  }
}

bool hasReflectCalls(const llvm::Module &M) {
  const llvm::Function *R = M.getFunction("__nvvm_reflect");
  return R && !R->use_empty();
}

} // namespace

NvptxResult emitPtx(llvm::Module &M, const NvptxOptions &O) {
  initializeTargets();
  if (O.optLevel < 0 || O.optLevel > 3)
    internalError("emitPtx: optLevel must be 0..3, got " +
                  std::to_string(O.optLevel));
  requireNvptxArch(O.ccMajor, O.ccMinor, O.ccSuffix);

  NvptxResult R;
  detail::DiagnosticCapture Diags(M.getContext());
  checkOrSetTarget(M, O);
  detail::verifyOrThrow(M, "given to the NVPTX backend");
  std::set<llvm::Function *> Kernels = markKernels(M, O);

  auto T0 = detail::Clock::now();
  std::set<std::string> OwnFunctions;
  if (O.fmad && !O.fastMath)
    OwnFunctions = definedFunctions(M);
  R.linkedLibdevice = linkLibdeviceIfNeeded(M);
  if (R.linkedLibdevice && O.fmad && !O.fastMath)
    allowContractionInLinked(M, OwnFunctions);
  R.msLinkLibdevice = detail::msSince(T0);

  if (!O.lineInfo)
    llvm::StripDebugInfo(M);
  // After linking, so inlined libdevice code agrees with its callers
  // (the inliner ANDs "unsafe-fp-math" and refuses mismatched denormal modes).
  if (O.fastMath) {
    allowApproximations(M);
    detail::addFunctionAttrToAll(M, "unsafe-fp-math", "true");
    detail::addFunctionAttrToAll(M, "denormal-fp-math-f32",
                                 "preserve-sign,preserve-sign");
  }
  // libdevice asks __nvvm_reflect("__CUDA_FTZ"); NVVMReflect answers from
  // this flag (and "__CUDA_ARCH" from the subtarget).
  M.setModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz",
                  O.fastMath ? 1u : 0u);
  // Correctly rounded square roots unless fastmath (numba-cuda's NVVM
  // default, -prec-sqrt=1).
  answerReflect(M, "__CUDA_PREC_SQRT", O.fastMath ? 0 : 1);

  std::set<std::string> Keep(O.exportedSymbols.begin(),
                             O.exportedSymbols.end());
  for (llvm::Function *F : Kernels)
    Keep.insert(F->getName().str());
  // The error record's globals, which the host reads and writes.
  Keep.insert(rt::kErrorRecordGlobal);
  Keep.insert(rt::kErrorSitesGlobal);
  detail::internalizeAllBut(M, Keep);

  // More than 4352 bytes of kernel parameters need PTX ISA 8.1 (sm_70+:
  // up to 32764 bytes); other kernels keep 7.8 and run on older drivers.
  int PtxVersion = kernelParamBytes(Kernels) > 4352 ? 81 : 78;
  llvm::TargetMachine &TM = nvptxTargetMachineForThread(
      O.ccMajor, O.ccMinor, O.optLevel, O.fastMath, PtxVersion, O.ccSuffix);
  auto T1 = detail::Clock::now();
  detail::runOptimizationPipeline(M, TM, O.optLevel, /*Vectorize=*/true);
  Diags.throwIfErrors("LLVM optimisation failed");
  if (hasReflectCalls(M))
    internalError("__nvvm_reflect calls survived optimisation: the NVPTX "
                  "NVVMReflect pass did not run");
  detail::dropDeadGlobals(M);
  // After the optimiser, which would undo them: i8/i16 abs in 32 bits,
  // NVVM's spellings of float16 operations and int8 -> float16.
  widenNarrowInts(M, O.widenNarrowArithmetic);
  markLoneHalfOps(M);
  convertInt8ToHalf(M);
  R.msOptimize = detail::msSince(T1);
#ifndef NDEBUG
  detail::verifyOrThrow(M, "after optimisation");
#endif
  if (O.keepOptimizedIR)
    R.optimizedIR = detail::printModule(M);

  auto T2 = detail::Clock::now();
  llvm::SmallString<0> Ptx;
  detail::emitWithLegacyCodegen(M, TM, llvm::CodeGenFileType::AssemblyFile,
                                Ptx);
  Diags.throwIfErrors("PTX code generation failed");
  R.ptx = renumberCallSites(std::string(Ptx.begin(), Ptx.end()));
  R.msEmit = detail::msSince(T2);
  return R;
}

} // namespace pcj::codegen
