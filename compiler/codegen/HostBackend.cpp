// HostBackend: optimise a module for the host CPU, emit an object file and
// link it into the process with the process-wide ORC LLJIT, one JITDylib
// per module (see HostBackend.h).
//
// The object is produced here, with the calling thread's cached host
// TargetMachine, rather than by LLJIT's IRCompileLayer: that keeps codegen
// options (fast math, opt level) in our hands and makes concurrent compiles
// independent of LLJIT's single shared compiler.  LLJIT only links.  After
// optimization every loop gets a poll of the executor's stop word
// (CancelPoints.h), so endless kernels can be interrupted.
#include "codegen/HostBackend.h"

#include "codegen/CancelPoints.h"
#include "codegen/Pipeline.h"
#include "codegen/Targets.h"
#include "support/Diagnostics.h"

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SmallVectorMemoryBuffer.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

namespace pcj::codegen {

// ---- compiler-runtime helpers ----------------------------------------------
// LLVM lowers some operations to libgcc/compiler-rt calls that the process
// may not export (the extension links libgcc statically and hides it).
namespace {

template <typename T> T powiImpl(T A, int B) {
  const bool Recip = B < 0;
  T R = 1;
  for (;;) {
    if (B & 1)
      R *= A;
    B /= 2;
    if (B == 0)
      break;
    A *= A;
  }
  return Recip ? 1 / R : R;
}
float powisf2(float A, int B) { return powiImpl(A, B); }
double powidf2(double A, int B) { return powiImpl(A, B); }

#if defined(__x86_64__) && defined(__FLT16_MAX__)
float extendhfsf2(_Float16 X) { return static_cast<float>(X); }
_Float16 truncsfhf2(float X) { return static_cast<_Float16>(X); }
_Float16 truncdfhf2(double X) { return static_cast<_Float16>(X); }
#endif

#if defined(__x86_64__) && defined(__FLT16_MAX__)
// float -> bfloat16 rounded to nearest even, NaN -> 0x7fff: the libcalls
// LLVM emits for fptrunc to bfloat on x86-64 (AArch64 lowers it inline).
// The bits travel in a _Float16, which the ABI returns in the register
// LLVM expects a bfloat in.
uint16_t bf16Nearest(float X) {
  if (X != X)
    return 0x7FFF;
  uint32_t Bits;
  std::memcpy(&Bits, &X, 4);
  uint32_t Hi = Bits >> 16, Lo = Bits & 0xFFFF;
  if (Lo > 0x8000 || (Lo == 0x8000 && (Hi & 1)))
    ++Hi;
  return uint16_t(Hi);
}
_Float16 bf16Result(uint16_t H) {
  _Float16 R;
  std::memcpy(&R, &H, 2);
  return R;
}
_Float16 truncsfbf2(float X) { return bf16Result(bf16Nearest(X)); }
// double -> float rounded to odd, then to nearest: one correct rounding.
_Float16 truncdfbf2(double X) {
  float F = static_cast<float>(X);
  if (X == X && static_cast<double>(F) != X) {
    uint32_t Bits;
    std::memcpy(&Bits, &F, 4);
    if (std::fabs(static_cast<double>(F)) > std::fabs(X))
      --Bits;
    Bits |= 1;
    std::memcpy(&F, &Bits, 4);
  }
  return bf16Result(bf16Nearest(F));
}
#endif

std::vector<std::pair<const char *, void *>> builtinHelpers() {
  return {
    {"__powisf2", reinterpret_cast<void *>(&powisf2)},
        {"__powidf2", reinterpret_cast<void *>(&powidf2)},
#if defined(__x86_64__) && defined(__FLT16_MAX__)
        {"__extendhfsf2", reinterpret_cast<void *>(&extendhfsf2)},
        {"__truncsfhf2", reinterpret_cast<void *>(&truncsfhf2)},
        {"__truncdfhf2", reinterpret_cast<void *>(&truncdfhf2)},
#endif
#if defined(__x86_64__) && defined(__FLT16_MAX__)
        {"__truncsfbf2", reinterpret_cast<void *>(&truncsfbf2)},
        {"__truncdfbf2", reinterpret_cast<void *>(&truncdfbf2)},
#endif
  };
}

// ---- the process-wide JIT
// ------------------------------------------------------ Created on first use
// and deliberately never destroyed: HostResults held by Python objects may
// outlive static destructors at interpreter exit.
struct HostJit {
  std::unique_ptr<llvm::orc::LLJIT> J;
  llvm::orc::JITDylib *RuntimeJD = nullptr;
  std::string InitError;
};

// Registered symbols and the JIT pointer are guarded by one mutex so that a
// registration racing with JIT creation is never lost.
struct Registry {
  std::mutex Mu;
  std::map<std::string, void *> Symbols;
  HostJit *Jit = nullptr;
};

Registry &registry() {
  static Registry *R = new Registry(); // immortal, see HostJit
  return *R;
}

std::atomic<uint64_t> NextDylibId{0};
std::atomic<size_t> LiveModules{0};

// Errors ORC reports asynchronously (e.g. "Symbols not found") arrive on
// the thread that drives the materialization, i.e. the one in lookup().
thread_local std::string LastJitError;

[[noreturn]] void backendError(std::string Msg) {
  throw CompileError(ErrorKind::Backend, SourceLoc{}, std::move(Msg));
}
[[noreturn]] void internalError(std::string Msg) {
  throw CompileError(ErrorKind::Internal, SourceLoc{}, std::move(Msg),
                     "this is a bug in pycuda_jit; please report it");
}

llvm::orc::ExecutorSymbolDef absolute(void *Addr) {
  return {llvm::orc::ExecutorAddr::fromPtr(Addr),
          llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
}

// Defines (or redefines) Name in the runtime JITDylib.  Never throws.
void defineRuntimeSymbol(HostJit &H, const std::string &Name, void *Addr) {
  llvm::orc::SymbolStringPtr Sym = H.J->mangleAndIntern(Name);
  llvm::consumeError(H.RuntimeJD->remove({Sym}));
  llvm::orc::SymbolMap Map;
  Map[Sym] = absolute(Addr);
  if (llvm::Error E = H.RuntimeJD->define(llvm::orc::absoluteSymbols(Map)))
    LastJitError = llvm::toString(std::move(E));
}

HostJit &hostJit() {
  static HostJit *H = new HostJit(); // immortal
  static std::once_flag Once;
  std::call_once(Once, [] {
    initializeTargets();
    auto JOrErr = llvm::orc::LLJITBuilder()
                      .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
                      .create();
    if (!JOrErr) {
      H->InitError = llvm::toString(JOrErr.takeError());
      return;
    }
    std::unique_ptr<llvm::orc::LLJIT> J = std::move(*JOrErr);
    llvm::orc::ExecutionSession &ES = J->getExecutionSession();
    ES.setErrorReporter([](llvm::Error E) {
      if (!LastJitError.empty())
        LastJitError += "; ";
      LastJitError += llvm::toString(std::move(E));
    });
    llvm::orc::JITDylib &RT = ES.createBareJITDylib("pcj.runtime");
    H->RuntimeJD = &RT;
    H->J = std::move(J);

    Registry &R = registry();
    std::lock_guard<std::mutex> Lock(R.Mu);
    for (const auto &[Name, Addr] : builtinHelpers())
      if (!R.Symbols.count(Name))
        defineRuntimeSymbol(*H, Name, Addr);
    for (const auto &[Name, Addr] : R.Symbols)
      defineRuntimeSymbol(*H, Name, Addr);
    R.Jit = H;
  });
  if (!H->J)
    backendError("cannot create the host JIT: " + H->InitError);
  return *H;
}

// A float16 fma rounds once on the GPU (fma.rn.f16).  x86 without
// AVX512-FP16 computes llvm.fma.f16 as a float32 fma rounded again to half,
// which double-rounds (e.g. 1 + 2^-11 + 2^-24 becomes 1 instead of
// 1 + 2^-10).  In double the product of two halves is exact and the one
// rounding of the sum cannot create a false half-way case, so
// fptrunc(fma.f64(a, b, c)) is the correctly rounded half fma everywhere.
// bfloat16 (fma.rn.bf16 on the GPU) has float32's exponent range, so its
// exact sum can need far more than 53 bits and one double rounding can land
// on a false half-way point (1.015625 * 1.25 + 2^-133 gave 0x3fa2, not
// 0x3fa3): the double sum is rounded to odd instead (TwoSum's exact error
// moves an inexact even sum one ulp toward the exact value), after which
// the rounding to bfloat16 is correct.
static llvm::Value *bf16FmaRoundedToOdd(llvm::IRBuilder<> &B, llvm::Value *X,
                                        llvm::Value *Y, llvm::Value *Z) {
  llvm::Value *P = B.CreateFMul(X, Y); // exact: two 8-bit significands
  llvm::Value *S = B.CreateFAdd(P, Z);
  llvm::Value *Zs = B.CreateFSub(S, P);
  llvm::Value *Ps = B.CreateFSub(S, Zs);
  llvm::Value *E = B.CreateFAdd(B.CreateFSub(P, Ps), B.CreateFSub(Z, Zs));
  llvm::Type *IntTy = S->getType()->getWithNewType(B.getInt64Ty());
  llvm::Value *Bits = B.CreateBitCast(S, IntTy);
  llvm::Value *Zero = llvm::ConstantFP::get(S->getType(), 0.0);
  llvm::Value *One = llvm::ConstantInt::get(IntTy, 1);
  llvm::Value *Even = B.CreateICmpEQ(B.CreateAnd(Bits, One),
                                     llvm::Constant::getNullValue(IntTy));
  llvm::Value *Inexact = B.CreateFCmpONE(E, Zero); // false for inf/NaN sums
  llvm::Value *Away =
      B.CreateICmpEQ(B.CreateFCmpOLT(S, Zero), B.CreateFCmpOLT(E, Zero));
  llvm::Value *Odd =
      B.CreateSelect(Away, B.CreateAdd(Bits, One), B.CreateSub(Bits, One));
  return B.CreateBitCast(B.CreateSelect(B.CreateAnd(Inexact, Even), Odd, Bits),
                         S->getType());
}

void widenHalfFma(llvm::Module &M) {
  for (llvm::Function &F : M) {
    if (F.isDeclaration())
      continue;
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : llvm::make_early_inc_range(BB)) {
        auto *Call = llvm::dyn_cast<llvm::IntrinsicInst>(&I);
        if (!Call || Call->getIntrinsicID() != llvm::Intrinsic::fma ||
            !(Call->getType()->getScalarType()->isHalfTy() ||
              Call->getType()->getScalarType()->isBFloatTy()))
          continue;
        llvm::IRBuilder<> B(Call);
        llvm::Type *Wide = Call->getType()->getWithNewType(B.getDoubleTy());
        llvm::Value *Args[3];
        for (unsigned K = 0; K < 3; ++K)
          Args[K] = B.CreateFPExt(Call->getArgOperand(K), Wide);
        llvm::Value *Fma =
            Call->getType()->getScalarType()->isBFloatTy()
                ? bf16FmaRoundedToOdd(B, Args[0], Args[1], Args[2])
                : B.CreateIntrinsic(llvm::Intrinsic::fma, {Wide}, Args);
        llvm::Value *Narrow = B.CreateFPTrunc(Fma, Call->getType());
        Narrow->takeName(Call);
        Call->replaceAllUsesWith(Narrow);
        Call->eraseFromParent();
      }
  }
}

void checkOrSetHostTarget(llvm::Module &M) {
  if (M.getTargetTriple().empty() || M.getDataLayout().isDefault()) {
    configureForHost(M);
    return;
  }
  llvm::Triple T(M.getTargetTriple());
  if (T.getArch() != llvm::Triple(llvm::sys::getProcessTriple()).getArch())
    internalError("jitForHost: module '" + M.getModuleIdentifier() +
                  "' targets " + M.getTargetTriple().str() +
                  ", not this host (call configureForHost before lowering)");
}

} // namespace

// ---- HostResult
// ----------------------------------------------------------------

struct HostResult::Impl {
  llvm::orc::JITDylib *JD = nullptr;
  std::string Name;
  std::map<std::string, void *> Entries;
};

HostResult::HostResult() : impl(std::make_unique<Impl>()) {}

HostResult::~HostResult() {
  if (!impl->JD)
    return;
  // Frees the code and data; never throws.
  HostJit &H = *registry().Jit;
  llvm::consumeError(H.J->getExecutionSession().removeJITDylib(*impl->JD));
  LiveModules.fetch_sub(1, std::memory_order_relaxed);
}

void *HostResult::entry(const std::string &name) const {
  auto It = impl->Entries.find(name);
  return It == impl->Entries.end() ? nullptr : It->second;
}

const std::string &HostResult::dylibName() const { return impl->Name; }

size_t hostLiveModules() { return LiveModules.load(); }

void registerHostSymbol(const std::string &name, void *addr) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Lock(R.Mu);
  R.Symbols[name] = addr;
  if (R.Jit)
    defineRuntimeSymbol(*R.Jit, name, addr);
}

// ---- compile + link
// -------------------------------------------------------------

// Links a host object file into a fresh JITDylib of the process-wide JIT
// and resolves the entries.
void linkObject(HostResult &Res, const std::string &ObjectBytes,
                const std::vector<std::string> &entryNames,
                const HostSymbols &Symbols) {
  HostJit &H = hostJit();
  HostResult *Result = &Res;
  llvm::SmallVector<char, 0> Object(ObjectBytes.begin(), ObjectBytes.end());
  auto T2 = detail::Clock::now();
  HostResult::Impl &I = *Result->impl;
  I.Name = "pcj.host." + std::to_string(NextDylibId.fetch_add(1));
  auto JDOrErr = H.J->createJITDylib(I.Name);
  if (!JDOrErr)
    backendError("cannot create JITDylib: " +
                 llvm::toString(JDOrErr.takeError()));
  I.JD = &*JDOrErr;
  LiveModules.fetch_add(1, std::memory_order_relaxed);

  // Our runtime symbols first, then LLJIT's defaults (the process).
  llvm::orc::JITDylibSearchOrder Order;
  Order.push_back(
      {H.RuntimeJD, llvm::orc::JITDylibLookupFlags::MatchAllSymbols});
  for (const auto &Link : H.J->defaultLinkOrder())
    Order.push_back(Link);
  if (llvm::orc::JITDylibSP Proc = H.J->getProcessSymbolsJITDylib()) {
    bool Present = false;
    for (const auto &Link : Order)
      Present |= Link.first == Proc.get();
    if (!Present)
      Order.push_back(
          {Proc.get(),
           llvm::orc::JITDylibLookupFlags::MatchExportedSymbolsOnly});
  }
  I.JD->setLinkOrder(std::move(Order), /*LinkAgainstThisJITDylibFirst=*/true);
  // This module's own names (foreign functions), searched first.
  if (!Symbols.empty()) {
    llvm::orc::SymbolMap Map;
    for (const auto &[Name, Addr] : Symbols)
      Map[H.J->mangleAndIntern(Name)] = absolute(Addr);
    if (llvm::Error E = I.JD->define(llvm::orc::absoluteSymbols(Map)))
      backendError("cannot define the foreign functions: " +
                   llvm::toString(std::move(E)));
  }

  auto Buffer = std::make_unique<llvm::SmallVectorMemoryBuffer>(
      std::move(Object), I.Name, /*RequiresNullTerminator=*/false);
  if (llvm::Error E = H.J->addObjectFile(*I.JD, std::move(Buffer)))
    backendError("cannot add host object: " + llvm::toString(std::move(E)));

  LastJitError.clear();
  for (const std::string &Name : entryNames) {
    auto Addr = H.J->lookup(*I.JD, Name);
    if (!Addr) {
      std::string Msg = llvm::toString(Addr.takeError());
      if (!LastJitError.empty())
        Msg = LastJitError + " (" + Msg + ")";
      LastJitError.clear();
      backendError("linking host code failed: " + Msg);
    }
    I.Entries[Name] = Addr->toPtr<void *>();
  }
  Result->msJit += detail::msSince(T2);
}

std::shared_ptr<HostResult>
jitForHost(std::unique_ptr<llvm::Module> M,
           std::unique_ptr<llvm::LLVMContext> C, const HostOptions &O,
           const std::vector<std::string> &entryNames) {
  // The module must be freed before its context on every path, also when
  // this function throws: the parameters themselves die in an order the
  // ABI leaves open (GCC builds them right to left on x86-64, so C outlived
  // M there, but left to right on aarch64, where a throw freed the context
  // first and ~Module crashed in LLVMContext::removeModule).
  struct ModuleBeforeContext {
    std::unique_ptr<llvm::Module> &M;
    std::unique_ptr<llvm::LLVMContext> &C;
    ~ModuleBeforeContext() {
      M.reset();
      C.reset();
    }
  } FreeInOrder{M, C};
  if (!M || !C)
    internalError("jitForHost: null module or context");
  if (O.optLevel < 0 || O.optLevel > 3)
    internalError("jitForHost: optLevel must be 0..3, got " +
                  std::to_string(O.optLevel));
  HostJit &H = hostJit();
  std::shared_ptr<HostResult> Result(new HostResult());

  llvm::SmallVector<char, 0> Object;
  {
    detail::DiagnosticCapture Diags(*C);
    checkOrSetHostTarget(*M);
    detail::verifyOrThrow(*M, "given to the host backend");
    std::set<std::string> Keep;
    for (const std::string &Name : entryNames) {
      llvm::Function *F = M->getFunction(Name);
      if (!F || F->isDeclaration())
        internalError("jitForHost: entry '" + Name +
                      "' is not defined in module '" +
                      M->getModuleIdentifier() + "'");
      Keep.insert(Name);
    }
    if (O.fastMath)
      detail::addFunctionAttrToAll(*M, "unsafe-fp-math", "true");
    widenHalfFma(*M);
    detail::internalizeAllBut(*M, Keep);

    llvm::TargetMachine &TM =
        hostTargetMachineForThread(O.optLevel, O.fastMath);
    auto T0 = detail::Clock::now();
    detail::runOptimizationPipeline(*M, TM, O.optLevel, /*Vectorize=*/true);
    Diags.throwIfErrors("LLVM optimisation failed");
    detail::dropDeadGlobals(*M);
    if (O.cancelPoints) { // after the loop optimizations, see CancelPoints.h
      insertCancelPoints(*M);
      detail::verifyOrThrow(*M, "after inserting cancellation points");
    }
    Result->msOptimize = detail::msSince(T0);
    if (O.keepOptimizedIR)
      Result->optimizedIR = detail::printModule(*M);

    auto T1 = detail::Clock::now();
    detail::emitWithLegacyCodegen(*M, TM, llvm::CodeGenFileType::ObjectFile,
                                  Object);
    Diags.throwIfErrors("host code generation failed");
    Result->msJit = detail::msSince(T1);
  }
  // The IR is no longer needed; free it before linking.
  M.reset();
  C.reset();
  Result->object.assign(Object.begin(), Object.end());
  linkObject(*Result, Result->object, entryNames, O.symbols);
  return Result;
}

std::shared_ptr<HostResult>
loadHostObject(const std::string &Object,
               const std::vector<std::string> &entryNames,
               const HostSymbols &Symbols) {
  std::shared_ptr<HostResult> Result(new HostResult());
  Result->object = Object;
  linkObject(*Result, Object, entryNames, Symbols);
  return Result;
}

} // namespace pcj::codegen
