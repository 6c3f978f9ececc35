// The frontend half of the pipeline (see Compile.h): decode .. type
// inference and the cache key.  No LLVM here: the extension's cache-hit path
// runs this without loading the code generator.
#include "driver/Analysis.h"

#include "bytecode/Decoder.h"
#include "cfg/CFG.h"
#include "runtime/cpu/ThreadCtx.h" // kCpuAbiVersion (a constant only)
#include "runtime/jit/CacheKey.h"
#include "ssa/SSABuilder.h"
#include "stdlib/Registry.h"
#include "support/BuildId.h"
#include "support/Env.h"
#include "support/HostCuda.h"
#include "support/Sha256.h"
#include "transforms/ArrayEffects.h"
#include "transforms/ConstantRanges.h"
#include "transforms/HeapOwnership.h"
#include "transforms/InsertCasts.h"
#include "transforms/NonNegative.h"
#include "unroll/LiteralUnroll.h"

#include <llvm/Config/llvm-config.h> // LLVM_VERSION_STRING (a macro only)

namespace pcj::driver {

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
          "/" + std::to_string(C.kwOnlyArgCount) + "/" +
          std::to_string(C.flags));
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
  unroll::unrollLiteralLoops(Code, Args, R);
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
  transforms::checkConstantRanges(*T.fn);
  transforms::markNonNegative(*T.fn);
  transforms::assignHeapOwnership(*T.fn);
  ir::verify(*T.fn, true);
  if (Keep("typed"))
    (*Dumps)["typed"] = T.fn->print(true);
  Lap("transforms");
  return T;
}

void AnalysisDeleter::operator()(Analysis *A) const { delete A; }

// Foreign functions (cuda.declare_device): their link items join the
// result, and their ABI, signature, cooperative flag and linked bytes the
// cache key (as resolutions).  The GPU links the items with the PTX; the CPU
// executor builds the CUDA C ones for the host now (buildForeignForHost).
static void addForeignFunctions(const Session &S, const CompileOptions &O,
                                CompileResult &Out) {
  auto addLink = [&](const ir::LinkItem &L) {
    for (const ir::LinkItem &Have : Out.links)
      if (Have.kind == L.kind && Have.name == L.name && Have.data == L.data)
        return;
    Out.links.push_back(L);
  };
  for (const Session::ForeignUse &U : S.foreign) {
    std::string From;
    for (const ir::LinkItem &L : U.info.links)
      From += (From.empty() ? "" : ", ") + L.name;
    Sha256 H;
    for (const ir::LinkItem &L : U.info.links) {
      H.field(L.kind).field(L.name).field(L.data);
      addLink(L);
    }
    Out.resolutions.push_back(
        {"foreign function " + U.info.symbol +
             (U.info.cAbi ? " (C ABI) " : " (numba ABI) ") +
             (U.info.cooperative ? "(cooperative) " : "") +
             U.info.signature.str() + " linking " + From,
         ir::CTValue::constant(bc::ConstValue::ofStr(H.hexDigest()))});
  }
  if (O.links.empty() || (O.backend == Backend::CPU && S.foreign.empty()))
    return; // a CPU kernel calling no foreign function ignores its link=
  Sha256 H;
  std::string Names;
  for (const ir::LinkItem &L : O.links) {
    H.field(L.kind).field(L.name).field(L.data);
    Names += (Names.empty() ? "" : ", ") + L.name;
    addLink(L);
  }
  Out.resolutions.push_back(
      {"link= " + Names,
       ir::CTValue::constant(bc::ConstValue::ofStr(H.hexDigest()))});
}

// The CPU executor: the foreign functions' CUDA C (the kernel's link items,
// Out.links) compiled for the host and loaded (support/HostCuda.h); their
// addresses go to Out.hostSymbols for the host JIT.  Code of other kinds
// (PTX, cubin...) runs on the GPU only.  Errors point at the first call.
static void buildForeignForHost(const Session &S, CompileResult &Out) {
  if (S.foreign.empty())
    return;
  const Session::ForeignUse &First = S.foreign.front();
  std::vector<hostcu::Source> Sources;
  std::string Names;
  for (const ir::LinkItem &L : Out.links) {
    Names += (Names.empty() ? "" : ", ") + L.name;
    if (L.kind != "cu")
      throw CompileError(
          ErrorKind::Unsupported, First.at,
          "'" + First.info.symbol + "' is a foreign function linked with " +
              L.name + " (" + L.kind +
              " code), which runs on the GPU only: the CPU executor "
              "compiles CUDA C sources (.cu files, cuda.CUSource) for the "
              "host, nothing else",
          "run this kernel on a GPU, link the CUDA C source instead, or "
          "write the function in Python with @cuda.jit(device=True)");
    Sources.push_back({L.name, L.data});
  }
  if (Sources.empty())
    throw CompileError(ErrorKind::Unsupported, First.at,
                       "'" + First.info.symbol +
                           "' is a foreign function (cuda.declare_device) "
                           "with no code linked (link=)",
                       "give declare_device(..., link=[\"file.cu\"])");
  hostcu::Library Lib = hostcu::buildForHost(Sources, env::cacheDir());
  if (!Lib.handle)
    throw CompileError(
        ErrorKind::Backend, First.at,
        "cannot compile " + Names + " for the CPU executor (" +
            hostcu::hostCompiler() + "):\n" + Lib.error,
        "the CPU executor compiles foreign CUDA C with the host's C++ "
        "compiler: shared memory, barriers, warp intrinsics and inline PTX "
        "need a GPU");
  for (const Session::ForeignUse &U : S.foreign) {
    void *Addr = Lib.symbol(U.info.symbol);
    if (!Addr)
      throw CompileError(ErrorKind::Backend, U.at,
                         "'" + U.info.symbol + "' is not defined in " + Names +
                             " (compiled for the CPU executor)",
                         "define it there as extern \"C\" __device__");
    Out.hostSymbols.push_back({U.info.symbol, Addr});
  }
}

// One option's value in the key: unambiguous (a text carries its length).
static std::string keyValue(bool V) { return V ? "1" : "0"; }
static std::string keyValue(int V) { return std::to_string(V); }
static std::string keyValue(unsigned V) { return std::to_string(V); }
static std::string keyValue(uint8_t V) { return std::to_string(unsigned(V)); }
static std::string keyValue(char V) { return std::to_string(int(V)); }
static std::string keyValue(Backend V) {
  return V == Backend::CUDA ? "cuda" : "cpu";
}
static std::string keyValue(const std::string &V) {
  return std::to_string(V.size()) + ":" + V;
}

std::string optionsKeyText(const CompileOptions &O) {
  std::string S;
#define PCJ_COMPILE_OPTION(Type, Field, Default, Doc)                          \
  S += #Field "=" + keyValue(O.Field) + ";";
#include "driver/CompileOptions.def"
  return S;
}

AnalysisPtr analyzeKernel(const bc::RawCode &Raw,
                          const std::vector<types::TypeRef> &ArgTypes,
                          ir::Resolver &R, const CompileOptions &O) {
  if (O.backend == Backend::CPU && O.hostTarget.empty())
    throw CompileError(
        ErrorKind::Internal, SourceLoc{},
        "the CPU executor's target is not set (CompileOptions::hostTarget)");
  bool Sanitized = O.backend == Backend::CPU && O.sanitize != 0;
  bool IncludeLines = O.boundsCheck || O.zeroDivisionCheck ||
                      O.unboundLocalCheck || O.lineInfo || O.debugInfo ||
                      Sanitized;
  AnalysisPtr A(new Analysis(R, IncludeLines));
  CompileResult &Out = A->result;
  Out.argTypes = ArgTypes;
  Stopwatch Clock(A->timings);
  if (O.deviceFunction && O.backend != Backend::CUDA)
    throw CompileError(
        ErrorKind::Internal, SourceLoc{},
        "device functions are compiled on their own for the GPU only");
  typeinfer::Options TO;
  TO.isKernel = !O.deviceFunction;
  TO.declaredReturn = O.deviceFunction ? O.declaredReturn : nullptr;
  TO.callees = &A->session;
  A->kernel = frontend(Raw, ArgTypes, R, TO, &Out.dumps, O.dumps, &Clock);
  ir::Function *F = A->kernel.fn.get();
  Out.resolutions = A->kernel.resolutions;
  // Device functions by name, signature and code (never by address: the
  // list feeds the cache key, which must be the same in every process).
  for (Session::Callee *Sp : A->session.order) {
    std::string Name = Sp->typed.fn->qualname + Sp->argSignature;
    Out.resolutions.push_back(
        {"device function " + Name + " -> " + Sp->typed.fn->returnType->str(),
         ir::CTValue::constant(bc::ConstValue::ofStr(Sp->codeFingerprint))});
    for (auto &Res : Sp->typed.resolutions)
      Out.resolutions.push_back({Name + ": " + Res.what, Res.value});
  }
  addForeignFunctions(A->session, O, Out);
  if (O.backend == Backend::CPU)
    buildForeignForHost(A->session, Out);
  types::Signature Sig{O.deviceFunction ? F->returnType : types::noneTy(),
                       ArgTypes};
  Out.signature = Sig.str();
  Out.returnType = Sig.ret;
  Out.kernelName = O.deviceFunction && !O.deviceName.empty()
                       ? O.deviceName
                       : lower::mangleKernelName(F->qualname, Out.signature);
  Out.readOnlyArgs = transforms::readOnlyArrayParams(*F);
  std::map<std::string, const ir::Function *> Callees;
  for (Session::Callee *Sp : A->session.order)
    Callees.emplace(Sp->symbol, Sp->typed.fn.get());
  std::vector<const ir::Instr *> Writes = transforms::paramWrites(*F, Callees);
  for (size_t K = 0; K < F->params.size(); ++K)
    Out.argWrites.push_back({F->params[K].name, Writes[K] != nullptr,
                             Writes[K] ? Writes[K]->loc : SourceLoc{}});

  // The cache key.
  jit::KernelKeyParts Key;
  Key.compiler = compilerBuildId(frontendBuildId(), O.codegenBuildId);
  Key.options = optionsKeyText(O);
  Key.code = codeFingerprint(Raw, IncludeLines);
  Key.signature = Out.signature;
  for (const auto &Res : Out.resolutions)
    Key.resolutions.emplace_back(Res.what, Res.value.repr());
  A->key = jit::composeCacheKey(Key);
  return A;
}

const std::string &cacheKey(const Analysis &A) { return A.key; }
const CompileResult &analysisResult(const Analysis &A) { return A.result; }
void dropResolvers(Analysis &A) { A.session.dropResolvers(); }
const std::vector<StageTiming> &analysisTimings(const Analysis &A) {
  return A.timings;
}

rt::KernelMeta cacheMeta(const CompileResult &R) {
  rt::KernelMeta M;
  M.kernel = R.kernelName;
  M.signature = R.signature;
  M.usesBarriers = R.usesBarriers;
  M.usesWarpOps = R.usesWarpOps;
  M.usesGridSync = R.usesGridSync;
  M.staticSharedBytes = R.staticSharedBytes;
  M.readOnlyArgs = R.readOnlyArgs;
  return M;
}

namespace {

// No compile records more static shared memory than a GPU block can have
// statically; a larger figure comes from a damaged or forged entry.
constexpr uint64_t kMaxStaticSharedBytes = 48 * 1024;

} // namespace

bool restoreFromCache(const rt::KernelMeta &Meta, CompileResult &R) {
  // What the analysis knows (name, signature, read-only arrays) the same,
  // and no impossible value: anything else is a damaged or forged entry,
  // which the caller rebuilds.
  if (Meta.kernel != R.kernelName || Meta.signature != R.signature ||
      Meta.readOnlyArgs != R.readOnlyArgs ||
      Meta.staticSharedBytes > kMaxStaticSharedBytes)
    return false;
  R.usesBarriers = Meta.usesBarriers;
  R.usesWarpOps = Meta.usesWarpOps;
  R.usesGridSync = Meta.usesGridSync;
  R.staticSharedBytes = size_t(Meta.staticSharedBytes);
  R.abi = types::flattenKernelParams(R.argTypes);
  return true;
}

std::string compilerBuildId(const std::string &FrontendId,
                            const std::string &CodegenId) {
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
  return "pycuda_jit-" PCJ_VERSION "/frontend-" + FrontendId + "/codegen-" +
         (CodegenId.empty() ? std::string("none") : CodegenId) + "/cpu-abi-" +
         std::to_string(rt::cpu::kCpuAbiVersion) +
         "/llvm-" LLVM_VERSION_STRING "/registry-" + Hex;
}

const std::string &frontendBuildId() {
  static const std::string Id = [] {
    std::string S =
        buildIdOfLoadedImage(reinterpret_cast<const void *>(&frontendBuildId));
    return S.empty() ? std::string("none") : S;
  }();
  return Id;
}

} // namespace pcj::driver
