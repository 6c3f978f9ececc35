// Module-load callbacks of link= code (ffi.LinkableCode's setup_callback /
// teardown_callback): the launch calls runModuleSetup() once per loaded
// module -- a specialization loaded into one device's context (GPU), or
// noted on one virtual device per CPU context generation (CPU executor) --
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

// Runs the setup callbacks of D's link= code for S's module on Device (none:
// only marks it set up), then marks it set up.  A callback's exception
// propagates (PythonError) and the next launch tries again.
void runModuleSetup(DispatcherObject *D, Specialization &S, int Device);

} // namespace pcj::py
