// Module-load callbacks of link= code (ffi.LinkableCode's setup_callback /
// teardown_callback), of the kernel's link= and of the link= of every
// cuda.declare_device function its code calls (Specialization::
// foreignFunctions, recorded by the resolver, also on a disk-cache hit,
// which runs the analysis for its key): the launch calls runModuleSetup() once
// per loaded module -- a specialization loaded into one device's context (GPU),
// or noted on one virtual device per CPU context generation (CPU executor) --
// before that module's first launch.  Python (pycuda_jit._module_callbacks)
// runs the setups under its lock, so concurrent first launches run them
// once, and runs the teardowns when the context is reset or the process
// exits.
//
//   if (!S->devices[Dev].setUp) runModuleSetup(D, *S, Dev);
#pragma once

#include "DispatcherObject.h"

#include <cstdint>

namespace pcj::py {

// A number for a new load, unique in the process (DeviceFn::moduleId).
uint64_t nextModuleId();

// Runs the setup callbacks of D's and S's foreign functions' link= code
// (each item once) for S's module on Device (none:
// only marks it set up), then marks it set up.  A callback's exception
// propagates (PythonError) and the next launch tries again.
void runModuleSetup(DispatcherObject *D, Specialization &S, int Device);

} // namespace pcj::py
