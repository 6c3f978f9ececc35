// Loading the code generator (libpcj_codegen.so, see
// compiler/driver/CodegenApi.h) on first use.
#pragma once

#include "driver/CodegenApi.h"

#include <stdexcept>
#include <string>

namespace pcj::py {

// The plugin is missing or from another build: an installation problem,
// raised in Python as ImportError.
struct PluginLoadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The plugin's table, loading it (and registering the CPU executor's runtime
// symbols with the host JIT) the first time.  Throws PluginLoadError with
// the loader's message when the plugin is missing or from another build.
const driver::CodegenApi &codegenPlugin();

// Whether the plugin has been loaded in this process.
bool codegenPluginLoaded();

// The plugin file's GNU build id, read from its ELF notes without loading
// it (once per process; "" when the file is missing): part of cache keys.
const std::string &codegenPluginBuildId();

} // namespace pcj::py
