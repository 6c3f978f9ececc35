// Dispatcher and Launcher extension types (see Dispatcher.h).
#include "Dispatcher.h"

#include <structmember.h> // PyMemberDef (the limited API has it here)

#include "ArgPack.h"
#include "Backend.h"
#include "CodeReader.h"
#include "CompileReport.h"
#include "GpuTarget.h"
#include "JitOptions.h"
#include "KernelCache.h"
#include "Log.h"
#include "Nvtx.h"
#include "Resolver.h"
#include "Streams.h"

#include "CodegenPlugin.h"
#include "driver/Compile.h"
#include "codegen/HostBackend.h"
#include "runtime/CacheLock.h"
#include "runtime/Compile.h"
#include "runtime/Device.h"
#include "runtime/Launch.h"
#include "runtime/cpu/Executor.h"
#include "runtime/cpu/Sanitizer.h"
#include "support/Diagnostics.h"
#include "types/Overloads.h"
#include "types/Signature.h"
#include "runtime/Errors.h"
#include "runtime/Stream.h"
#include "lower/Lower.h"

#include <chrono>

#include <cstdio>
#include <sys/syscall.h>
#include <unistd.h>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>

namespace pcj::py {

using namespace types;

namespace {

// ---- specializations ---------------------------------------------------------------

// A kernel compiled for one GPU architecture (shared by the devices of that
// architecture).
struct ArchImage {
  int ccMajor = 0, ccMinor = 0;
  rt::LoadableImage image;
};

// The kernel loaded into one device's context; gen is the context's
// generation at load time (0: not loaded), so a context reset by
// cuda.close() is noticed and the module loaded again.
struct DeviceFn {
  uint64_t gen = 0;
  std::shared_ptr<rt::Module> module;
  rt::CUfunction fn = nullptr;
};

struct Spec {
  std::vector<TypeRef> key; // the argument types it was compiled for
  bool noAlias = false;     // read-only arrays marked noalias (ld.global.nc)
  std::string cache = "off"; // off / hit / miss (and why it is off)
  std::string cacheKey;
  // Launch-time aliasing check: read-only and other array arguments.
  std::vector<int> roArrays, otherArrays;
  // Arguments whose arrays the kernel may write (read-only ones are refused).
  std::vector<int> writtenArgs;
  std::shared_ptr<Spec> aliased; // the variant without noalias, if needed
  driver::CompileResult result;
  std::vector<size_t> offsets;
  size_t bufSize = 0;
  std::string loadPath;
  // GpuTargetChoice::describe() ("native sm_90"...), "cpu" on the executor
  std::string target;
  // CUDA: images per architecture, functions per device (by ordinal)
  std::vector<std::unique_ptr<ArchImage>> images;
  std::vector<DeviceFn> devices;
  // CPU
  rt::cpu::KernelInfo cpu;
  std::string pyName; // the kernel's __qualname__: cpu.name, for messages
  // inspect_asm(cc=...) / inspect_stage(..., cc=...): dumps per "sm_XY"
  std::map<std::string, std::map<std::string, std::string>> archDumps;
  // Device arrays the code holds by address (globals and closure cells):
  // kept alive as long as the code.
  std::vector<Ref> captured;
};

struct KeyHash {
  size_t operator()(const std::vector<TypeRef> &K) const {
    size_t H = 0;
    for (TypeRef T : K)
      H = H * 1000003u ^ std::hash<const void *>()(T);
    return H;
  }
};

struct DispatcherState {
  std::mutex mu; // guards the maps (compiles happen with the GIL held)
  JitOptions opts;
  bool explicitSigs = false;
  int nargs = -1;      // positional parameters; -1: not checked (defaults)
  std::string params;  // "name(a, b, c)" for messages
  std::vector<std::shared_ptr<Spec>> ordered; // in compile order
  std::unordered_map<std::vector<TypeRef>, std::shared_ptr<Spec>, KeyHash> byArgs;
  // The argument types of the last launch and their specialization (kept
  // alive by byArgs), checked before the map; launches hold the GIL, which
  // serializes them.
  std::vector<TypeRef> lastKey;
  Spec *lastSpec = nullptr;
};

struct DispatcherObject {
  PyObject_HEAD
  PyObject *pyfunc;
  PyObject *launchers; // dict: config tuple -> Launcher
  // The last configuration object looked up and its Launcher: a constant
  // tuple (kernel[1, 256] in a loop) is the same object on every call.
  PyObject *lastKey, *lastLauncher;
  DispatcherState *st;
};

// CPython's vectorcall protocol (PEP 590), which the limited API names only
// from 3.12 but every supported version (3.10+) implements with the same
// flag bit, member name and function type: a launch then gets its
// arguments as an array, with no argument tuple built per call.
using VectorcallFn = PyObject *(*)(PyObject *, PyObject *const *, size_t, PyObject *);
constexpr unsigned long kTpFlagsHaveVectorcall = 1UL << 11;
constexpr size_t kVectorcallArgumentsOffset = size_t(1) << (8 * sizeof(size_t) - 1);

struct LauncherObject {
  PyObject_HEAD
  VectorcallFn vectorcall; // at __vectorcalloffset__
  DispatcherObject *disp;
  rt::Dim3 grid, block;
  unsigned shared;
  rt::CUstream stream;
  PyObject *streamObj;   // the stream argument, kept alive (may be null)
  StreamObject *ours;    // == streamObj when it is one of our Streams
};

PyTypeObject *DispatcherType = nullptr;
PyTypeObject *LauncherType = nullptr;

// The whole pipeline: analysis here, code generation in the plugin.
driver::CompileResult compileWithPlugin(const bc::RawCode &Raw,
                                    const std::vector<TypeRef> &Args,
                                    ir::Resolver &R, const driver::CompileOptions &CO) {
  driver::AnalysisPtr A = driver::analyzeKernel(Raw, Args, R, CO);
  return codegenPlugin().generateKernel(std::move(A), CO);
}

// link=: the files read now (ffi.LinkList), so that the cache key sees edits.
std::vector<ir::LinkItem> readLinkItems(PyObject *Reader) {
  std::vector<ir::LinkItem> Out;
  if (!Reader)
    return Out;
  Ref Items = check(PyObject_CallNoArgs(Reader));
  for (Py_ssize_t K = 0; K < PyList_Size(Items.get()); ++K) {
    const char *Kind, *Name, *Data;
    Py_ssize_t Len;
    if (!PyArg_ParseTuple(PyList_GetItem(Items.get(), K), "ssy#", &Kind, &Name,
                          &Data, &Len))
      throw PythonError{};
    Out.push_back({Kind, Name, std::string(Data, size_t(Len))});
  }
  return Out;
}

driver::CompileOptions compileOptions(DispatcherObject *D) {
  driver::CompileOptions CO = toCompileOptions(
      D->st->opts, backend() == BackendKind::CUDA ? driver::Backend::CUDA
                                                  : driver::Backend::CPU);
  if (CO.backend == driver::Backend::CPU) // host code needs the plugin anyway
    CO.hostTarget = codegenPlugin().hostTarget();
  CO.codegenBuildId = codegenPluginBuildId();
  CO.dumps = envDumps();
  CO.dumps.insert({"typed", "llvm"});
  CO.links = readLinkItems(D->st->opts.link.get());
  return CO;
}

// nvJitLink / the driver's JIT keep the PTX's line table (-lineinfo) for
// kernels compiled with one (lineinfo=True, debug=True).
rt::LinkOptions linkOptions(const driver::CompileOptions &CO) {
  rt::LinkOptions LO;
  LO.LineInfo = CO.lineInfo;
  return LO;
}

// The image of S for the architecture of device Info: the first compile's,
// or a new compile for another architecture (multi-GPU machines).
const ArchImage &imageFor(DispatcherObject *D, Spec &S,
                          const rt::DeviceInfo &Info) {
  for (auto &I : S.images)
    if (I->ccMajor == Info.ComputeCapabilityMajor &&
        I->ccMinor == Info.ComputeCapabilityMinor)
      return *I;
  driver::CompileOptions CO = compileOptions(D);
  applyGpuTarget(CO, gpuTargetFor(Info.ComputeCapabilityMajor,
                                  Info.ComputeCapabilityMinor));
  std::string Ptx = S.result.ptx;
  std::optional<driver::CompileResult> Other;
  if (!S.images.empty()) { // another architecture: compile again
    bc::RawCode Raw = readCode(D->pyfunc);
    PyResolver R(D->pyfunc);
    Other = compileWithPlugin(Raw, S.key, R, CO);
    printDumps(*Other);
    Ptx = Other->ptx;
  }
  auto I = std::make_unique<ArchImage>();
  I->ccMajor = Info.ComputeCapabilityMajor; // linked for the device
  I->ccMinor = Info.ComputeCapabilityMinor;
  auto T0 = std::chrono::steady_clock::now();
  rt::LinkOptions LO = linkOptions(CO);
  for (const ir::LinkItem &L : Other ? Other->links : S.result.links)
    LO.Inputs.push_back({L.kind, L.name, L.data}); // foreign functions' code
  I->image = rt::ptxToLoadable(Ptx, I->ccMajor, I->ccMinor, LO);
  driver::StageTiming Link{"load.link", std::chrono::duration<double, std::milli>(
                                            std::chrono::steady_clock::now() - T0)
                                            .count()};
  if (Other) {
    Other->timings.push_back(Link);
    printTimings(*Other, "compile for another GPU");
  } else {
    S.result.timings.push_back(Link);
  }
  S.loadPath = rt::loadPathName(I->image.Path);
  S.images.push_back(std::move(I));
  return *S.images.back();
}

// Captured device arrays of ours must be alive on the launching device:
// their addresses are in the code (another device's memory, or memory of a
// context that cuda.close() destroyed, would be an illegal address).
void checkCapturedArrays(const Spec &S, int Device) {
  for (const Ref &O : S.captured) {
    if (!isDeviceArray(O.get()))
      continue; // another library's array: its device is not known here
    auto *A = reinterpret_cast<const DeviceArrayObject *>(O.get());
    std::string What = "the global device array captured by kernel '" +
                       S.result.kernelName + "'";
    requireAlive(A->device, A->gen, What.c_str());
    if (A->device < 0 || A->device == Device)
      continue;
    std::string Msg = What + " is on device " + std::to_string(A->device) +
                      ", but the kernel is launched on device " +
                      std::to_string(Device) + "; launch it under `with cuda.gpus[" +
                      std::to_string(A->device) + "]:`";
    Ref Cls(errorsModule() ? PyObject_GetAttrString(errorsModule(), "DeviceMismatchError")
                           : nullptr);
    PyErr_Clear();
    PyErr_SetString(Cls ? Cls.get() : PyExc_ValueError, Msg.c_str());
    throw PythonError{};
  }
}

// Loads S into Ctx (the current context): after the first compile, on a
// device not seen before, and after cuda.close() reset the context.
DeviceFn &loadForDevice(DispatcherObject *D, Spec &S, rt::Context &Ctx) {
  std::lock_guard<std::mutex> L(D->st->mu);
  if (S.devices.size() <= size_t(Ctx.device()))
    S.devices.resize(Ctx.device() + 1);
  DeviceFn &F = S.devices[Ctx.device()];
  if (F.gen == Ctx.generation())
    return F;
  checkCapturedArrays(S, Ctx.device());
  const ArchImage &I = imageFor(D, S, Ctx.info());
  DeviceFn New;
  auto T0 = std::chrono::steady_clock::now();
  New.module = rt::loadModule(I.image, linkOptions(compileOptions(D)));
  New.fn = New.module->function(S.result.kernelName);
  if (int Carveout = D->st->opts.carveout; Carveout != JitOptions::kNoCarveout)
    rt::setFunctionAttribute(New.fn, rt::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                             Carveout);
  S.result.timings.push_back(
      {"load.module", std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - T0)
                          .count()});
  New.gen = Ctx.generation();
  F = std::move(New);
  return F;
}

// The CPU executor's kernels run on every virtual device from the same
// host code; S.devices records where they ran (kernel.stats["devices"]).
void noteCpuDevice(DispatcherObject *D, Spec &S, int Device) {
  std::lock_guard<std::mutex> L(D->st->mu);
  if (S.devices.size() <= size_t(Device))
    S.devices.resize(Device + 1);
  S.devices[Device].gen = 1;
}

// Which array arguments a noalias specialization must check at launch.
void planAliasCheck(Spec &S) {
  if (!S.noAlias)
    return;
  const auto &RO = S.result.readOnlyArgs;
  for (size_t K = 0; K < S.key.size(); ++K) {
    TypeRef T = S.key[K];
    bool IsRO = K < RO.size() && RO[K];
    if (T->isArray())
      (IsRO ? S.roArrays : S.otherArrays).push_back(int(K));
    else if (T->isTuple())
      S.otherArrays.push_back(int(K)); // arrays inside tuples count as written
  }
  if (S.otherArrays.empty())
    S.roArrays.clear(); // nothing written: no check needed
}

// The disk cache lookup; true (and S filled) on a hit.
bool loadFromCache(Spec &S, const driver::Analysis &A, rt::Context *Ctx,
                   int CcMajor, int CcMinor) {
  std::optional<CachedKernel> K =
      loadCachedKernel(S.cacheKey, A, Ctx != nullptr, CcMajor, CcMinor, S.cache);
  if (!K)
    return false;
  S.result = std::move(K->result);
  if (Ctx) {
    auto I = std::make_unique<ArchImage>();
    I->ccMajor = CcMajor;
    I->ccMinor = CcMinor;
    I->image = std::move(K->image);
    S.images.push_back(std::move(I));
  }
  return true;
}

// Loads a cached image into Ctx; false when the driver refuses it (a
// damaged or forged cubin), which the caller then rebuilds.  Errors that a
// rebuild cannot help (out of memory, a dead context) propagate.
bool loadCachedImage(DispatcherObject *D, Spec &S, rt::Context &Ctx) {
  try {
    loadForDevice(D, S, Ctx);
    return true;
  } catch (const rt::DriverError &E) {
    if (E.isOutOfMemory() || E.isSticky())
      throw;
    S.devices.clear();
    return false;
  }
}

void storeInCache(Spec &S, bool Cuda) {
  const rt::LoadableImage *Image = S.images.empty() ? nullptr : &S.images.front()->image;
  std::string Why = storeCachedKernel(S.cacheKey, S.result, Cuda, Image);
  if (!Why.empty())
    S.cache = "miss (not stored: " + Why + ")";
}

// The stage dumps of S compiled again: after a disk-cache hit (which loads
// machine code only), or for another target (Cc: PTX of a CPU-executor
// kernel, or for another GPU).  The text is what a fresh compile gives: the
// analysis must reproduce S's cache key, else the kernel's code or globals
// changed since S was compiled and the text would describe other code.
std::map<std::string, std::string> recompileDumps(DispatcherObject *D, const Spec &S,
                                                  std::optional<std::pair<int, int>> Cc,
                                                  const char *How) {
  driver::CompileOptions CO = compileOptions(D);
  CO.dumps = {"all"};
  CO.noAliasReadOnly = S.noAlias;
  if (!S.images.empty())
    applyGpuTarget(CO, gpuTargetFor(S.images.front()->ccMajor,
                                    S.images.front()->ccMinor));
  bc::RawCode Raw = readCode(D->pyfunc);
  PyResolver Same(D->pyfunc);
  driver::AnalysisPtr A = driver::analyzeKernel(Raw, S.key, Same, CO);
  if (driver::cacheKey(*A) != S.cacheKey) {
    PyErr_Format(PyExc_RuntimeError,
                 "cannot show the stages of %s %s: its code, globals or device "
                 "functions changed since it was compiled (inspect a kernel "
                 "before changing what it uses)",
                 S.result.kernelName.c_str(), S.result.signature.c_str());
    throw PythonError{};
  }
  if (Cc) { // as a compile for that GPU would be (checks default per backend)
    CO.backend = driver::Backend::CUDA;
    CO.boundsCheck = boundsChecked(D->st->opts, CO.backend);
    CO.hostTarget.clear();
    applyGpuTarget(CO, gpuTargetFor(Cc->first, Cc->second));
    PyResolver Other(D->pyfunc);
    A = driver::analyzeKernel(Raw, S.key, Other, CO);
  }
  driver::CompileResult Res = codegenPlugin().generateKernel(std::move(A), CO);
  printTimings(Res, How);
  return std::move(Res.dumps);
}

// cache=True with a captured device array: the code holds an address valid
// in this process only, so the kernel cannot go to the disk cache.
[[noreturn]] void refuseCachingCaptures(PyObject *Func, PyObject *Array) {
  std::string Msg = "cannot cache kernel '" + str(getAttr(Func, "__qualname__").get()) +
                    "' (cache=True): it captures global device arrays (here a " +
                    typeName(Array) + "), whose address is part of the code and "
                    "valid only in this process; drop cache=True or pass the "
                    "array as an argument";
  Ref Code = getAttr(Func, "__code__");
  Ref File = getAttr(Code.get(), "co_filename"), Line = getAttr(Code.get(), "co_firstlineno");
  Ref Cls(errorsModule() ? PyObject_GetAttrString(errorsModule(), "UncacheableKernelError")
                         : nullptr);
  PyErr_Clear();
  if (!Cls) {
    PyErr_SetString(PyExc_RuntimeError, Msg.c_str());
    throw PythonError{};
  }
  Ref Err(PyObject_CallFunction(Cls.get(), "sOO", Msg.c_str(), File.get(), Line.get()));
  if (Err)
    PyErr_SetObject(Cls.get(), Err.get());
  throw PythonError{};
}

std::shared_ptr<Spec> compileSpec(DispatcherObject *D, const std::vector<TypeRef> &Args,
                                  bool NoAlias = true) {
  warnOnFallback();
  auto Start = std::chrono::steady_clock::now(); // for logCompile
  NvtxRange Range("compile", D->pyfunc);
  driver::CompileOptions CO = compileOptions(D);
  rt::Context *Ctx = nullptr;
  int DevMajor = 0, DevMinor = 0; // the device the image is linked for
  std::string Target = "cpu";
  if (CO.backend == driver::Backend::CUDA) {
    Ctx = &rt::currentContext();
    DevMajor = Ctx->info().ComputeCapabilityMajor;
    DevMinor = Ctx->info().ComputeCapabilityMinor;
    GpuTargetChoice T = gpuTargetFor(DevMajor, DevMinor);
    applyGpuTarget(CO, T);
    Target = T.describe();
    CO.noAliasReadOnly = NoAlias; // checked at every launch (planAliasCheck)
  } else if (CO.sanitize) {
    // The sanitizer skips race checks on read-only arrays, which needs the
    // same launch-time overlap check.
    CO.noAliasReadOnly = NoAlias;
  }
  bc::RawCode Raw = readCode(D->pyfunc);
  PyResolver R(D->pyfunc);
  auto S = std::make_shared<Spec>();
  S->key = Args;
  S->target = Target;
  S->noAlias = CO.noAliasReadOnly;
  driver::AnalysisPtr A = driver::analyzeKernel(Raw, Args, R, CO);
  S->cacheKey = driver::cacheKey(*A);
  S->captured = R.captured();
  if (!S->captured.empty() && D->st->opts.cache)
    refuseCachingCaptures(D->pyfunc, S->captured.front().get());
  bool Hit = D->st->opts.cache && loadFromCache(*S, *A, Ctx, DevMajor, DevMinor);
  if (Hit && Ctx && !loadCachedImage(D, *S, *Ctx)) {
    Hit = false; // the cached image does not load: compile it instead
    S->images.clear();
    S->cache = "miss";
  }
  // Compile once per machine: another process may be compiling this entry.
  std::unique_ptr<rt::CacheLock> Lock;
  if (D->st->opts.cache && !Hit && S->cache == "miss") {
    std::string Note;
    if (awaitCacheEntry(S->cacheKey, Lock, Note)) {
      Hit = loadFromCache(*S, *A, Ctx, DevMajor, DevMinor) &&
            (!Ctx || loadCachedImage(D, *S, *Ctx));
      if (!Hit)
        S->images.clear();
    }
    S->cache = (Hit ? "hit" : "miss") + Note;
  }
  if (!Hit) {
    S->result = codegenPlugin().generateKernel(std::move(A), CO);
    printDumps(S->result);
  } else if (!envDumps().empty()) { // the stages asked for, compiled again
    for (auto &[Stage, Text] : recompileDumps(D, *S, std::nullopt, "dumps after a cache hit"))
      S->result.dumps.emplace(Stage, std::move(Text));
    printDumps(S->result);
  }
  S->bufSize = layoutParamBuffer(S->result.abi, S->offsets);
  planAliasCheck(*S);
  for (size_t K = 0; K < S->result.argWrites.size(); ++K)
    if (S->result.argWrites[K].written)
      S->writtenArgs.push_back(int(K));
  if (Ctx) {
    loadForDevice(D, *S, *Ctx);
  } else {
    S->loadPath = Hit ? "host-jit (cached object)" : "host-jit";
    S->cpu.entry = reinterpret_cast<rt::cpu::KernelEntry>(S->result.hostEntry);
    // Messages and sanitizer findings name the Python function, as raise
    // and assert sites do, not the specialization's symbol.
    Ref Q = getAttrOpt(D->pyfunc, "__qualname__");
    S->pyName = Q && PyUnicode_Check(Q.get()) ? utf8(Q.get()) : S->result.kernelName;
    S->cpu.name = S->pyName.c_str();
    S->cpu.usesBarriers = S->result.usesBarriers;
    S->cpu.usesWarpOps = S->result.usesWarpOps;
    S->cpu.staticSharedBytes = S->result.staticSharedBytes;
    S->cpu.sanitize = D->st->opts.sanitize;
  }
  if (D->st->opts.cache && !Hit && S->cache.rfind("miss", 0) == 0)
    storeInCache(*S, Ctx != nullptr);
  printTimings(S->result, Hit ? "cache hit" : "compile");
  logCompile(D->pyfunc, S->result.signature,
             std::chrono::duration<double, std::milli>(
                 std::chrono::steady_clock::now() - Start).count(),
             S->loadPath, S->cache);
  return S;
}

// The bytes [lo, hi) an array argument spans (empty when it has no elements,
// and for a host array the launch copies into a device buffer of its own,
// which overlaps nothing: its `ptr` is not set yet).
std::pair<uint64_t, uint64_t> spanOf(const ArgValue &V) {
  if (V.hostPtr && !V.ptr)
    return {0, 0};
  int64_t Lo = 0, Hi = V.type->dtype()->byteSize();
  for (int K = 0; K < V.ndim; ++K) {
    if (V.shape[K] == 0)
      return {0, 0};
    int64_t Ext = (V.shape[K] - 1) * V.strides[K];
    (Ext < 0 ? Lo : Hi) += Ext;
  }
  return {V.ptr + Lo, V.ptr + Hi};
}

// Whether F holds for an array in V (tuples searched too).
template <typename Fn> bool anyArray(const ArgValue &V, Fn &&F) {
  if (V.type->isArray() && F(V))
    return true;
  for (const ArgValue &E : V.elems)
    if (anyArray(E, F))
      return true;
  return false;
}

// A kernel may not write a read-only array (numba types such arrays
// read-only and refuses the write when compiling): the launch stops before
// any copy, naming the parameter and the kernel's first write to it.
void refuseReadOnlyWrites(const Spec &S, const std::vector<ArgValue> &Vals) {
  for (int K : S.writtenArgs) {
    if (!anyArray(Vals[K], [](const ArgValue &V) { return V.readonly; }))
      continue;
    const driver::ArgWrite &W = S.result.argWrites[K];
    throw CompileError(ErrorKind::Typing, W.at,
                       "kernel argument " + std::to_string(K + 1) + " ('" + W.param +
                           "') is a read-only array, but the kernel writes to it",
                       "pass a writable array (a copy: arr.copy())");
  }
}

// A noalias specialization may only run when no read-only array overlaps an
// array the kernel may write; otherwise its variant without noalias runs.
Spec *aliasSafe(DispatcherObject *D, Spec *S, const std::vector<ArgValue> &Vals) {
  if (S->roArrays.empty())
    return S;
  for (int K : S->roArrays) {
    auto [Lo, Hi] = spanOf(Vals[K]);
    auto Overlaps = [&](const ArgValue &O) {
      auto [OLo, OHi] = spanOf(O);
      return Lo < OHi && OLo < Hi;
    };
    for (int J : S->otherArrays) {
      if (!anyArray(Vals[J], Overlaps))
        continue;
      std::unique_lock<std::mutex> L(D->st->mu);
      if (!S->aliased) {
        L.unlock(); // not held while compiling; a failed compile leaves it unlocked
        std::shared_ptr<Spec> Plain = compileSpec(D, S->key, /*NoAlias=*/false);
        L.lock();
        if (!S->aliased)
          S->aliased = std::move(Plain);
      }
      return S->aliased.get();
    }
  }
  return S;
}

Spec *findOrCompile(DispatcherObject *D, std::vector<ArgValue> &Vals);

// Finds or compiles the specialization for these arguments.
Spec *specialize(DispatcherObject *D, std::vector<ArgValue> &Vals) {
  DispatcherState *St = D->st;
  if (St->lastSpec && St->lastKey.size() == Vals.size()) {
    size_t K = 0;
    while (K < Vals.size() && Vals[K].type == St->lastKey[K])
      ++K;
    if (K == Vals.size())
      return St->lastSpec;
  }
  Spec *S = findOrCompile(D, Vals);
  St->lastKey.clear();
  for (const ArgValue &V : Vals)
    St->lastKey.push_back(V.type);
  St->lastSpec = S;
  return S;
}

Spec *findOrCompile(DispatcherObject *D, std::vector<ArgValue> &Vals) {
  std::vector<TypeRef> Key;
  Key.reserve(Vals.size());
  for (const ArgValue &V : Vals)
    Key.push_back(V.type);
  DispatcherState *St = D->st;
  {
    std::lock_guard<std::mutex> L(St->mu);
    auto It = St->byArgs.find(Key);
    if (It != St->byArgs.end())
      return It->second.get();
    if (St->explicitSigs) {
      // numba's choice among explicit signatures (types/Overloads.h).
      std::vector<std::vector<TypeRef>> Params;
      for (auto &S : St->ordered)
        Params.push_back(S->result.argTypes);
      types::OverloadChoice C = types::chooseOverload(Key, Params);
      if (C.best.size() == 1) {
        std::shared_ptr<Spec> S = St->ordered[C.best[0]];
        St->byArgs.emplace(Key, S);
        return S.get();
      }
      std::string Args;
      for (size_t K = 0; K < Key.size(); ++K)
        Args += (K ? ", " : "") + Key[K]->str();
      std::string Msg = "kernel " + St->params;
      if (C.best.empty()) {
        Msg += ": no matching signature for argument types (" + Args +
               "); the kernel was compiled for:";
        for (auto &S : St->ordered)
          Msg += "\n  " + S->result.signature;
      } else {
        Msg += ": ambiguous call: argument types (" + Args +
               ") convert equally well to the signatures:";
        for (size_t K : C.best)
          Msg += "\n  " + St->ordered[K]->result.signature;
      }
      PyErr_SetString(PyExc_TypeError, Msg.c_str());
      throw PythonError{};
    }
  }
  std::shared_ptr<Spec> S = compileSpec(D, Key);
  std::lock_guard<std::mutex> L(St->mu);
  auto [It, New] = St->byArgs.emplace(Key, S);
  if (New)
    St->ordered.push_back(S);
  return It->second.get();
}

// ---- Dispatcher ----------------------------------------------------------------------

// The kernel's positional parameters, for argument-count checks and
// messages ("saxpy(a, x, y, out)").
void describeParams(PyObject *Func, DispatcherState &St) {
  Ref Code = getAttrOpt(Func, "__code__");
  Ref Name = getAttrOpt(Func, "__name__");
  St.params = Name ? str(Name.get()) : "kernel";
  if (!Code)
    return;
  Ref Count = getAttrOpt(Code.get(), "co_argcount");
  Ref Names = getAttrOpt(Code.get(), "co_varnames");
  Ref Defaults = getAttrOpt(Func, "__defaults__");
  if (!Count || !Names || !PyTuple_Check(Names.get()))
    return;
  long N = PyLong_AsLong(Count.get());
  if (N < 0) {
    PyErr_Clear();
    return;
  }
  St.params += "(";
  for (long K = 0; K < N && K < PyTuple_Size(Names.get()); ++K)
    St.params += (K ? ", " : "") + str(PyTuple_GetItem(Names.get(), K));
  St.params += ")";
  // *args, **kwargs and keyword-only parameters: the compiler rejects them
  // (naming the def line), so no count check here.
  Ref Flags = getAttrOpt(Code.get(), "co_flags");
  Ref KwOnly = getAttrOpt(Code.get(), "co_kwonlyargcount");
  bool Unusual = (Flags && (PyLong_AsLong(Flags.get()) & 0x0c)) ||
                 (KwOnly && PyLong_AsLong(KwOnly.get()) > 0);
  PyErr_Clear();
  if ((!Defaults || Defaults.get() == Py_None) && !Unusual)
    St.nargs = int(N);
}

// Appends the kernel's parameters and compiled signatures to the TypeError
// being raised for an argument.
void addSignatures(DispatcherState *St) {
  if (!PyErr_ExceptionMatches(PyExc_TypeError))
    return;
  PyObject *Type, *Value, *Trace;
  PyErr_Fetch(&Type, &Value, &Trace);
  std::string Msg = Value ? str(Value) : "";
  Msg += " (kernel " + St->params;
  {
    std::lock_guard<std::mutex> L(St->mu);
    if (St->ordered.empty())
      Msg += ", not compiled yet";
    else {
      Msg += "; compiled signatures:";
      for (auto &S : St->ordered)
        Msg += "\n  " + S->result.signature;
    }
  }
  Msg += ")";
  Py_XDECREF(Value);
  Py_XDECREF(Trace);
  PyErr_SetString(Type, Msg.c_str());
  Py_XDECREF(Type);
}

// TypeError for a launch with the wrong number of arguments.
[[noreturn]] void argCountError(DispatcherState *St, Py_ssize_t Given) {
  std::string Msg = "kernel " + St->params + " takes " +
                    std::to_string(St->nargs) + " argument" +
                    (St->nargs == 1 ? "" : "s") + " but " +
                    std::to_string(Given) + (Given == 1 ? " was" : " were") +
                    " given";
  std::lock_guard<std::mutex> L(St->mu);
  if (!St->ordered.empty()) {
    Msg += "; compiled signatures:";
    for (auto &S : St->ordered)
      Msg += "\n  " + S->result.signature;
  }
  PyErr_SetString(PyExc_TypeError, Msg.c_str());
  throw PythonError{};
}

PyObject *dispatcherNew(PyTypeObject *T, PyObject *Args, PyObject *Kw) {
  return guard([&]() -> PyObject * {
    PyObject *Func, *Options = nullptr;
    static const char *Names[] = {"func", "options", nullptr};
    if (!PyArg_ParseTupleAndKeywords(Args, Kw, "O|O", const_cast<char **>(Names),
                                     &Func, &Options))
      return nullptr;
    if (!PyCallable_Check(Func) || !getAttrOpt(Func, "__code__")) {
      PyErr_SetString(PyExc_TypeError, "@cuda.jit needs a Python function");
      return nullptr;
    }
    JitOptions O = parseJitOptions(Options && Options != Py_None ? Options : nullptr);
    auto *Alloc = reinterpret_cast<PyObject *(*)(PyTypeObject *, Py_ssize_t)>(
        PyType_GetSlot(T, Py_tp_alloc));
    PyObject *Self = Alloc(T, 0);
    if (!Self)
      return nullptr;
    auto *D = reinterpret_cast<DispatcherObject *>(Self);
    Py_INCREF(Func);
    D->pyfunc = Func;
    D->launchers = PyDict_New();
    D->st = new DispatcherState();
    D->st->opts = O;
    describeParams(Func, *D->st);
    return Self;
  });
}

void dispatcherDealloc(PyObject *O) {
  auto *D = reinterpret_cast<DispatcherObject *>(O);
  PyTypeObject *T = Py_TYPE(O);
  PyObject_GC_UnTrack(O);
  Py_CLEAR(D->pyfunc);
  Py_CLEAR(D->launchers);
  Py_CLEAR(D->lastKey);
  Py_CLEAR(D->lastLauncher);
  delete D->st;
  D->st = nullptr;
  auto *Free = reinterpret_cast<freefunc>(PyType_GetSlot(T, Py_tp_free));
  Free(O);
  Py_DECREF(T);
}

int dispatcherTraverse(PyObject *O, visitproc visit, void *arg) {
  auto *D = reinterpret_cast<DispatcherObject *>(O);
  Py_VISIT(D->pyfunc);
  Py_VISIT(D->launchers);
  Py_VISIT(D->lastKey);
  Py_VISIT(D->lastLauncher);
  Py_VISIT(Py_TYPE(O));
  return 0;
}

int dispatcherClear(PyObject *O) {
  auto *D = reinterpret_cast<DispatcherObject *>(O);
  Py_CLEAR(D->launchers);
  Py_CLEAR(D->lastKey);
  Py_CLEAR(D->lastLauncher);
  return 0;
}

// compile(signature: str) -> the signature text of the specialization.
PyObject *dispatcherCompile(PyObject *Self, PyObject *Arg) {
  return guard([&]() -> PyObject * {
    auto *D = reinterpret_cast<DispatcherObject *>(Self);
    Signature Sig = parseSignature(utf8(Arg));
    if (Sig.ret && Sig.ret != voidTy() && Sig.ret != noneTy()) {
      PyErr_SetString(PyExc_TypeError, "kernels must return void");
      return nullptr;
    }
    Sig.args = types::kernelArgTypes(Sig.args);
    std::shared_ptr<Spec> S = compileSpec(D, Sig.args);
    std::lock_guard<std::mutex> L(D->st->mu);
    D->st->explicitSigs = true;
    auto [It, New] = D->st->byArgs.emplace(Sig.args, S);
    if (New) // a repeated signature is one candidate, not a tie
      D->st->ordered.push_back(S);
    return PyUnicode_FromString(It->second->result.signature.c_str());
  });
}

Spec *specByIndex(DispatcherObject *D, PyObject *Which) {
  std::lock_guard<std::mutex> L(D->st->mu);
  if (D->st->ordered.empty()) {
    PyErr_SetString(PyExc_RuntimeError,
                    "the kernel has not been compiled yet: call it or give a signature");
    throw PythonError{};
  }
  if (!Which || Which == Py_None)
    return D->st->ordered.back().get();
  std::string W = str(Which);
  for (auto &S : D->st->ordered)
    if (S->result.signature == W)
      return S.get();
  if (PyUnicode_Check(Which)) { // signature text, as compile() reads it
    std::vector<TypeRef> Args;
    try {
      Args = types::kernelArgTypes(parseSignature(W).args);
    } catch (const CompileError &) {
    }
    for (auto &S : D->st->ordered)
      if (!Args.empty() && S->key == Args)
        return S.get();
  }
  long K = PyLong_Check(Which) ? PyLong_AsLong(Which) : -1;
  if (K >= 0 && size_t(K) < D->st->ordered.size())
    return D->st->ordered[K].get();
  PyErr_Clear();
  PyErr_Format(PyExc_KeyError, "no specialization %R", Which);
  throw PythonError{};
}

// _dump(stage, which=None, cc=None) -> str: a stage's text, compiled again
// when it was not kept (a disk-cache hit, a stage PYCUDA_JIT_DUMP did not
// ask for) or for another target: cc=(major, minor), and "ptx" on the CPU
// executor (for sm_90 unless cc says otherwise).
PyObject *dispatcherDump(PyObject *Self, PyObject *Args) {
  return guard([&]() -> PyObject * {
    const char *Stage;
    PyObject *Which = nullptr, *CcObj = nullptr;
    if (!PyArg_ParseTuple(Args, "s|OO", &Stage, &Which, &CcObj))
      return nullptr;
    checkStageName(Stage);
    auto *D = reinterpret_cast<DispatcherObject *>(Self);
    Spec *S = specByIndex(D, Which);
    std::optional<std::pair<int, int>> Cc;
    if (CcObj && CcObj != Py_None) {
      int Major = 0, Minor = 0;
      if (!PyTuple_Check(CcObj) || !PyArg_ParseTuple(CcObj, "ii", &Major, &Minor) ||
          Major < 1 || Minor < 0) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "cc must be a (major, minor) tuple such as (9, 0)");
        return nullptr;
      }
      Cc = {Major, Minor};
    }
    if (!Cc && std::string(Stage) == "ptx" && backend() != BackendKind::CUDA)
      Cc = {9, 0}; // the CPU executor's kernels: PTX for a default GPU
    if (Cc && !S->images.empty() && S->images.front()->ccMajor == Cc->first &&
        S->images.front()->ccMinor == Cc->second &&
        gpuTargetFor(Cc->first, Cc->second).describe() == S->target)
      Cc.reset(); // the GPU it was compiled for, with the same target choice
    std::map<std::string, std::string> *Dumps = &S->result.dumps;
    if (Cc) {
      std::string Arch = gpuTargetFor(Cc->first, Cc->second).keyText();
      bool Known;
      {
        std::lock_guard<std::mutex> L(D->st->mu);
        Known = S->archDumps.count(Arch) != 0;
      }
      if (!Known) { // compiled outside the lock; the first insert wins
        auto Fresh = recompileDumps(D, *S, Cc, "inspect");
        std::lock_guard<std::mutex> L(D->st->mu);
        S->archDumps.emplace(Arch, std::move(Fresh));
      }
      std::lock_guard<std::mutex> L(D->st->mu); // map nodes stay where they are
      Dumps = &S->archDumps[Arch];
    } else if (!Dumps->count(Stage)) {
      auto Fresh = recompileDumps(D, *S, std::nullopt, "inspect");
      std::lock_guard<std::mutex> L(D->st->mu);
      for (auto &[Name, Text] : Fresh)
        Dumps->emplace(Name, std::move(Text));
    }
    auto It = Dumps->find(Stage);
    if (It == Dumps->end()) {
      PyErr_Format(PyExc_KeyError, "the stage '%s' does not exist for this target", Stage);
      return nullptr;
    }
    return PyUnicode_FromStringAndSize(It->second.data(), Py_ssize_t(It->second.size()));
  });
}

// _info(which=None) -> dict with name, signature, load path, timings, abi size
PyObject *dispatcherInfo(PyObject *Self, PyObject *Args) {
  return guard([&]() -> PyObject * {
    PyObject *Which = nullptr;
    if (!PyArg_ParseTuple(Args, "|O", &Which))
      return nullptr;
    Spec *S = specByIndex(reinterpret_cast<DispatcherObject *>(Self), Which);
    Ref Timings(PyDict_New());
    double Total = 0;
    for (const auto &T : S->result.timings) {
      Ref V(PyFloat_FromDouble(T.ms));
      PyDict_SetItemString(Timings.get(), T.stage.c_str(), V.get());
      if (T.stage.find('.') == std::string::npos)
        Total += T.ms;
    }
    Ref Resolutions(PyList_New(0));
    for (const auto &Res : S->result.resolutions) {
      Ref Item(PyUnicode_FromString((Res.what + " -> " + Res.value.repr()).c_str()));
      PyList_Append(Resolutions.get(), Item.get());
    }
    Ref ReadOnly(PyList_New(0));
    for (size_t K = 0; K < S->result.readOnlyArgs.size(); ++K)
      if (S->result.readOnlyArgs[K]) {
        Ref Idx(PyLong_FromSize_t(K));
        PyList_Append(ReadOnly.get(), Idx.get());
      }
    // The devices the kernel is loaded on (CUDA) or ran on (CPU executor).
    Ref Devices(PyList_New(0));
    {
      std::lock_guard<std::mutex> L(reinterpret_cast<DispatcherObject *>(Self)->st->mu);
      for (size_t K = 0; K < S->devices.size(); ++K)
        if (S->devices[K].gen) {
          Ref Idx(PyLong_FromSize_t(K));
          PyList_Append(Devices.get(), Idx.get());
        }
    }
    return Py_BuildValue(
        "{s:s,s:s,s:s,s:s,s:O,s:d,s:n,s:O,s:O,s:O,s:n,s:s,s:s,s:O,s:O,s:O,s:s}", "name",
        S->result.kernelName.c_str(), "signature", S->result.signature.c_str(),
        "load_path", S->loadPath.c_str(), "backend",
        S->loadPath.rfind("host-jit", 0) == 0 ? "cpu" : "cuda", "timings_ms",
        Timings.get(), "compile_ms", Total, "param_bytes", Py_ssize_t(S->bufSize),
        "resolutions", Resolutions.get(), "uses_barriers",
        S->result.usesBarriers ? Py_True : Py_False, "uses_grid_sync",
        S->result.usesGridSync ? Py_True : Py_False, "static_shared_bytes",
        Py_ssize_t(S->result.staticSharedBytes), "cache", S->cache.c_str(),
        "cache_key", S->cacheKey.c_str(), "readonly_args", ReadOnly.get(),
        "noalias", S->noAlias ? Py_True : Py_False, "devices", Devices.get(),
        "target", S->target.c_str());
  });
}

// _function_attribute(which, attr) -> int: cuFuncGetAttribute (attr a
// CU_FUNC_ATTRIBUTE_* number) of the specialization loaded on the current
// device; None on the CPU executor (kernel.get_regs_per_thread & co.).
PyObject *dispatcherFunctionAttribute(PyObject *Self, PyObject *Args) {
  return guard([&]() -> PyObject * {
    PyObject *Which;
    int Attr;
    if (!PyArg_ParseTuple(Args, "Oi", &Which, &Attr))
      return nullptr;
    auto *D = reinterpret_cast<DispatcherObject *>(Self);
    Spec *S = specByIndex(D, Which);
    if (backend() != BackendKind::CUDA)
      Py_RETURN_NONE;
    rt::CUfunction Fn = loadForDevice(D, *S, rt::currentContext()).fn;
    return PyLong_FromLong(rt::functionAttribute(Fn, rt::CUfunction_attribute(Attr)));
  });
}

// _max_cooperative_blocks(which, threads, shared) -> int: the largest grid
// a cooperative launch accepts on the current device; None on the CPU
// executor (no co-residency limit).
PyObject *dispatcherMaxCooperativeBlocks(PyObject *Self, PyObject *Args) {
  return guard([&]() -> PyObject * {
    PyObject *Which;
    unsigned Threads;
    Py_ssize_t Shared;
    if (!PyArg_ParseTuple(Args, "OIn", &Which, &Threads, &Shared))
      return nullptr;
    auto *D = reinterpret_cast<DispatcherObject *>(Self);
    Spec *S = specByIndex(D, Which);
    if (backend() != BackendKind::CUDA)
      Py_RETURN_NONE;
    rt::CUfunction Fn = loadForDevice(D, *S, rt::currentContext()).fn;
    return PyLong_FromLongLong(rt::maxCooperativeBlocks(Fn, Threads, size_t(Shared)));
  });
}

PyObject *dispatcherSignatures(PyObject *Self, void *) {
  auto *D = reinterpret_cast<DispatcherObject *>(Self);
  std::lock_guard<std::mutex> L(D->st->mu);
  PyObject *List = PyList_New(0);
  for (auto &S : D->st->ordered) {
    Ref Item(PyUnicode_FromString(S->result.signature.c_str()));
    PyList_Append(List, Item.get());
  }
  return List;
}

PyObject *dispatcherPyFunc(PyObject *Self, void *) {
  PyObject *F = reinterpret_cast<DispatcherObject *>(Self)->pyfunc;
  Py_INCREF(F);
  return F;
}

// One launch-configuration number (an int or anything with __index__)
// into 32 bits: Min..2**32-1, else a ValueError naming it.
bool parseUInt32(PyObject *O, unsigned &Out, long long Min, const char *What) {
  Ref I(PyNumber_Index(O)); // TypeError for floats, strings, None...
  if (!I)
    return false;
  O = I.get();
  int Overflow = 0;
  long long X = PyLong_AsLongLongAndOverflow(O, &Overflow);
  if (X == -1 && PyErr_Occurred())
    return false;
  if (Overflow > 0 || X > 0xffffffffll) {
    PyErr_Format(PyExc_ValueError, "%s is too large: %S (at most 4294967295)",
                 What, O);
    return false;
  }
  if (Overflow < 0 || X < Min) {
    PyErr_Format(PyExc_ValueError, "%s must be %s, got %S", What,
                 Min > 0 ? "positive" : "non-negative", O);
    return false;
  }
  Out = unsigned(X);
  return true;
}

// A grid or block: an int, or a tuple or list of 1-3 ints (numba-cuda's
// errors: ValueError for another length, TypeError for a non-integer).
bool parseDim(PyObject *O, rt::Dim3 &Out, const char *What) {
  unsigned V[3] = {1, 1, 1};
  if (PyIndex_Check(O)) {
    if (!parseUInt32(O, V[0], 1, What))
      return false;
  } else if (PyTuple_Check(O) || PyList_Check(O)) {
    Ref Seq(PySequence_List(O));
    if (!Seq)
      return false;
    Py_ssize_t N = PyList_Size(Seq.get());
    if (N < 1 || N > 3) {
      PyErr_Format(PyExc_ValueError, "%s must be a sequence of 1, 2 or 3 integers, got %R",
                   What, Seq.get());
      return false;
    }
    for (Py_ssize_t K = 0; K < N; ++K)
      if (!PyIndex_Check(PyList_GetItem(Seq.get(), K))) {
        PyErr_Format(PyExc_TypeError, "%s must be a sequence of integers, got %R", What,
                     Seq.get());
        return false;
      }
    std::string Entry = std::string(What) + " entries";
    for (Py_ssize_t K = 0; K < N; ++K)
      if (!parseUInt32(PyList_GetItem(Seq.get(), K), V[K], 1, Entry.c_str()))
        return false;
  } else {
    PyErr_Format(PyExc_TypeError, "%s must be a sequence of integers, got [%R]", What, O);
    return false;
  }
  Out = {V[0], V[1], V[2]};
  return true;
}

PyObject *launcherVectorcall(PyObject *Self, PyObject *const *Argv, size_t NArgsF,
                             PyObject *KwNames);

// launch_bounds=max_threads: a larger block is the driver's error
// (CUDA_ERROR_INVALID_VALUE from cuLaunchKernel, as the GPU reports it) on
// both backends, with the bound named.
void refuseAboveLaunchBound(const rt::Dim3 &Block, int Bound) {
  unsigned long long Threads = (unsigned long long)Block.x * Block.y * Block.z;
  if (Threads <= (unsigned long long)Bound)
    return;
  rt::throwDriverError(rt::CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel",
                       "block (" + std::to_string(Block.x) + ", " + std::to_string(Block.y) +
                           ", " + std::to_string(Block.z) + ") has " +
                           std::to_string(Threads) +
                           " threads; the kernel's launch_bounds allow at most " +
                           std::to_string(Bound));
}

void rememberLauncher(DispatcherObject *D, PyObject *Key, PyObject *L) {
  PyObject *OldKey = D->lastKey, *OldL = D->lastLauncher;
  Py_INCREF(Key);
  Py_INCREF(L);
  D->lastKey = Key;
  D->lastLauncher = L;
  Py_XDECREF(OldKey); // last: these may run arbitrary code
  Py_XDECREF(OldL);
}

// kernel[grid, block] / kernel[grid, block, stream] / kernel[grid, block, stream, shared]
PyObject *dispatcherGetItem(PyObject *Self, PyObject *Key) {
  auto *D = reinterpret_cast<DispatcherObject *>(Self);
  if (Key == D->lastKey && D->lastLauncher) {
    Py_INCREF(D->lastLauncher);
    return D->lastLauncher;
  }
  if (PyObject *Cached = PyDict_GetItem(D->launchers, Key)) {
    rememberLauncher(D, Key, Cached);
    Py_INCREF(Cached);
    return Cached;
  }
  PyErr_Clear();
  if (!PyTuple_Check(Key) || PyTuple_Size(Key) < 2 || PyTuple_Size(Key) > 4) {
    PyErr_SetString(PyExc_TypeError,
                    "launch configuration must be kernel[griddim, blockdim] "
                    "(optionally followed by stream and dynamic shared bytes)");
    return nullptr;
  }
  rt::Dim3 Grid, Block;
  if (!parseDim(PyTuple_GetItem(Key, 0), Grid, "griddim") ||
      !parseDim(PyTuple_GetItem(Key, 1), Block, "blockdim"))
    return nullptr;
  rt::CUstream Stream = nullptr;
  PyObject *StreamObj = nullptr;
  StreamObject *Ours = nullptr;
  if (PyTuple_Size(Key) >= 3) {
    StreamObj = PyTuple_GetItem(Key, 2);
    try {
      Stream = streamHandle(StreamObj, &Ours);
    } catch (...) {
      return translateException();
    }
  }
  unsigned Shared = 0;
  if (PyTuple_Size(Key) == 4 &&
      !parseUInt32(PyTuple_GetItem(Key, 3), Shared, 0,
                   "dynamic shared memory size"))
    return nullptr;
  auto *Alloc = reinterpret_cast<PyObject *(*)(PyTypeObject *, Py_ssize_t)>(
      PyType_GetSlot(LauncherType, Py_tp_alloc));
  PyObject *L = Alloc(LauncherType, 0);
  if (!L)
    return nullptr;
  auto *LO = reinterpret_cast<LauncherObject *>(L);
  LO->vectorcall = launcherVectorcall;
  Py_INCREF(Self);
  LO->disp = D;
  LO->grid = Grid;
  LO->block = Block;
  LO->shared = Shared;
  LO->stream = Stream;
  Py_XINCREF(StreamObj);
  LO->streamObj = StreamObj;
  LO->ours = Ours;
  // A bounded cache of configurations; a key that cannot be hashed (a
  // stream object without __hash__) is simply not cached.
  if (PyDict_Size(D->launchers) < 256 && PyDict_SetItem(D->launchers, Key, L) < 0)
    PyErr_Clear();
  rememberLauncher(D, Key, L);
  return L;
}

PyObject *dispatcherCall(PyObject *Self, PyObject *Args, PyObject *Kw) {
  PyErr_SetString(PyExc_ValueError,
                  "the kernel launch configuration was not specified: launch "
                  "with kernel[griddim, blockdim](*args)");
  return nullptr;
}

PyMethodDef DispatcherMethods[] = {
    {"compile", dispatcherCompile, METH_O, "Compile for a signature string."},
    {"_dump", dispatcherDump, METH_VARARGS, "Text of a compile stage."},
    {"_info", dispatcherInfo, METH_VARARGS, "Facts about a specialization."},
    {"_function_attribute", dispatcherFunctionAttribute, METH_VARARGS,
     "cuFuncGetAttribute of a specialization."},
    {"_max_cooperative_blocks", dispatcherMaxCooperativeBlocks, METH_VARARGS,
     "The largest cooperative grid of a specialization."},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef DispatcherGetSet[] = {
    {"signatures", dispatcherSignatures, nullptr, nullptr, nullptr},
    {"py_func", dispatcherPyFunc, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyType_Slot DispatcherSlots[] = {
    {Py_tp_new, reinterpret_cast<void *>(dispatcherNew)},
    {Py_tp_dealloc, reinterpret_cast<void *>(dispatcherDealloc)},
    {Py_tp_traverse, reinterpret_cast<void *>(dispatcherTraverse)},
    {Py_tp_clear, reinterpret_cast<void *>(dispatcherClear)},
    {Py_tp_methods, DispatcherMethods},
    {Py_tp_getset, DispatcherGetSet},
    {Py_mp_subscript, reinterpret_cast<void *>(dispatcherGetItem)},
    {Py_tp_call, reinterpret_cast<void *>(dispatcherCall)},
    {0, nullptr}};

PyType_Spec DispatcherSpec = {
    "pycuda_jit._core.Dispatcher", sizeof(DispatcherObject), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, DispatcherSlots};

// ---- Launcher -------------------------------------------------------------------------

void launcherDealloc(PyObject *O) {
  auto *L = reinterpret_cast<LauncherObject *>(O);
  PyTypeObject *T = Py_TYPE(O);
  PyObject_GC_UnTrack(O);
  Py_CLEAR(L->disp);
  Py_CLEAR(L->streamObj);
  auto *Free = reinterpret_cast<freefunc>(PyType_GetSlot(T, Py_tp_free));
  Free(O);
  Py_DECREF(T);
}

int launcherTraverse(PyObject *O, visitproc visit, void *arg) {
  Py_VISIT(reinterpret_cast<PyObject *>(reinterpret_cast<LauncherObject *>(O)->disp));
  Py_VISIT(reinterpret_cast<LauncherObject *>(O)->streamObj);
  Py_VISIT(Py_TYPE(O));
  return 0;
}

int launcherClear(PyObject *O) {
  auto *L = reinterpret_cast<LauncherObject *>(O);
  Py_CLEAR(L->disp);
  Py_CLEAR(L->streamObj);
  L->ours = nullptr;
  return 0;
}

// Host arrays staged through device memory for one launch (CUDA backend).
struct Staging {
  std::vector<ArgValue *> vals;
  ~Staging() {
    for (ArgValue *V : vals)
      if (V->ptr) {
        try {
          deviceFree(V->ptr);
        } catch (...) {
        }
      }
  }
};

void stageIn(std::vector<ArgValue> &Vals, Staging &S) {
  for (ArgValue &V : Vals) {
    if (!V.host || backend() != BackendKind::CUDA)
      continue;
    V.ptr = deviceAlloc(V.nbytes);
    S.vals.push_back(&V);
    noteStagedArgument();
    copyToDevice(V.ptr, reinterpret_cast<const void *>(V.hostPtr), V.nbytes);
  }
}

void stageOut(Staging &S) {
  if (S.vals.empty())
    return;
  deviceSynchronize();
  for (ArgValue *V : S.vals)
    if (!V->readonly)
      copyToHost(reinterpret_cast<void *>(V->hostPtr), V->ptr, V->nbytes);
}

// The process's main thread (Python's, where SIGINT is handled).
bool onMainThread() {
  thread_local int Main = -1;
  if (Main < 0)
    Main = syscall(SYS_gettid) == getpid();
  return Main == 1;
}

// A CPU launch's error: an interrupted launch becomes what Python's SIGINT
// handler raises (KeyboardInterrupt, or the user's handler's exception;
// KeyboardInterrupt if that raised nothing, since the kernel did not run to
// its end).
[[noreturn]] void rethrowLaunchError(std::exception_ptr Err) {
  try {
    std::rethrow_exception(Err);
  } catch (const rt::cpu::KernelFault &F) {
    if (F.kind() != rt::cpu::KernelFault::Kind::Interrupted)
      throw;
    if (PyErr_CheckSignals() == 0)
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw PythonError{};
  }
}

PyObject *launch(LauncherObject *L, PyObject *const *Argv, Py_ssize_t N) {
  return guard([&]() -> PyObject * {
    NvtxRange Range("launch", L->disp->pyfunc);
    DispatcherState *St = L->disp->st;
    if (N != St->nargs && St->nargs >= 0) [[unlikely]]
      argCountError(St, N);
    std::vector<ArgValue> Vals(N);
    try {
      for (Py_ssize_t K = 0; K < N; ++K)
        classifyArg(Argv[K], int(K), Vals[K]);
    } catch (const PythonError &) {
      addSignatures(St);
      throw;
    }
    BackendKind BK = backend();
    if (L->ours && !streamAlive(L->ours)) [[unlikely]]
      streamHandle(L->streamObj); // raises: the stream's context was closed
    // Same limits and messages on both backends.
    rt::Context *Ctx = BK == BackendKind::CUDA ? &rt::currentContext() : nullptr;
    rt::validateLaunchConfig(Ctx ? Ctx->limits() : rt::kCpuLaunchLimits,
                             L->grid, L->block, L->shared);
    if (int Bound = L->disp->st->opts.launchBounds.maxThreads) [[unlikely]]
      refuseAboveLaunchBound(L->block, Bound);
    // Another device's array: refused (a GPU would need peer access).
    static const bool ManyDevices = backendDeviceCount() > 1;
    int Device = Ctx ? Ctx->device() : backendCurrentDevice();
    if (ManyDevices) [[unlikely]]
      checkArgDevices(Vals, Device);
    Spec *S = specialize(L->disp, Vals);
    refuseReadOnlyWrites(*S, Vals);
    if (!S->roArrays.empty()) [[unlikely]]
      S = aliasSafe(L->disp, S, Vals);
    Staging Stage;
    stageIn(Vals, Stage);
    alignas(16) char Small[512];
    void *SmallParams[64];
    std::vector<char> BigBuf;
    std::vector<void *> BigParams;
    char *Buf = Small;
    void **Params = SmallParams;
    if (S->bufSize > sizeof Small || S->result.abi.size() > 64) {
      BigBuf.resize(S->bufSize + 16);
      BigParams.resize(S->result.abi.size() + 1);
      Buf = BigBuf.data();
      Params = BigParams.data();
    }
    packArgs(S->result.abi, S->offsets, S->result.argTypes, Vals, Buf, Params);
    if (Ctx) {
      size_t Dev = size_t(Ctx->device());
      rt::CUfunction Fn = Dev < S->devices.size() &&
                                  S->devices[Dev].gen == Ctx->generation()
                              ? S->devices[Dev].fn
                              : loadForDevice(L->disp, *S, *Ctx).fn;
      syncArgStreams(Vals, L->stream);
      if (S->result.usesGridSync)
        rt::launchCooperativeKernel(Fn, L->grid, L->block, L->shared,
                                    L->stream, Params);
      else
        rt::launchKernel(Fn, L->grid, L->block, L->shared, L->stream, Params);
      // debug=True: the launch reports its raise/assert itself.
      if (St->opts.debug) [[unlikely]]
        rt::synchronizeStream(L->stream);
    } else {
      if (size_t(Device) >= S->devices.size() || !S->devices[Device].gen) [[unlikely]]
        noteCpuDevice(L->disp, *S, Device);
      if (!S->captured.empty()) [[unlikely]]
        checkCapturedArrays(*S, Device);
      rt::cpu::Dims G{L->grid.x, L->grid.y, L->grid.z};
      rt::cpu::Dims B{L->block.x, L->block.y, L->block.z};
      // Ctrl-C stops launches from the main thread (where Python raises
      // KeyboardInterrupt); the time limit applies to every launch.
      rt::cpu::LaunchControl Control;
      Control.interruptible = onMainThread();
      Control.timeoutSeconds = St->opts.cpuTimeout;
      std::exception_ptr Err;
      Py_BEGIN_ALLOW_THREADS
      try {
        rt::cpu::launch(S->cpu, G, B, L->shared, Params, Control);
      } catch (...) {
        Err = std::current_exception();
      }
      Py_END_ALLOW_THREADS
      if (Err)
        rethrowLaunchError(Err);
    }
    stageOut(Stage);
    Py_RETURN_NONE;
  });
}

PyObject *positionalOnly() {
  PyErr_SetString(PyExc_TypeError, "kernels take positional arguments only");
  return nullptr;
}

PyObject *launcherVectorcall(PyObject *Self, PyObject *const *Argv, size_t NArgsF,
                             PyObject *KwNames) {
  if (KwNames && PyTuple_Size(KwNames))
    return positionalOnly();
  auto N = Py_ssize_t(NArgsF & ~kVectorcallArgumentsOffset);
  return launch(reinterpret_cast<LauncherObject *>(Self), Argv, N);
}

PyObject *launcherCall(PyObject *Self, PyObject *Args, PyObject *Kw) {
  if (Kw && PyDict_Size(Kw))
    return positionalOnly();
  Py_ssize_t N = PyTuple_Size(Args);
  std::vector<PyObject *> Argv(static_cast<size_t>(N));
  for (Py_ssize_t K = 0; K < N; ++K)
    Argv[size_t(K)] = PyTuple_GetItem(Args, K); // borrowed: Args keeps them
  return launch(reinterpret_cast<LauncherObject *>(Self), Argv.data(), N);
}

PyMemberDef LauncherMembers[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(LauncherObject, vectorcall), READONLY,
     nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyType_Slot LauncherSlots[] = {
    {Py_tp_dealloc, reinterpret_cast<void *>(launcherDealloc)},
    {Py_tp_traverse, reinterpret_cast<void *>(launcherTraverse)},
    {Py_tp_clear, reinterpret_cast<void *>(launcherClear)},
    {Py_tp_call, reinterpret_cast<void *>(launcherCall)},
    {Py_tp_members, LauncherMembers},
    {0, nullptr}};

PyType_Spec LauncherSpec = {"pycuda_jit._core.Launcher", sizeof(LauncherObject), 0,
                            Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | kTpFlagsHaveVectorcall,
                            LauncherSlots};

} // namespace

bool addDispatcherTypes(PyObject *Module) {
  DispatcherType = reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&DispatcherSpec));
  LauncherType = reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&LauncherSpec));
  if (!DispatcherType || !LauncherType)
    return false;
  Py_INCREF(DispatcherType);
  Py_INCREF(LauncherType);
  return PyModule_AddObject(Module, "Dispatcher",
                            reinterpret_cast<PyObject *>(DispatcherType)) == 0 &&
         PyModule_AddObject(Module, "Launcher",
                            reinterpret_cast<PyObject *>(LauncherType)) == 0;
}

PyObject *compilePtx(PyObject *Self, PyObject *Args, PyObject *Kw) {
  return guard([&]() -> PyObject * {
    PyObject *Func, *Options = nullptr, *Stages = nullptr;
    const char *SigText;
    int Major = 9, Minor = 0;
    const char *Suffix = "";
    static const char *Names[] = {"func", "sig", "cc_major", "cc_minor", "options",
                                  "stages", "cc_suffix", nullptr};
    if (!PyArg_ParseTupleAndKeywords(Args, Kw, "Os|iiOOs", const_cast<char **>(Names),
                                     &Func, &SigText, &Major, &Minor, &Options,
                                     &Stages, &Suffix))
      return nullptr;
    JitOptions O = parseJitOptions(Options && Options != Py_None ? Options : nullptr);
    Signature Sig = parseSignature(SigText);
    driver::CompileOptions CO = toCompileOptions(O, driver::Backend::CUDA);
    // The newest architecture here at or below cc (numba-cuda's closest
    // arch); arch-specific only when asked (cc=(9, 0, 'a')).
    applyGpuTarget(CO, gpuTargetForArch(Major, Minor, Suffix));
    CO.links = readLinkItems(O.link.get());
    // Tests and tools: compile read-only arrays as noalias (the dispatcher
    // does this only after checking the arguments do not overlap).
    CO.noAliasReadOnly = O.assumeNoalias;
    // compile_ptx(device=True): an exported device function (C ABI),
    // named device_name (None: the mangled name).
    if (O.device) {
      CO.deviceFunction = true;
      CO.deviceName = O.deviceName;
      CO.declaredReturn = Sig.ret;
    } else {
      Sig.args = types::kernelArgTypes(Sig.args);
    }
    CO.dumps = envDumps();
    if (Stages && Stages != Py_None) {
      Ref It = check(PyObject_GetIter(Stages));
      while (PyObject *Item = PyIter_Next(It.get())) {
        Ref Owned(Item);
        std::string Stage = utf8(Item);
        checkStageName(Stage);
        CO.dumps.insert(Stage);
      }
      if (PyErr_Occurred())
        return nullptr;
    }
    bc::RawCode Raw = readCode(Func);
    PyResolver R(Func);
    driver::CompileResult Res = compileWithPlugin(Raw, Sig.args, R, CO);
    printDumps(Res);
    printTimings(Res, "compile_ptx");
    Ref Dumps(PyDict_New());
    for (const auto &[Stage, Text] : Res.dumps) {
      Ref V(PyUnicode_FromStringAndSize(Text.data(), Py_ssize_t(Text.size())));
      PyDict_SetItemString(Dumps.get(), Stage.c_str(), V.get());
    }
    std::string Ret = Res.returnType ? Res.returnType->str() : "none";
    return Py_BuildValue("(s#,s,O,s)", Res.ptx.data(), Py_ssize_t(Res.ptx.size()),
                         Res.kernelName.c_str(), Dumps.get(), Ret.c_str());
  });
}

} // namespace pcj::py
