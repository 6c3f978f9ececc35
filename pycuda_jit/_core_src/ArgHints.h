// Launches whose arguments carry transfer hints (cuda.In / Out / InOut,
// pycuda_jit/args.py): the C++ launch path hands them to Python.
#pragma once

#include "Glue.h"

namespace pcj::py {

// Called with the failed argument classification's exception set.  If one
// of Argv is a hint (has `_pcj_arg_hint_`): launches through
// pycuda_jit.args.launch_with_hints(Launcher, Stream, args), sets Result to
// its result (new reference; null with its exception set if it raised) and
// returns true.  Otherwise returns false with the exception restored.
bool launchWithHints(PyObject *Launcher, PyObject *Stream,
                     PyObject *const *Argv, Py_ssize_t N, PyObject *&Result);

} // namespace pcj::py
