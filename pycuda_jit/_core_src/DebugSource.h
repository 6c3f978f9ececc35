// numba-cuda's NumbaDebugInfoWarning: a kernel compiled with debug info
// whose Python source cannot be found (code from exec(), a file removed
// since) gets pycuda_jit.errors.DebugInfoWarning when it is compiled, since
// its line information cannot be checked against any text.
#pragma once

#include "Glue.h"

namespace pcj::py {

/// Warns (DebugInfoWarning) when linecache has no lines for Func's file;
/// throws PythonError when the warning filter turns it into an exception.
void warnIfNoSource(PyObject *Func);

} // namespace pcj::py
