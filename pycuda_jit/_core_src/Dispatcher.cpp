// Dispatcher and Launcher extension types (see Dispatcher.h).
#include "Dispatcher.h"

#include <structmember.h> // PyMemberDef (the limited API has it here)

#include "ArgHints.h"
#include "ArgPack.h"
#include "CodeReader.h"
#include "CompileReport.h"
#include "DispatcherObject.h"
#include "GpuTarget.h"
#include "JitOptions.h"
#include "KernelCache.h"
#include "LauncherObject.h"
#include "Log.h"
#include "ModuleCallbacks.h"
#include "Nvtx.h"
#include "PerfWarnings.h"
#include "Prefetch.h"
#include "PyExecutor.h"
#include "Resolver.h"
#include "Specializations.h"
#include "Staging.h"
#include "Streams.h"

#include "CodegenPlugin.h"
#include "codegen/HostBackend.h"
#include "driver/Compile.h"
#include "lower/Lower.h"
#include "runtime/CacheLock.h"
#include "runtime/Device.h"
#include "runtime/Errors.h"
#include "runtime/Launch.h"
#include "runtime/LoadImage.h"
#include "runtime/Stream.h"
#include "runtime/cpu/GridRunner.h"
#include "runtime/cpu/Sanitizer.h"
#include "support/Diagnostics.h"
#include "types/Overloads.h"
#include "types/Signature.h"

#include <chrono>

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <sys/syscall.h>
#include <unistd.h>
#include <unordered_map>

namespace pcj::py {

using namespace types;

namespace {

// (VectorcallFn and LauncherObject: LauncherObject.h.)
constexpr unsigned long kTpFlagsHaveVectorcall = 1UL << 11;
constexpr size_t kVectorcallArgumentsOffset = size_t(1)
                                              << (8 * sizeof(size_t) - 1);

PyTypeObject *DispatcherType = nullptr;
PyTypeObject *LauncherType = nullptr;

// ---- Dispatcher
// ----------------------------------------------------------------------

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
  std::string Msg =
      "kernel " + St->params + " takes " + std::to_string(St->nargs) +
      " argument" + (St->nargs == 1 ? "" : "s") + " but " +
      std::to_string(Given) + (Given == 1 ? " was" : " were") + " given";
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
    if (!PyArg_ParseTupleAndKeywords(
            Args, Kw, "O|O", const_cast<char **>(Names), &Func, &Options))
      return nullptr;
    if (!PyCallable_Check(Func) || !getAttrOpt(Func, "__code__")) {
      PyErr_SetString(PyExc_TypeError, "@cuda.jit needs a Python function");
      return nullptr;
    }
    JitOptions O =
        parseJitOptions(Options && Options != Py_None ? Options : nullptr);
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
    if (!O.cache) // a disk-cache hit needs neither
      prefetchCompiler();
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

// compile(signature: str) -> the signature text of the specialization;
// _compile_eager(signature) (the decorator's signatures): the same, the code
// generated on the compile pool (readySpec waits for it at the first use).
static PyObject *compileSignature(PyObject *Self, PyObject *Arg,
                                  bool Background) {
  return guard([&]() -> PyObject * {
    auto *D = reinterpret_cast<DispatcherObject *>(Self);
    Signature Sig = parseSignature(utf8(Arg));
    if (Sig.ret && Sig.ret != voidTy() && Sig.ret != noneTy()) {
      PyErr_SetString(PyExc_TypeError, "kernels must return void");
      return nullptr;
    }
    Sig.args = types::kernelArgTypes(Sig.args);
    std::shared_ptr<Specialization> S =
        compileSpec(D, Sig.args, /*NoAlias=*/true, Background);
    {
      std::lock_guard<std::mutex> L(D->st->mu);
      D->st->explicitSigs = true;
      auto [It, New] = D->st->byArgs.emplace(Sig.args, S);
      if (New) // a repeated signature is one candidate, not a tie
        D->st->ordered.push_back(S);
      else
        S = It->second;
    }
    if (!Background) // compiled when compile() returns, also an earlier eager
                     // one
      readySpec(D, S);
    return PyUnicode_FromString(S->result.signature.c_str());
  });
}

PyObject *dispatcherCompile(PyObject *Self, PyObject *Arg) {
  return compileSignature(Self, Arg, /*Background=*/false);
}

static PyObject *dispatcherCompileEager(PyObject *Self, PyObject *Arg) {
  return compileSignature(Self, Arg, /*Background=*/true);
}

static std::shared_ptr<Specialization> findByIndex(DispatcherObject *D,
                                                   PyObject *Which) {
  std::lock_guard<std::mutex> L(D->st->mu);
  if (D->st->ordered.empty()) {
    PyErr_SetString(
        PyExc_RuntimeError,
        "the kernel has not been compiled yet: call it or give a signature");
    throw PythonError{};
  }
  if (!Which || Which == Py_None)
    return D->st->ordered.back();
  std::string W = str(Which);
  for (auto &S : D->st->ordered)
    if (S->result.signature == W)
      return S;
  if (PyUnicode_Check(Which)) { // signature text, as compile() reads it
    std::vector<TypeRef> Args;
    try {
      Args = types::kernelArgTypes(parseSignature(W).args);
    } catch (const CompileError &) {
    }
    for (auto &S : D->st->ordered)
      if (!Args.empty() && S->key == Args)
        return S;
  }
  long K = PyLong_Check(Which) ? PyLong_AsLong(Which) : -1;
  if (K >= 0 && size_t(K) < D->st->ordered.size())
    return D->st->ordered[K];
  PyErr_Clear();
  PyErr_Format(PyExc_KeyError, "no specialization %R", Which);
  throw PythonError{};
}

// The specialization Which names, its background compile finished.
Specialization *specByIndex(DispatcherObject *D, PyObject *Which) {
  return readySpec(D, findByIndex(D, Which));
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
    Specialization *S = specByIndex(D, Which);
    std::optional<std::pair<int, int>> Cc;
    if (CcObj && CcObj != Py_None) {
      int Major = 0, Minor = 0;
      if (!PyTuple_Check(CcObj) ||
          !PyArg_ParseTuple(CcObj, "ii", &Major, &Minor) || Major < 1 ||
          Minor < 0) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError,
                        "cc must be a (major, minor) tuple such as (9, 0)");
        return nullptr;
      }
      Cc = {Major, Minor};
    }
    if (!Cc && std::string(Stage) == "ptx" && backend() != Backend::CUDA)
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
      PyErr_Format(PyExc_KeyError,
                   "the stage '%s' does not exist for this target", Stage);
      return nullptr;
    }
    return PyUnicode_FromStringAndSize(It->second.data(),
                                       Py_ssize_t(It->second.size()));
  });
}

// _info(which=None) -> dict with name, signature, load path, timings, abi size
PyObject *dispatcherInfo(PyObject *Self, PyObject *Args) {
  return guard([&]() -> PyObject * {
    PyObject *Which = nullptr;
    if (!PyArg_ParseTuple(Args, "|O", &Which))
      return nullptr;
    Specialization *S =
        specByIndex(reinterpret_cast<DispatcherObject *>(Self), Which);
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
      Ref Item(
          PyUnicode_FromString((Res.what + " -> " + Res.value.repr()).c_str()));
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
      std::lock_guard<std::mutex> L(
          reinterpret_cast<DispatcherObject *>(Self)->st->mu);
      for (size_t K = 0; K < S->devices.size(); ++K)
        if (S->devices[K].gen) {
          Ref Idx(PyLong_FromSize_t(K));
          PyList_Append(Devices.get(), Idx.get());
        }
    }
    return Py_BuildValue(
        "{s:s,s:s,s:s,s:s,s:O,s:d,s:n,s:O,s:O,s:O,s:n,s:s,s:s,s:O,s:O,s:O,s:s,"
        "s:O}",
        "name", S->result.kernelName.c_str(), "signature",
        S->result.signature.c_str(), "load_path", S->loadPath.c_str(),
        "backend", S->loadPath.rfind("host-jit", 0) == 0 ? "cpu" : "cuda",
        "timings_ms", Timings.get(), "compile_ms", Total, "param_bytes",
        Py_ssize_t(S->bufSize), "resolutions", Resolutions.get(),
        "uses_barriers", S->result.usesBarriers ? Py_True : Py_False,
        "uses_grid_sync", S->result.usesGridSync ? Py_True : Py_False,
        "static_shared_bytes", Py_ssize_t(S->result.staticSharedBytes), "cache",
        S->cache.c_str(), "cache_key", S->cacheKey.c_str(), "readonly_args",
        ReadOnly.get(), "noalias", S->noAlias ? Py_True : Py_False, "devices",
        Devices.get(), "target", S->target.c_str(), "background",
        S->background ? Py_True : Py_False);
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
    Specialization *S = specByIndex(D, Which);
    if (S->cpu.entry) // host code: no CUDA function
      Py_RETURN_NONE;
    rt::CUfunction Fn = loadForDevice(D, *S).fn;
    return PyLong_FromLong(
        rt::functionAttribute(Fn, rt::CUfunction_attribute(Attr)));
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
    Specialization *S = specByIndex(D, Which);
    if (S->cpu.entry) // host code: no CUDA function
      Py_RETURN_NONE;
    rt::CUfunction Fn = loadForDevice(D, *S).fn;
    return PyLong_FromLongLong(
        rt::maxCooperativeBlocks(Fn, Threads, size_t(Shared)));
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
      PyErr_Format(PyExc_ValueError,
                   "%s must be a sequence of 1, 2 or 3 integers, got %R", What,
                   Seq.get());
      return false;
    }
    for (Py_ssize_t K = 0; K < N; ++K)
      if (!PyIndex_Check(PyList_GetItem(Seq.get(), K))) {
        PyErr_Format(PyExc_TypeError,
                     "%s must be a sequence of integers, got %R", What,
                     Seq.get());
        return false;
      }
    std::string Entry = std::string(What) + " entries";
    for (Py_ssize_t K = 0; K < N; ++K)
      if (!parseUInt32(PyList_GetItem(Seq.get(), K), V[K], 1, Entry.c_str()))
        return false;
  } else {
    PyErr_Format(PyExc_TypeError, "%s must be a sequence of integers, got [%R]",
                 What, O);
    return false;
  }
  Out = {V[0], V[1], V[2]};
  return true;
}

PyObject *launcherVectorcall(PyObject *Self, PyObject *const *Argv,
                             size_t NArgsF, PyObject *KwNames);

// launch_bounds=max_threads: a larger block is the driver's error
// (CUDA_ERROR_INVALID_VALUE from cuLaunchKernel, as the GPU reports it) on
// both backends, with the bound named.
void refuseAboveLaunchBound(const rt::Dim3 &Block, int Bound) {
  unsigned long long Threads = (unsigned long long)Block.x * Block.y * Block.z;
  if (Threads <= (unsigned long long)Bound)
    return;
  rt::throwDriverError(
      rt::CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel",
      "block (" + std::to_string(Block.x) + ", " + std::to_string(Block.y) +
          ", " + std::to_string(Block.z) + ") has " + std::to_string(Threads) +
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

// L (a new reference), after the small-grid warning of each configuration
// (PerfWarnings.h); null when the warning was an error.
static PyObject *configured(PyObject *L) {
  if (warnSmallGrid(reinterpret_cast<LauncherObject *>(L)->grid))
    return L;
  Py_DECREF(L);
  return nullptr;
}

// kernel[grid, block] / kernel[grid, block, stream] / kernel[grid, block,
// stream, shared]
PyObject *dispatcherGetItem(PyObject *Self, PyObject *Key) {
  auto *D = reinterpret_cast<DispatcherObject *>(Self);
  if (Key == D->lastKey && D->lastLauncher) {
    Py_INCREF(D->lastLauncher);
    return configured(D->lastLauncher);
  }
  if (PyObject *Cached = PyDict_GetItem(D->launchers, Key)) {
    rememberLauncher(D, Key, Cached);
    Py_INCREF(Cached);
    return configured(Cached);
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
  if (PyTuple_Size(Key) == 4 && !parseUInt32(PyTuple_GetItem(Key, 3), Shared, 0,
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
  LO->callbacks = nullptr;
  LO->ours = Ours;
  // A bounded cache of configurations; a key that cannot be hashed (a
  // stream object without __hash__) is simply not cached.
  if (PyDict_Size(D->launchers) < 256 &&
      PyDict_SetItem(D->launchers, Key, L) < 0)
    PyErr_Clear();
  rememberLauncher(D, Key, L);
  return configured(L);
}

PyObject *dispatcherCall(PyObject *Self, PyObject *Args, PyObject *Kw) {
  PyErr_SetString(PyExc_ValueError,
                  "the kernel launch configuration was not specified: launch "
                  "with kernel[griddim, blockdim](*args)");
  return nullptr;
}

PyMethodDef DispatcherMethods[] = {
    {"compile", dispatcherCompile, METH_O, "Compile for a signature string."},
    {"_compile_eager", dispatcherCompileEager, METH_O,
     "Compile for a signature string, the code generated in the background."},
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
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    DispatcherSlots};

// ---- Launcher
// -------------------------------------------------------------------------

void launcherDealloc(PyObject *O) {
  auto *L = reinterpret_cast<LauncherObject *>(O);
  PyTypeObject *T = Py_TYPE(O);
  PyObject_GC_UnTrack(O);
  Py_CLEAR(L->disp);
  Py_CLEAR(L->streamObj);
  Py_CLEAR(L->callbacks);
  auto *Free = reinterpret_cast<freefunc>(PyType_GetSlot(T, Py_tp_free));
  Free(O);
  Py_DECREF(T);
}

int launcherTraverse(PyObject *O, visitproc visit, void *arg) {
  Py_VISIT(reinterpret_cast<PyObject *>(
      reinterpret_cast<LauncherObject *>(O)->disp));
  Py_VISIT(reinterpret_cast<LauncherObject *>(O)->streamObj);
  Py_VISIT(reinterpret_cast<LauncherObject *>(O)->callbacks);
  Py_VISIT(Py_TYPE(O));
  return 0;
}

int launcherClear(PyObject *O) {
  auto *L = reinterpret_cast<LauncherObject *>(O);
  Py_CLEAR(L->disp);
  Py_CLEAR(L->streamObj);
  Py_CLEAR(L->callbacks);
  L->ours = nullptr;
  return 0;
}

// The process's main thread (Python's, where SIGINT is handled).
bool onMainThread() {
  thread_local int Main = -1;
  if (Main < 0)
    Main = syscall(SYS_gettid) == getpid();
  return Main == 1;
}

// A grid run here that Ctrl-C interrupted (rt::cpu::KernelFault's
// Interrupted) becomes what Python's SIGINT handler raises
// (KeyboardInterrupt, or the user's handler's exception; KeyboardInterrupt
// if that raised nothing, since the kernel did not run to its end).
[[noreturn]] void raiseInterrupted() {
  if (PyErr_CheckSignals() == 0)
    PyErr_SetNone(PyExc_KeyboardInterrupt);
  throw PythonError{};
}

// The GIL around a grid that the executor runs on this thread
// (rt::LaunchArgs::beforeRun / afterRun).
void *releaseGil() { return PyEval_SaveThread(); }
void retakeGil(void *State) {
  PyEval_RestoreThread(static_cast<PyThreadState *>(State));
}

// The launch found no kernel loaded and set up for Site's device (the
// calling thread's): load it (a GPU image per device and context
// generation; host code, one entry for every device, is noted per device),
// then run the link= code's setup.
void readyForDevice(DispatcherObject *D, Specialization &S,
                    const rt::LaunchSite &Site) {
  loadForDevice(D, S);
  if (!S.devices[size_t(Site.device)].setUp) [[unlikely]]
    runModuleSetup(D, S, Site.device);
}

PyObject *launch(LauncherObject *L, PyObject *const *Argv, Py_ssize_t N) {
  return guard([&]() -> PyObject * {
    NvtxRange Range("launch", L->disp->pyfunc);
    DispatcherState *St = L->disp->st;
    if (N != St->nargs && St->nargs >= 0) [[unlikely]]
      argCountError(St, N);
    LaunchArgList Args{size_t(N)};
    std::vector<ArgValue> &Vals = Args.values();
    try {
      for (Py_ssize_t K = 0; K < N; ++K)
        classifyArg(Argv[K], int(K), Vals[K]);
    } catch (const PythonError &) {
      // cuda.In(a) & co.: redone in Python with device arrays (ArgHints.h).
      PyObject *R = nullptr;
      if (launchWithHints(reinterpret_cast<PyObject *>(L), L->streamObj, Argv,
                          N, R))
        return R ? R : throw PythonError{};
      addSignatures(St);
      throw;
    }
    warnHostArrays(Vals);
    rt::Executor &E = executor();
    if (L->ours && !streamAlive(L->ours)) [[unlikely]]
      streamHandle(L->streamObj); // raises: the stream's context was closed
    // Same limits and messages on both backends.  Every GPU allows what the
    // CPU executor does (kCpuLaunchLimits), so only a configuration beyond
    // those asks the device (and the GPU launch checks again).
    if (!rt::fitsLaunchLimits(rt::kCpuLaunchLimits, L->grid, L->block,
                              L->shared)) [[unlikely]]
      rt::validateLaunchConfig(E.launchLimits(), L->grid, L->block, L->shared);
    if (int Bound = L->disp->st->opts.launchBounds.maxThreads) [[unlikely]]
      refuseAboveLaunchBound(L->block, Bound);
    // Another device's array: refused (a GPU would need peer access).
    static const bool ManyDevices = backendDeviceCount() > 1;
    if (ManyDevices) [[unlikely]]
      checkArgDevices(Vals, E.currentDevice());
    Specialization *S = specialize(L->disp, Vals);
    refuseReadOnlyWrites(*S, Vals);
    if (!S->roArrays.empty()) [[unlikely]]
      S = aliasSafe(L->disp, S, Vals);
    if (L->callbacks) [[unlikely]]
      runPreLaunchCallbacks(L, S->result.signature);
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
    // A launch that only queues the grid waits for the arguments' streams
    // (a launch that runs it here runs after everything issued before).
    if (!E.launchRunsGrid)
      syncArgStreams(Vals, L->stream);
    rt::LaunchArgs A;
    A.grid = L->grid;
    A.block = L->block;
    A.shared = L->shared;
    A.stream = L->stream;
    A.params = Params;
    A.cooperative = S->result.usesGridSync;
    // Ctrl-C stops grids run from the main thread (where Python raises
    // KeyboardInterrupt); the time limit applies to every such launch.
    A.interruptible = onMainThread();
    A.timeoutSeconds = St->opts.cpuTimeout;
    A.beforeRun = releaseGil;
    A.afterRun = retakeGil;
    rt::LaunchSite Site;
    try {
      // One executor call per launch; the first on a device (and after
      // cuda.close()) loads and sets the kernel up first.
      while (!E.launch(rt::KernelSlots::of(S->devices, &S->cpu), A, Site)) {
        readyForDevice(L->disp, *S, Site);
      }
    } catch (const rt::cpu::KernelFault &F) {
      if (F.kind() == rt::cpu::KernelFault::Kind::Interrupted)
        raiseInterrupted();
      throw;
    }
    // debug=True: the launch reports its raise/assert itself.
    if (St->opts.debug) [[unlikely]]
      E.synchronizeStream(L->stream);
    stageOut(Stage);
    Py_RETURN_NONE;
  });
}

PyObject *positionalOnly() {
  PyErr_SetString(PyExc_TypeError, "kernels take positional arguments only");
  return nullptr;
}

PyObject *launcherVectorcall(PyObject *Self, PyObject *const *Argv,
                             size_t NArgsF, PyObject *KwNames) {
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

PyMemberDef LauncherMembers[] = {{"__vectorcalloffset__", T_PYSSIZET,
                                  offsetof(LauncherObject, vectorcall),
                                  READONLY, nullptr},
                                 {nullptr, 0, 0, 0, nullptr}};

PyType_Slot LauncherSlots[] = {
    {Py_tp_dealloc, reinterpret_cast<void *>(launcherDealloc)},
    {Py_tp_traverse, reinterpret_cast<void *>(launcherTraverse)},
    {Py_tp_clear, reinterpret_cast<void *>(launcherClear)},
    {Py_tp_call, reinterpret_cast<void *>(launcherCall)},
    {Py_tp_members, LauncherMembers},
    {Py_tp_getset, LauncherGetSet},
    {Py_tp_methods, LauncherMethods},
    {0, nullptr}};

PyType_Spec LauncherSpec = {
    "pycuda_jit._core.Launcher", sizeof(LauncherObject), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | kTpFlagsHaveVectorcall,
    LauncherSlots};

} // namespace

bool addDispatcherTypes(PyObject *Module) {
  DispatcherType =
      reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&DispatcherSpec));
  LauncherType =
      reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&LauncherSpec));
  if (!DispatcherType || !LauncherType)
    return false;
  Py_INCREF(DispatcherType);
  Py_INCREF(LauncherType);
  return PyModule_AddObject(Module, "Dispatcher",
                            reinterpret_cast<PyObject *>(DispatcherType)) ==
             0 &&
         PyModule_AddObject(Module, "Launcher",
                            reinterpret_cast<PyObject *>(LauncherType)) == 0;
}

} // namespace pcj::py
