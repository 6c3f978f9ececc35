// The specializations of a kernel (Specializations.h): compile one for new
// argument types, through the disk cache; images per GPU architecture,
// modules per device; the launch-time aliasing choice.  Moved out of
// Dispatcher.cpp unchanged.
#include "Specializations.h"

#include "ArgPack.h"
#include "CodeReader.h"
#include "CodegenPlugin.h"
#include "CompileReport.h"
#include "DebugSource.h"
#include "GpuTarget.h"
#include "KernelCache.h"
#include "Log.h"
#include "ModuleCallbacks.h"
#include "Nvtx.h"
#include "Prefetch.h"
#include "PyExecutor.h"
#include "Resolver.h"

#include "codegen/HostBackend.h"
#include "runtime/CacheLock.h"
#include "runtime/Device.h"
#include "runtime/Errors.h"
#include "runtime/jit/CachePolicy.h"
#include "runtime/jit/CachedCompile.h"
#include "runtime/jit/CompilePool.h"
#include "support/Diagnostics.h"
#include "support/Toolkit.h"
#include "types/Overloads.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <sys/stat.h>

namespace pcj::py {

using namespace types;

// The whole pipeline: analysis here, code generation in the plugin.
driver::CompileResult compileWithPlugin(const bc::RawCode &Raw,
                                        const std::vector<TypeRef> &Args,
                                        ir::Resolver &R,
                                        const driver::CompileOptions &CO) {
  driver::AnalysisPtr A = driver::analyzeKernel(Raw, Args, R, CO);
  return codegenPlugin().generateKernel(std::move(A), CO);
}

// link=: the files read now (ffi.LinkList), so that the cache key sees edits.
std::vector<ir::LinkItem> readLinkItems(PyObject *Reader) {
  std::vector<ir::LinkItem> Out;
  if (!Reader)
    return Out;
  Ref Items = check(PyObject_CallNoArgs(Reader));
  if (!PyList_Check(Items.get())) {
    PyErr_SetString(PyExc_TypeError,
                    "link=: the link list reader did not return a list");
    throw PythonError{};
  }
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

// The toolkit files that shape a cubin besides our code: libdevice's bytes
// and the nvJitLink library that runs ptxas, named by path, size and
// modification time (stat only, once per process, as libdevice itself is
// read once).  Part of a GPU kernel's cache key, so that a toolkit upgrade or
// another PYCUDA_JIT_LIBDEVICE is a miss, never a kernel built with the old
// ones.
static const std::string &toolkitFingerprint() {
  static const std::string Id = [] {
    std::vector<std::pair<std::string, std::string>> Files;
    for (ToolkitPiece P : {ToolkitPiece::Libdevice, ToolkitPiece::NvJitLink})
      Files.emplace_back(toolkitPieceName(P), findToolkitFile(P));
    return jit::toolchainFingerprint(Files);
  }();
  return Id;
}

static driver::CompileOptions compileOptions(DispatcherObject *D) {
  driver::CompileOptions CO = toCompileOptions(D->st->opts, backend());
  if (CO.backend == driver::Backend::CPU) // host code needs the plugin anyway
    CO.hostTarget = codegenPlugin().hostTarget();
  CO.codegenBuildId = codegenPluginBuildId();
  if (CO.backend == driver::Backend::CUDA)
    CO.codegenBuildId += "|" + toolkitFingerprint();
  CO.dumps = envDumps(); // inspect_* compiles the others again on demand
  CO.links = readLinkItems(D->st->opts.link.get());
  return CO;
}

// nvJitLink / the driver's JIT keep the PTX's line table (-lineinfo) for
// kernels compiled with one (lineinfo=True, debug=True).
static rt::LinkOptions linkOptions(const driver::CompileOptions &CO) {
  rt::LinkOptions LO;
  LO.LineInfo = CO.lineInfo;
  return LO;
}

// The image of S for the architecture of device Info: the first compile's,
// or a new compile for another architecture (multi-GPU machines).
static const ArchImage &imageFor(DispatcherObject *D, Specialization &S,
                                 const rt::DeviceInfo &Info) {
  if (ArchImage *I = jit::imageForArch(S.images, Info.ComputeCapabilityMajor,
                                       Info.ComputeCapabilityMinor))
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
  LO.KernelLtoIr = Other ? Other->ltoir : S.result.ltoir; // lto=True
  I->image = rt::ptxToLoadable(Ptx, I->ccMajor, I->ccMinor, LO);
  driver::StageTiming Link{"load.link",
                           std::chrono::duration<double, std::milli>(
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
void checkCapturedArrays(const Specialization &S, int Device) {
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
                      std::to_string(Device) +
                      "; launch it under `with cuda.gpus[" +
                      std::to_string(A->device) + "]:`";
    Ref Cls(errorsModule()
                ? PyObject_GetAttrString(errorsModule(), "DeviceMismatchError")
                : nullptr);
    PyErr_Clear();
    PyErr_SetString(Cls ? Cls.get() : PyExc_ValueError, Msg.c_str());
    throw PythonError{};
  }
}

// Loads S for the calling thread's device through the executor: after the
// first compile, on a device not seen before, and after cuda.close() reset
// the context.  GPU code is the image for the device's architecture
// (imageFor); host code (the CPU executor) runs on every virtual device
// from the one entry, so its load only records the device and, per context
// generation, a module number for the link= code's callbacks
// (ModuleCallbacks.h; kernel.stats["devices"]).
DeviceFn &loadForDevice(DispatcherObject *D, Specialization &S) {
  rt::Executor &E = executor();
  rt::LaunchSite Site = E.currentSite();
  std::lock_guard<std::mutex> L(D->st->mu);
  DeviceFn &F = jit::slotOf(S.devices, Site.device);
  if (F.gen == Site.generation)
    return F;
  checkCapturedArrays(S, Site.device);
  const rt::LoadableImage *Image = nullptr;
  rt::LoadSettings LS;
  if (!S.cpu.entry) { // an image per architecture
    Image = &imageFor(D, S, E.deviceInfo(Site.device)).image;
    LS.lineInfo = compileOptions(D).lineInfo;
    // A kernel with link= code (its own, or a foreign function's it calls)
    // is loaded as a CUlibrary: its module-load callbacks get the library
    // handle (ModuleCallbacks.cpp).
    LS.asLibrary =
        D->st->opts.link.get() != nullptr || !S.foreignFunctions.empty();
    if (int C = D->st->opts.carveout; C != JitOptions::kNoCarveout)
      LS.carveout = C;
  }
  DeviceFn New;
  auto T0 = std::chrono::steady_clock::now();
  New.module = E.loadKernel(Image, S.result.kernelName, LS, New);
  if (Image)
    S.result.timings.push_back(
        {"load.module", std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - T0)
                            .count()});
  New.moduleId = nextModuleId();
  F = std::move(New);
  return F;
}

// Which array arguments a noalias specialization must check at launch.
static void planAliasCheck(Specialization &S) {
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

// The disk cache lookup; Hit (and S filled) when the entry is read and,
// on a GPU (Gpu), its image loads on the current device.  A cached image the
// driver refuses (a damaged or forged cubin) is a Miss, which the caller
// rebuilds; errors that a rebuild cannot help (out of memory, a dead context)
// propagate.
static jit::CacheFind lookUpCached(DispatcherObject *D, Specialization &S,
                                   const driver::Analysis &A, bool Gpu,
                                   int CcMajor, int CcMinor, std::string &Why) {
  jit::CacheFind Found = jit::CacheFind::Miss;
  std::optional<CachedKernel> K =
      loadCachedKernel(S.cacheKey, A, Gpu, CcMajor, CcMinor, Found, Why);
  if (!K)
    return Found;
  S.result = std::move(K->result);
  if (!Gpu)
    return jit::CacheFind::Hit;
  auto I = std::make_unique<ArchImage>();
  I->ccMajor = CcMajor;
  I->ccMinor = CcMinor;
  I->image = std::move(K->image);
  S.images.push_back(std::move(I));
  try {
    loadForDevice(D, S);
    return jit::CacheFind::Hit;
  } catch (const rt::DriverError &E) {
    if (E.isOutOfMemory() || E.isSticky())
      throw;
    S.devices.clear();
    S.images.clear();
    return jit::CacheFind::Miss;
  }
}

static std::string storeInCache(Specialization &S, bool Cuda) {
  const rt::LoadableImage *Image =
      S.images.empty() ? nullptr : &S.images.front()->image;
  return storeCachedKernel(S.cacheKey, S.result, Cuda, Image);
}

// The stage dumps of S compiled again: after a disk-cache hit (which loads
// machine code only), or for another target (Cc: PTX of a CPU-executor
// kernel, or for another GPU).  The text is what a fresh compile gives: the
// analysis must reproduce S's cache key, else the kernel's code or globals
// changed since S was compiled and the text would describe other code.
std::map<std::string, std::string>
recompileDumps(DispatcherObject *D, const Specialization &S,
               std::optional<std::pair<int, int>> Cc, const char *How) {
  driver::CompileOptions CO = compileOptions(D);
  CO.dumps = {"all"};
  CO.noAliasReadOnly = S.noAlias;
  if (S.gpuTarget) // as compiled, not as PYCUDA_JIT_NEWEST_CC would choose now
    applyGpuTarget(CO, *S.gpuTarget);
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
    // The GPU's own choices: lto=, PYCUDA_JIT_VIA_NVVM.
    driver::CompileOptions Gpu =
        toCompileOptions(D->st->opts, driver::Backend::CUDA);
    CO.lto = Gpu.lto;
    CO.viaNvvm = Gpu.viaNvvm;
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
[[noreturn]] static void refuseCachingCaptures(PyObject *Func,
                                               PyObject *Array) {
  std::string Msg =
      "cannot cache kernel '" + str(getAttr(Func, "__qualname__").get()) +
      "' (cache=True): it captures global device arrays (here a " +
      typeName(Array) +
      "), whose address is part of the code and "
      "valid only in this process; drop cache=True or pass the "
      "array as an argument";
  Ref Code = getAttr(Func, "__code__");
  Ref File = getAttr(Code.get(), "co_filename"),
      Line = getAttr(Code.get(), "co_firstlineno");
  Ref Cls(errorsModule()
              ? PyObject_GetAttrString(errorsModule(), "UncacheableKernelError")
              : nullptr);
  PyErr_Clear();
  if (!Cls) {
    PyErr_SetString(PyExc_RuntimeError, Msg.c_str());
    throw PythonError{};
  }
  Ref Err(PyObject_CallFunction(Cls.get(), "sOO", Msg.c_str(), File.get(),
                                Line.get()));
  if (Err)
    PyErr_SetObject(Cls.get(), Err.get());
  throw PythonError{};
}

// The code generation of one specialization and, for a GPU, the link of its
// image: the part of a compile that needs no Python object, run with the
// GIL released, on the compile pool for eager signatures.
struct PendingCompile {
  const driver::CodegenApi *codegen = nullptr;
  driver::AnalysisPtr analysis; // resolvers dropped: no Python object inside
  driver::CompileOptions options;
  bool cuda = false;
  int ccMajor = 0, ccMinor = 0; // the device the image is linked for
  std::chrono::steady_clock::time_point start; // for logCompile
  std::shared_ptr<jit::CompileJob> job;        // background only
  // Outputs.
  driver::CompileResult result;
  std::unique_ptr<ArchImage> image;

  void run() {
    result = codegen->generateKernel(std::move(analysis), options);
    if (!cuda)
      return;
    auto T0 = std::chrono::steady_clock::now();
    rt::LinkOptions LO = linkOptions(options);
    for (const ir::LinkItem &L : result.links)
      LO.Inputs.push_back({L.kind, L.name, L.data}); // foreign functions' code
    LO.KernelLtoIr = result.ltoir;                   // lto=True: nvJitLink -lto
    image = std::make_unique<ArchImage>();
    image->ccMajor = ccMajor;
    image->ccMinor = ccMinor;
    image->image = rt::ptxToLoadable(result.ptx, ccMajor, ccMinor, LO);
    result.timings.push_back(
        {"load.link", std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - T0)
                          .count()});
  }
};

// The generated code into S.
static void adoptGenerated(Specialization &S, PendingCompile &P) {
  S.result = std::move(P.result);
  if (P.image) {
    S.loadPath = rt::loadPathName(P.image->image.Path);
    S.images.push_back(std::move(P.image));
  }
}

// What every compile does once the code exists (compiled or from the disk
// cache): the parameter layout, the launch-time checks, loading into the
// current context (CUDA) or the executor's entry (CPU).
static void completeSpec(DispatcherObject *D, Specialization &S, bool Gpu,
                         bool Hit) {
  S.bufSize = layoutParamBuffer(S.result.abi, S.offsets);
  planAliasCheck(S);
  for (size_t K = 0; K < S.result.argWrites.size(); ++K)
    if (S.result.argWrites[K].written)
      S.writtenArgs.push_back(int(K));
  if (Gpu) {
    loadForDevice(D, S);
  } else {
    S.loadPath = Hit ? "host-jit (cached object)" : "host-jit";
    S.cpu.entry = reinterpret_cast<rt::cpu::KernelEntry>(S.result.hostEntry);
    // Messages and sanitizer findings name the Python function, as raise
    // and assert sites do, not the specialization's symbol.
    Ref Q = getAttrOpt(D->pyfunc, "__qualname__");
    S.pyName =
        Q && PyUnicode_Check(Q.get()) ? utf8(Q.get()) : S.result.kernelName;
    S.cpu.name = S.pyName.c_str();
    S.cpu.usesBarriers = S.result.usesBarriers;
    S.cpu.usesWarpOps = S.result.usesWarpOps;
    S.cpu.staticSharedBytes = S.result.staticSharedBytes;
    S.cpu.sanitize = D->st->opts.sanitize;
  }
}

static void reportCompile(DispatcherObject *D, const Specialization &S,
                          bool Hit,
                          std::chrono::steady_clock::time_point Start) {
  printTimings(S.result, Hit ? "cache hit" : "compile");
  logCompile(D->pyfunc, S.result.signature,
             std::chrono::duration<double, std::milli>(
                 std::chrono::steady_clock::now() - Start)
                 .count(),
             S.loadPath, S.cache);
}

std::shared_ptr<Specialization> compileSpec(DispatcherObject *D,
                                            const std::vector<TypeRef> &Args,
                                            bool NoAlias, bool Background) {
  warnOnFallback();
  auto Start = std::chrono::steady_clock::now(); // for logCompile
  NvtxRange Range("compile", D->pyfunc);
  driver::CompileOptions CO = compileOptions(D);
  bool Gpu = false;
  int DevMajor = 0, DevMinor = 0; // the device the image is linked for
  std::string Target = "cpu";
  std::optional<GpuTargetChoice> Choice;
  if (CO.backend == driver::Backend::CUDA) {
    Gpu = true; // the current device's context is made current here
    rt::Executor &E = executor();
    rt::DeviceInfo Info = E.deviceInfo(E.currentSite().device);
    DevMajor = Info.ComputeCapabilityMajor;
    DevMinor = Info.ComputeCapabilityMinor;
    GpuTargetChoice T = gpuTargetFor(DevMajor, DevMinor);
    applyGpuTarget(CO, T);
    Target = T.describe();
    Choice = T;
    CO.noAliasReadOnly = NoAlias; // checked at every launch (planAliasCheck)
  } else if (CO.sanitize) {
    // The sanitizer skips race checks on read-only arrays, which needs the
    // same launch-time overlap check.
    CO.noAliasReadOnly = NoAlias;
  }
  bc::RawCode Raw = readCode(D->pyfunc);
  if (CO.debugInfo) [[unlikely]]
    warnIfNoSource(D->pyfunc);
  PyResolver R(D->pyfunc);
  auto S = std::make_shared<Specialization>();
  S->key = Args;
  S->target = Target;
  S->gpuTarget = Choice;
  S->noAlias = CO.noAliasReadOnly;
  driver::AnalysisPtr A = driver::analyzeKernel(Raw, Args, R, CO);
  S->cacheKey = driver::cacheKey(*A);
  S->captured = R.captured();
  S->foreignFunctions = R.foreignFunctions();
  if (!S->captured.empty() && D->st->opts.cache)
    refuseCachingCaptures(D->pyfunc, S->captured.front().get());
  // The disk cache (runtime/jit/CachedCompile.h): a hit, or a miss whose
  // entry's lock this process holds until the compile is stored.
  jit::CacheLookup Cache;
  if (D->st->opts.cache) {
    jit::CacheSteps Steps;
    Steps.lookup = [&](std::string &Why) {
      return lookUpCached(D, *S, *A, Gpu, DevMajor, DevMinor, Why);
    };
    Steps.await = [&](std::unique_ptr<rt::CacheLock> &Lock, std::string &Note) {
      return awaitCacheEntry(S->cacheKey, Lock, Note);
    };
    Cache = jit::lookUpOrLock(Steps);
    S->cache = Cache.status;
  }
  bool Hit = Cache.hit;
  if (!Hit) {
    prefetchCompiler(); // nvJitLink loads beside this code generation
    auto P = std::make_shared<PendingCompile>();
    P->codegen = &codegenPlugin(); // loaded here, with the GIL
    driver::dropResolvers(*A);     // their Python objects stay on this thread
    S->result =
        driver::analysisResult(*A); // the signature, until the code is there
    P->analysis = std::move(A);
    P->options = std::move(CO);
    P->cuda = Gpu;
    P->ccMajor = DevMajor;
    P->ccMinor = DevMinor;
    P->start = Start;
    jit::CompilePool *Pool = nullptr;
    if (Background && !D->st->opts.cache &&
        jit::CompilePool::configuredThreads() > 0)
      Pool = &jit::CompilePool::process();
    if (Pool) {
      // Python's exit waits for running compiles (see drainProcess).
      static const bool DrainAtExit =
          Py_AtExit(&jit::CompilePool::drainProcess) == 0;
      (void)DrainAtExit;
      S->background = true;
      P->job = Pool->submit([P] { P->run(); });
      S->pending = std::move(P);
      return S;
    }
    {
      WithoutGil Released;
      P->run();
    }
    adoptGenerated(*S, *P);
    printDumps(S->result);
  } else if (!envDumps().empty()) { // the stages asked for, compiled again
    for (auto &[Stage, Text] :
         recompileDumps(D, *S, std::nullopt, "dumps after a cache hit"))
      S->result.dumps.emplace(Stage, std::move(Text));
    printDumps(S->result);
  }
  completeSpec(D, *S, Gpu, Hit);
  if (D->st->opts.cache && !Hit) {
    jit::storeCompiled(Cache, [&] { return storeInCache(*S, Gpu); });
    S->cache = Cache.status;
  }
  reportCompile(D, *S, Hit, Start);
  return S;
}

Specialization *readySpec(DispatcherObject *D,
                          const std::shared_ptr<Specialization> &S) {
  std::shared_ptr<PendingCompile> P = S->pending;
  if (!P)
    return S.get();
  if (!P->job->finished()) {
    WithoutGil Released;
    P->job->wait();
  }
  if (S->pending != P) { // another thread finished it while this one waited
    if (S->pending || !D->st->retired(S))
      return S.get();
    PyErr_Format(
        PyExc_RuntimeError,
        "the compile of %s %s failed (its error was raised in another thread)",
        S->result.kernelName.c_str(), S->result.signature.c_str());
    throw PythonError{};
  }
  S->pending = nullptr;
  if (std::exception_ptr Error = P->job->takeError()) {
    D->st->retire(S);
    std::rethrow_exception(Error); // the user's file and line, as compiled
  }
  adoptGenerated(*S, *P);
  // An image for a GPU loads into the current context; host code needs none.
  completeSpec(D, *S, S->gpuTarget.has_value(), /*Hit=*/false);
  printDumps(S->result); // Python output: other threads may run from here on
  reportCompile(D, *S, /*Hit=*/false, P->start);
  return S.get();
}

// The bytes [lo, hi) an array argument spans (empty when it has no
// elements).  A host array the launch stages is not on the device yet: its
// host bytes stand for it, since host arrays that overlap share one device
// copy (Staging.h); a coincidental overlap with a device range only costs
// the variant without noalias.
static std::pair<uint64_t, uint64_t> spanOf(const ArgValue &V) {
  uint64_t Base = V.hostPtr && !V.ptr ? V.hostPtr : V.ptr;
  int64_t Lo = 0, Hi = V.type->dtype()->byteSize();
  for (int K = 0; K < V.ndim; ++K) {
    if (V.shape[K] == 0)
      return {0, 0};
    int64_t Ext = (V.shape[K] - 1) * V.strides[K];
    (Ext < 0 ? Lo : Hi) += Ext;
  }
  return {Base + Lo, Base + Hi};
}

// Whether F holds for an array in V (tuples searched too).
template <typename Fn> static bool anyArray(const ArgValue &V, Fn &&F) {
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
void refuseReadOnlyWrites(const Specialization &S,
                          const std::vector<ArgValue> &Vals) {
  for (int K : S.writtenArgs) {
    if (!anyArray(Vals[K], [](const ArgValue &V) { return V.readonly; }))
      continue;
    const driver::ArgWrite &W = S.result.argWrites[K];
    throw CompileError(
        ErrorKind::Typing, W.at,
        "kernel argument " + std::to_string(K + 1) + " ('" + W.param +
            "') is a read-only array, but the kernel writes to it",
        "pass a writable array (a copy: arr.copy())");
  }
}

// A noalias specialization may only run when no read-only array overlaps an
// array the kernel may write; otherwise its variant without noalias runs.
Specialization *aliasSafe(DispatcherObject *D, Specialization *S,
                          const std::vector<ArgValue> &Vals) {
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
      return jit::variantOnce<Specialization>(D->st->mu, S->aliased, [&] {
        return compileSpec(D, S->key, /*NoAlias=*/false);
      });
    }
  }
  return S;
}

static Specialization *findOrCompile(DispatcherObject *D,
                                     std::vector<ArgValue> &Vals);
static std::shared_ptr<Specialization> findSpec(DispatcherObject *D,
                                                std::vector<ArgValue> &Vals);

// Finds or compiles the specialization for these arguments.
Specialization *specialize(DispatcherObject *D, std::vector<ArgValue> &Vals) {
  DispatcherState *St = D->st;
  if (Specialization *Last =
          St->lastMatch(Vals.size(), [&](size_t K) { return Vals[K].type; }))
    return Last;
  Specialization *S = findOrCompile(D, Vals);
  std::vector<TypeRef> Key;
  Key.reserve(Vals.size());
  for (const ArgValue &V : Vals)
    Key.push_back(V.type);
  St->remember(std::move(Key), S);
  return S;
}

static Specialization *findOrCompile(DispatcherObject *D,
                                     std::vector<ArgValue> &Vals) {
  std::shared_ptr<Specialization> Found = findSpec(D, Vals);
  if (Found)
    return readySpec(D, Found); // waits for an eager signature's compile
  std::vector<TypeRef> Key;
  Key.reserve(Vals.size());
  for (const ArgValue &V : Vals)
    Key.push_back(V.type);
  // One compile per signature: a thread asking while another compiles it
  // waits (the GIL released) and takes that one.
  return D->st
      ->obtain(
          Key, [&] { return compileSpec(D, Key); },
          [](const std::function<void()> &Wait) {
            WithoutGil Released;
            Wait();
          })
      .get();
}

// The specialization the arguments select, or null when one must be
// compiled; TypeError when explicit signatures do not fit.
static std::shared_ptr<Specialization> findSpec(DispatcherObject *D,
                                                std::vector<ArgValue> &Vals) {
  std::vector<TypeRef> Key;
  Key.reserve(Vals.size());
  for (const ArgValue &V : Vals)
    Key.push_back(V.type);
  DispatcherState *St = D->st;
  // With explicit signatures, numba's choice among them (types/Overloads.h),
  // under the table's lock.  A CPointer(T) parameter takes an address: a
  // Python int (int64).
  return St->find(
      Key,
      [&](const std::vector<std::shared_ptr<Specialization>> &Ordered)
          -> std::optional<size_t> {
        if (!St->explicitSigs)
          return std::nullopt;
        std::vector<std::vector<TypeRef>> Params;
        for (auto &S : Ordered) {
          Params.push_back(S->result.argTypes);
          for (TypeRef &P : Params.back())
            if (P->kind() == types::Kind::Pointer)
              P = types::int64Ty();
        }
        types::OverloadChoice C = types::chooseOverload(Key, Params);
        if (C.best.size() == 1)
          return C.best[0];
        std::string Args;
        for (size_t K = 0; K < Key.size(); ++K)
          Args += (K ? ", " : "") + Key[K]->str();
        std::string Msg = "kernel " + St->params;
        if (C.best.empty()) {
          Msg += ": No matching definition for argument types (" + Args +
                 "); the kernel was compiled for:";
          for (auto &S : Ordered)
            Msg += "\n  " + S->result.signature;
        } else {
          Msg += ": ambiguous call: argument types (" + Args +
                 ") convert equally well to the signatures:";
          for (size_t K : C.best)
            Msg += "\n  " + Ordered[K]->result.signature;
        }
        PyErr_SetString(PyExc_TypeError, Msg.c_str());
        throw PythonError{};
      });
}

} // namespace pcj::py
