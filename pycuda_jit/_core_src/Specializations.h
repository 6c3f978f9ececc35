// The specializations of a _core.Dispatcher (DispatcherObject.h): compiled
// for new argument types (through the disk cache), their images per GPU
// architecture and modules per device, and the launch-time aliasing choice.
// Dispatcher.cpp keeps the Python types and the launch.
#pragma once

#include "ArgPack.h"
#include "DispatcherObject.h"

#include "bytecode/RawCode.h"
#include "ir/CompileTimeValue.h"
#include "runtime/Device.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pcj::py {

// The whole pipeline: analysis here, code generation in the plugin.
driver::CompileResult compileWithPlugin(const bc::RawCode &Raw,
                                        const std::vector<TypeRef> &Args,
                                        ir::Resolver &R,
                                        const driver::CompileOptions &CO);

// link=: the files read now (ffi.LinkList), so that the cache key sees edits.
std::vector<ir::LinkItem> readLinkItems(PyObject *Reader);

// Captured device arrays of ours must be alive on the launching device.
void checkCapturedArrays(const Specialization &S, int Device);

// Loads S for the calling thread's device (Executor::loadKernel; a GPU
// image for the device's architecture): after the first compile, on a
// device not seen before, and after cuda.close() reset the context.
DeviceFn &loadForDevice(DispatcherObject *D, Specialization &S);

// The stage dumps of S compiled again: after a disk-cache hit, or for
// another target (Cc).
std::map<std::string, std::string>
recompileDumps(DispatcherObject *D, const Specialization &S,
               std::optional<std::pair<int, int>> Cc, const char *How);

// Compiles (or loads from the disk cache) the specialization for Args;
// NoAlias: read-only arrays noalias (checked at every launch).  Background
// (eager signatures): the analysis runs now (its errors are raised here),
// the code generation and linking on the compile pool (runtime/jit), unless
// the disk cache is on or PYCUDA_JIT_COMPILE_THREADS=0; readySpec() waits.
std::shared_ptr<Specialization> compileSpec(DispatcherObject *D,
                                            const std::vector<TypeRef> &Args,
                                            bool NoAlias = true,
                                            bool Background = false);

// S ready to launch or inspect: waits for its background code generation
// (the GIL released) and finishes it.  An error of the background compile is
// raised here, once: the specialization leaves the dispatcher's maps, so a
// later call compiles again (or finds no matching explicit signature).
Specialization *readySpec(DispatcherObject *D,
                          const std::shared_ptr<Specialization> &S);

// A kernel may not write a read-only array: the launch stops before any copy.
void refuseReadOnlyWrites(const Specialization &S,
                          const std::vector<ArgValue> &Vals);

// S, or its variant without noalias when a read-only array overlaps an
// array the kernel may write.
Specialization *aliasSafe(DispatcherObject *D, Specialization *S,
                          const std::vector<ArgValue> &Vals);

// Finds or compiles the specialization for these arguments.
Specialization *specialize(DispatcherObject *D, std::vector<ArgValue> &Vals);

} // namespace pcj::py
