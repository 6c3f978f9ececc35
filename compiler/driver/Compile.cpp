// The pipeline (see Compile.h).
#include "driver/Compile.h"

#include "bytecode/Decoder.h"
#include "cfg/CFG.h"
#include "codegen/Codegen.h"
#include "lower/Lower.h"
#include "ssa/SSABuilder.h"
#include "stdlib/Registry.h"
#include "support/Diagnostics.h"
#include "transforms/ArrayEffects.h"
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

namespace {

// The typed IR of one function (kernel or device-function specialization).
struct Typed {
  std::unique_ptr<ir::Function> fn;
  std::vector<typeinfer::Resolution> resolutions;
};

class Session;

// Decode -> CFG -> SSA -> type inference -> casts, with dumps and timings
// for the kernel (Dumps == nullptr for device functions).
Typed frontend(const bc::RawCode &Raw, const std::vector<types::TypeRef> &Args,
               ir::Resolver &R, const typeinfer::Options &TO,
               std::map<std::string, std::string> *Dumps,
               const std::set<std::string> &Want, Stopwatch *Clock) {
  auto Keep = [&](const char *Stage) {
    return Dumps && (Want.count(Stage) || Want.count("all"));
  };
  auto Lap = [&](const char *Stage) {
    if (Clock)
      Clock->lap(Stage);
  };
  bc::DecodedCode Code = bc::decode(Raw);
  if (Keep("bytecode"))
    (*Dumps)["bytecode"] = Code.dump();
  Lap("decode");
  cfg::CFG G = cfg::buildCFG(Code);
  if (Keep("cfg"))
    (*Dumps)["cfg"] = G.dump(Code);
  Lap("cfg");
  Typed T;
  T.fn = ssa::buildSSA(Code, G);
  if (Keep("ir"))
    (*Dumps)["ir"] = T.fn->print(false);
  Lap("ssa");
  T.resolutions = typeinfer::inferTypes(*T.fn, Args, R, TO);
  Lap("typeinfer");
  transforms::insertCasts(*T.fn);
  ir::verify(*T.fn, true);
  if (Keep("typed"))
    (*Dumps)["typed"] = T.fn->print(true);
  Lap("transforms");
  return T;
}

// Device-function specializations needed by one kernel compile: typed on
// demand (CalleeTyper), lowered into the kernel's module.
class Session : public typeinfer::CalleeTyper {
public:
  explicit Session(ir::Resolver &Root) : Root(Root) {}

  struct Spec {
    std::string key, identity, symbol;
    std::unique_ptr<ir::Resolver> resolver;
    Typed typed;
    types::TypeRef provisional = nullptr;
    bool done = false, inlineAlways = false;
  };
  std::vector<Spec *> order; // completed specializations, callees first

  typeinfer::CalleeParams parameters(const ir::CTValue &Fn,
                                     const SourceLoc &At) override {
    ir::CalleeInfo Info = Root.callee(Fn);
    typeinfer::CalleeParams P;
    const bc::RawCode &C = Info.code;
    if (C.flags & 0x0C) // CO_VARARGS | CO_VARKEYWORDS
      throw CompileError(ErrorKind::Unsupported, At,
                         "device function '" + Fn.name +
                             "' takes *args or **kwargs, which kernels cannot pass");
    if (C.kwOnlyArgCount)
      throw CompileError(ErrorKind::Unsupported, At,
                         "device function '" + Fn.name +
                             "' has keyword-only parameters, which are not supported yet");
    P.names.assign(C.varnames.begin(), C.varnames.begin() + C.argCount);
    P.defaults = std::move(Info.defaults);
    return P;
  }

  typeinfer::CallSpec specialize(const ir::CTValue &Fn,
                                 const std::vector<types::TypeRef> &Args,
                                 const SourceLoc &At) override {
    ir::CalleeInfo Info = Root.callee(Fn);
    types::Signature Sig{nullptr, Args};
    std::string Key = Info.identity + Sig.str();
    auto It = Specs.find(Key);
    if (It != Specs.end()) {
      Spec &S = *It->second;
      if (!S.done && (InProgress.empty() || InProgress.back() != Key))
        throw CompileError(ErrorKind::Unsupported, At,
                           "recursion between device functions is not supported (" +
                               chain(Fn.name) + ")",
                           "only a function calling itself with the same "
                           "argument types can recurse");
      return {S.done ? S.typed.fn->returnType : S.provisional, S.symbol};
    }
    for (const std::string &P : InProgress)
      if (P.rfind(Info.identity + "(", 0) == 0)
        throw CompileError(ErrorKind::Unsupported, At,
                           "device function '" + Fn.name +
                               "' calls itself with different argument types " +
                               Sig.str(),
                           "recursion needs the same argument types on every call");
    if (InProgress.size() > 64)
      throw CompileError(ErrorKind::Unsupported, At,
                         "device functions are nested too deeply");
    auto S = std::make_unique<Spec>();
    Spec &Ref = *S;
    Ref.key = Key;
    Ref.identity = Info.identity;
    Ref.inlineAlways = Info.inlineAlways;
    Ref.symbol = lower::mangleKernelName(Info.code.qualname, Key);
    Ref.resolver = std::move(Info.resolver);
    Specs.emplace(Key, std::move(S));
    InProgress.push_back(Key);
    Names.push_back(Fn.name);
    typeinfer::Options TO;
    TO.isKernel = false;
    TO.callees = this;
    TO.provisionalReturn = &Ref.provisional;
    Ref.typed = frontend(Info.code, Args, *Ref.resolver, TO, nullptr, {}, nullptr);
    InProgress.pop_back();
    Names.pop_back();
    Ref.done = true;
    order.push_back(&Ref);
    return {Ref.typed.fn->returnType, Ref.symbol};
  }

private:
  ir::Resolver &Root;
  std::map<std::string, std::unique_ptr<Spec>> Specs;
  std::vector<std::string> InProgress, Names;

  std::string chain(const std::string &Last) const {
    std::string S;
    for (const std::string &N : Names)
      S += N + " -> ";
    return S + Last;
  }
};

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

  Session S(R);
  typeinfer::Options TO;
  TO.isKernel = true;
  TO.callees = &S;
  Typed K = frontend(Raw, ArgTypes, R, TO, &Out.dumps, O.dumps, &Clock);
  ir::Function *F = K.fn.get();
  Out.resolutions = std::move(K.resolutions);
  for (Session::Spec *Sp : S.order) {
    Out.resolutions.push_back(
        {"device function " + Sp->key + " -> " + Sp->typed.fn->returnType->str(),
         ir::CTValue::constant(bc::ConstValue::ofStr(Sp->identity))});
    for (auto &Res : Sp->typed.resolutions)
      Out.resolutions.push_back({Sp->identity + ": " + Res.what, Res.value});
  }

  types::Signature Sig{types::noneTy(), ArgTypes};
  Out.signature = Sig.str();
  lower::LowerOptions LO;
  LO.target = O.backend == Backend::CUDA ? lower::Target::NVPTX
                                         : lower::Target::Host;
  LO.ccMajor = O.ccMajor;
  LO.ccMinor = O.ccMinor;
  LO.boundsCheck = O.boundsCheck;
  LO.fastMath = O.fastMath;
  LO.fastMathFlags = O.fastMathFlags;
  Out.readOnlyArgs = transforms::readOnlyArrayParams(*F);
  if (O.noAliasReadOnly)
    LO.noAliasReadOnly = Out.readOnlyArgs;
  LO.kernelName = lower::mangleKernelName(F->qualname, Out.signature);
  Out.kernelName = LO.kernelName;

  auto Ctx = std::make_unique<llvm::LLVMContext>();
  auto M = std::make_unique<llvm::Module>(LO.kernelName, *Ctx);
  if (O.backend == Backend::CUDA)
    codegen::configureForNvptx(*M, O.ccMajor, O.ccMinor);
  else
    codegen::configureForHost(*M);
  std::vector<lower::DeviceFunction> Callees;
  for (Session::Spec *Sp : S.order)
    Callees.push_back({Sp->typed.fn.get(), Sp->symbol, Sp->inlineAlways});
  lower::LowerResult L = lower::lowerKernel(*F, Callees, *M, LO);
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
    NO.maxRegisters = O.maxRegisters;
    NO.maxThreadsPerBlock = O.maxThreadsPerBlock;
    NO.minBlocksPerSM = O.minBlocksPerSM;
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
