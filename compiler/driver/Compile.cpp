// The pipeline (see Compile.h).
#include "driver/Compile.h"

#include "bytecode/Decoder.h"
#include "cfg/CFG.h"
#include "codegen/Codegen.h"
#include "lower/Lower.h"
#include "ssa/SSABuilder.h"
#include "stdlib/Registry.h"
#include "support/Diagnostics.h"
#include "support/Sha256.h"
#include "transforms/ArrayEffects.h"
#include "transforms/InsertCasts.h"
#include "transforms/NonNegative.h"
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

// What in a code object determines the compiled code: bytecode, constants,
// names, parameters -- and line numbers only when the output embeds them.
std::string codeFingerprint(const bc::RawCode &C, bool IncludeLines) {
  Sha256 H;
  H.field("py" + std::to_string(C.pyMajor) + "." + std::to_string(C.pyMinor));
  H.field(C.qualname).field(C.code);
  for (const auto &K : C.consts)
    H.field(K.repr());
  for (const auto *List : {&C.names, &C.varnames, &C.cellvars, &C.freevars}) {
    H.field(std::to_string(List->size()));
    for (const std::string &N : *List)
      H.field(N);
  }
  H.field(std::to_string(C.argCount) + "/" + std::to_string(C.posOnlyArgCount) +
          "/" + std::to_string(C.kwOnlyArgCount) + "/" + std::to_string(C.flags));
  if (IncludeLines) {
    H.field(C.filename).field(std::to_string(C.firstLineNo));
    for (const auto &L : C.lines)
      H.field(std::to_string(L.start) + ":" + std::to_string(L.end) + ":" +
              std::to_string(L.line));
    for (const auto &P : C.positions)
      H.field(std::to_string(P.line) + ":" + std::to_string(P.col) + ":" +
              std::to_string(P.endCol));
  }
  return H.hexDigest();
}

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
  transforms::markNonNegative(*T.fn);
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
  Session(ir::Resolver &Root, bool IncludeLines)
      : Root(Root), IncludeLines(IncludeLines) {}

  struct Spec {
    std::string key, identity, symbol;
    std::string codeFingerprint; // of the callee's bytecode (cache keys)
    std::string argSignature;    // "(int64, float32)" 
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
    Ref.codeFingerprint = codeFingerprint(Info.code, IncludeLines);
    Ref.argSignature = Sig.str();
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
  bool IncludeLines;
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

struct Analysis {
  Session session;
  Typed kernel;
  CompileResult result; // filled so far: names, signature, resolutions
  std::string key;
  std::vector<StageTiming> timings;

  Analysis(ir::Resolver &R, bool IncludeLines) : session(R, IncludeLines) {}
};

void AnalysisDeleter::operator()(Analysis *A) const { delete A; }

AnalysisPtr analyzeKernel(const bc::RawCode &Raw,
                          const std::vector<types::TypeRef> &ArgTypes,
                          ir::Resolver &R, const CompileOptions &O) {
  bool IncludeLines = O.boundsCheck || O.lineInfo;
  AnalysisPtr A(new Analysis(R, IncludeLines));
  CompileResult &Out = A->result;
  Out.argTypes = ArgTypes;
  Stopwatch Clock(A->timings);
  typeinfer::Options TO;
  TO.isKernel = true;
  TO.callees = &A->session;
  A->kernel = frontend(Raw, ArgTypes, R, TO, &Out.dumps, O.dumps, &Clock);
  ir::Function *F = A->kernel.fn.get();
  Out.resolutions = A->kernel.resolutions;
  // Device functions by name, signature and code (never by address: the
  // list feeds the cache key, which must be the same in every process).
  for (Session::Spec *Sp : A->session.order) {
    std::string Name = Sp->typed.fn->qualname + Sp->argSignature;
    Out.resolutions.push_back(
        {"device function " + Name + " -> " + Sp->typed.fn->returnType->str(),
         ir::CTValue::constant(bc::ConstValue::ofStr(Sp->codeFingerprint))});
    for (auto &Res : Sp->typed.resolutions)
      Out.resolutions.push_back({Name + ": " + Res.what, Res.value});
  }
  types::Signature Sig{types::noneTy(), ArgTypes};
  Out.signature = Sig.str();
  Out.kernelName = lower::mangleKernelName(F->qualname, Out.signature);
  Out.readOnlyArgs = transforms::readOnlyArrayParams(*F);

  // The cache key.
  Sha256 H;
  H.field("pycuda_jit-cache-key/1").field(compilerBuildId());
  H.field(O.backend == Backend::CUDA
              ? "cuda sm_" + std::to_string(O.ccMajor) + std::to_string(O.ccMinor)
              : "cpu " + codegen::hostCpuName() + " " + codegen::hostCpuFeatures());
  H.field("opt" + std::to_string(O.optLevel) + " fast" +
          std::to_string(O.fastMath) + "/" + std::to_string(O.fastMathFlags) +
          " check" + std::to_string(O.boundsCheck) + " line" +
          std::to_string(O.lineInfo) + " maxreg" + std::to_string(O.maxRegisters) +
          " bounds" + std::to_string(O.maxThreadsPerBlock) + "/" +
          std::to_string(O.minBlocksPerSM) + " noalias" +
          std::to_string(O.noAliasReadOnly));
  H.field(codeFingerprint(Raw, IncludeLines));
  H.field(Out.signature);
  for (const auto &Res : Out.resolutions)
    H.field(Res.what).field(Res.value.repr());
  A->key = H.hexDigest();
  return A;
}

const std::string &cacheKey(const Analysis &A) { return A.key; }
const CompileResult &analysisResult(const Analysis &A) { return A.result; }

CompileResult generateKernel(AnalysisPtr A, const CompileOptions &O) {
  CompileResult Out = std::move(A->result);
  Out.timings = std::move(A->timings);
  Stopwatch Clock(Out.timings);
  auto Want = [&](const char *Stage) {
    return O.dumps.count(Stage) || O.dumps.count("all");
  };
  ir::Function *F = A->kernel.fn.get();
  lower::LowerOptions LO;
  LO.target = O.backend == Backend::CUDA ? lower::Target::NVPTX
                                         : lower::Target::Host;
  LO.ccMajor = O.ccMajor;
  LO.ccMinor = O.ccMinor;
  LO.boundsCheck = O.boundsCheck;
  LO.fastMath = O.fastMath;
  LO.fastMathFlags = O.fastMathFlags;
  if (O.noAliasReadOnly)
    LO.noAliasReadOnly = Out.readOnlyArgs;
  LO.kernelName = Out.kernelName;

  auto Ctx = std::make_unique<llvm::LLVMContext>();
  auto M = std::make_unique<llvm::Module>(LO.kernelName, *Ctx);
  if (O.backend == Backend::CUDA)
    codegen::configureForNvptx(*M, O.ccMajor, O.ccMinor);
  else
    codegen::configureForHost(*M);
  std::vector<lower::DeviceFunction> Callees;
  for (Session::Spec *Sp : A->session.order)
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

CompileResult compileKernel(const bc::RawCode &Raw,
                            const std::vector<types::TypeRef> &ArgTypes,
                            ir::Resolver &R, const CompileOptions &O) {
  return generateKernel(analyzeKernel(Raw, ArgTypes, R, O), O);
}

std::string describeForCache(const CompileResult &R) {
  std::string S = "kernel=" + R.kernelName + "\n";
  S += "signature=" + R.signature + "\n";
  S += "flags=" + std::to_string(R.usesBarriers) + std::to_string(R.usesWarpOps) +
       std::to_string(R.usesGridSync) + "\n";
  S += "static_shared=" + std::to_string(R.staticSharedBytes) + "\n";
  std::string RO;
  for (bool B : R.readOnlyArgs)
    RO += B ? '1' : '0';
  S += "readonly=" + RO + "\n";
  return S;
}

bool restoreFromCache(const std::string &Meta, CompileResult &R) {
  std::map<std::string, std::string> KV;
  size_t Pos = 0;
  while (Pos < Meta.size()) {
    size_t End = Meta.find('\n', Pos);
    if (End == std::string::npos)
      End = Meta.size();
    std::string Line = Meta.substr(Pos, End - Pos);
    size_t Eq = Line.find('=');
    if (Eq != std::string::npos)
      KV[Line.substr(0, Eq)] = Line.substr(Eq + 1);
    Pos = End + 1;
  }
  if (!KV.count("kernel") || !KV.count("flags") || KV["flags"].size() != 3 ||
      KV["kernel"] != R.kernelName || KV["signature"] != R.signature)
    return false;
  R.usesBarriers = KV["flags"][0] == '1';
  R.usesWarpOps = KV["flags"][1] == '1';
  R.usesGridSync = KV["flags"][2] == '1';
  R.staticSharedBytes = std::strtoull(KV["static_shared"].c_str(), nullptr, 10);
  R.readOnlyArgs.clear();
  for (char C : KV["readonly"])
    R.readOnlyArgs.push_back(C == '1');
  R.abi = types::flattenKernelParams(R.argTypes);
  return true;
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
