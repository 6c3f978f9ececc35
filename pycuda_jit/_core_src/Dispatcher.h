// _core.Dispatcher: one @cuda.jit kernel.  Holds its specializations
// (argument types -> compiled and loaded kernel), compiles on first use of
// new argument types (or eagerly from signature strings), and launches
// through _core.Launcher objects (`kernel[grid, block]`), which are cached
// per configuration.  The launch path is C++ end to end: classify the
// arguments, find the specialization, pack the parameters, launch.
#pragma once

#include "Glue.h"

namespace pcj::py {

bool addDispatcherTypes(PyObject *Module);

// _core.compile_ptx(func, sig, cc_major, cc_minor, options, stages)
//   -> (ptx, kernel name, {stage: dump text})
PyObject *compilePtx(PyObject *Self, PyObject *Args, PyObject *Kw);

} // namespace pcj::py
