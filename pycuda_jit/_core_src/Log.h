// Compile events to Python's `logging` (logger "pycuda_jit", through
// pycuda_jit/_log.py): every compile at DEBUG, one longer than a second at
// INFO.  Called with the GIL held; a failing handler never fails a compile.
// Nothing happens (logging is not imported) while the program has not
// imported `logging` itself: no handler could show the records.
#pragma once

#include "Glue.h"

#include <string>

namespace pcj::py {

void logCompile(PyObject *PyFunc, const std::string &Signature, double Ms,
                const std::string &LoadPath, const std::string &Cache);

} // namespace pcj::py
