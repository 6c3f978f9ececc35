// The toolkit search's module functions (support/Toolkit.h), added to _core
// by ExtensionInit.cpp: set_site_packages (sys.path, from pycuda_jit/_lazy.py),
// toolkit_report (for `python -m pycuda_jit info`) and toolkit_file (a
// tool such as nvdisasm, for kernel.inspect_sass()).
#pragma once

#include "Glue.h"

namespace pcj::py {

// The PyMethodDef table (null-terminated) for PyModule_AddFunctions.
PyMethodDef *toolkitMethods();

} // namespace pcj::py
