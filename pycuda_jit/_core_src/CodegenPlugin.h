// Loading the code generator (libpcj_codegen.so, see
// compiler/driver/CodegenApi.h) on first use.
#pragma once

#include "driver/CodegenApi.h"

namespace pcj::py {

// The plugin's table, loading it (and registering the CPU executor's runtime
// symbols with the host JIT) the first time.  Throws std::runtime_error with
// the loader's message when the plugin is missing or from another build.
const driver::CodegenApi &codegenPlugin();

// Whether the plugin has been loaded in this process.
bool codegenPluginLoaded();

} // namespace pcj::py
