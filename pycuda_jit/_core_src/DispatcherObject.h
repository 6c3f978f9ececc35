// The state behind a _core.Dispatcher (one @cuda.jit kernel), shared by
// Dispatcher.cpp (the Python type, launches) and Specializations.cpp (the
// compiled specializations: compile, disk cache, per-architecture images,
// loading into devices).
#pragma once

#include "Glue.h"
#include "JitOptions.h"

#include "driver/Compile.h"
#include "runtime/Executor.h"
#include "runtime/LoadImage.h"
#include "runtime/Module.h"
#include "runtime/cpu/GridRunner.h"
#include "runtime/jit/SpecializationTable.h"
#include "support/GpuTargets.h"
#include "types/Type.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace pcj::py {

using types::TypeRef;

// A kernel compiled for one GPU architecture (shared by the devices of that
// architecture).
struct ArchImage {
  int ccMajor = 0, ccMinor = 0;
  rt::LoadableImage image;
};

// The kernel loaded into one device's context: rt::LoadedKernel's gen (the
// context's generation at load time, 0: not loaded, so that a context reset
// by cuda.close() is noticed and the module loaded again), fn (the CUDA
// function) and setUp (the link= code's setup callbacks ran for this load,
// ModuleCallbacks.h), which the executor's launch reads
// (rt::KernelSlots::of(devices)); the module and this load's number (unique
// in the process).
struct DeviceFn : rt::LoadedKernel {
  std::shared_ptr<rt::Module> module;
  uint64_t moduleId = 0;
};

// Code generation of a Specialization running on the compile pool
// (Specializations.cpp).
struct PendingCompile;

// A kernel compiled for one list of argument types (driver::Session::Callee
// is a device function's).
struct Specialization {
  std::vector<TypeRef> key; // the argument types it was compiled for
  // Set while the code is generated in the background (an eager signature):
  // readySpec() waits for it and finishes the Specialization; until then only
  // key, target, cacheKey and result's analysis fields (signature, argTypes...)
  // are filled.
  std::shared_ptr<PendingCompile> pending;
  bool background = false;   // its code was generated on the compile pool
  bool noAlias = false;      // read-only arrays marked noalias (ld.global.nc)
  std::string cache = "off"; // off / hit / miss (and why it is off)
  std::string cacheKey;
  // Launch-time aliasing check: read-only and other array arguments.
  std::vector<int> roArrays, otherArrays;
  // Arguments whose arrays the kernel may write (read-only ones are refused).
  std::vector<int> writtenArgs;
  std::shared_ptr<Specialization>
      aliased; // the variant without noalias, if needed
  driver::CompileResult result;
  std::vector<size_t> offsets;
  size_t bufSize = 0;
  std::string loadPath;
  // GpuTargetChoice::describe() ("native sm_90"...), "cpu" on the executor
  std::string target;
  // the target choice of the first image (CUDA), for recompiles that must
  // reproduce its cache key whatever the environment says now
  std::optional<GpuTargetChoice> gpuTarget;
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
  // The foreign functions (cuda.declare_device objects) the code calls,
  // directly or through device functions: the module-load callbacks of
  // their link= items run with those of the kernel's (ModuleCallbacks.h).
  std::vector<Ref> foreignFunctions;
};

// The specialization table (runtime/jit/SpecializationTable.h: mu, ordered,
// failed, byArgs, lastKey / lastSpec) and the kernel's options.
struct DispatcherState : jit::SpecializationTable<TypeRef, Specialization> {
  JitOptions opts;
  bool explicitSigs = false;
  int nargs = -1;     // positional parameters; -1: not checked (defaults)
  std::string params; // "name(a, b, c)" for messages
};

struct DispatcherObject {
  PyObject_HEAD PyObject *pyfunc;
  PyObject *launchers; // dict: config tuple -> Launcher
  // The last configuration object looked up and its Launcher: a constant
  // tuple (kernel[1, 256] in a loop) is the same object on every call.
  PyObject *lastKey, *lastLauncher;
  DispatcherState *st;
};

} // namespace pcj::py
