// The host API's module functions (devices, contexts, memory management,
// interop), added to _core by ExtensionInit.cpp.  Each works on both backends:
// on the CPU executor there is one pseudo device ("the CPU executor", with the
// launch limits it enforces), memory information is the host's, and
// close() has nothing to reset.
#pragma once

#include "Glue.h"

namespace pcj::py {

// The PyMethodDef table (null-terminated) for PyModule_AddFunctions.
PyMethodDef *hostApiMethods();

} // namespace pcj::py
