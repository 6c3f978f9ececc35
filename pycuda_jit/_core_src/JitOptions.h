// JitOptions: the Python options of a kernel (cuda.jit) or of compile_ptx,
// declared once in JitOptions.def, and their mapping onto the compiler's
// options (driver/CompileOptions.def).
//
//   JitOptions O = parseJitOptions(Dict); // {"max_registers": 32, ...}
//   driver::CompileOptions CO = toCompileOptions(O, driver::Backend::CUDA);
//   CO.maxRegisters == 32
#pragma once

#include "driver/Compile.h"

#include "Glue.h"

#include <cstdint>
#include <string>

namespace pcj::py {

// fastmath=: True (all) or a set of flags (lower::fastmath bits).
struct FastMath {
  bool all = false;
  unsigned flags = 0;
};

// launch_bounds=: 0 where not given.
struct LaunchBounds {
  int maxThreads = 0, minBlocks = 0, maxClusterRank = 0;
};

struct JitOptions {
  // shared_memory_carveout not given.
  static constexpr int kNoCarveout = -2;
#define PCJ_JIT_OPTION(Kwarg, Field, Type, Default, Parser, DefaultDoc, Doc)   \
  Type Field = Default;
#include "JitOptions.def"
};

// The options dict that cuda.jit / compile_ptx pass (null: every default),
// with the environment's defaults and overrides.  Throws PythonError (a
// TypeError or ValueError naming the option) for an unknown name or a bad
// value.  A sanitize= check arms the sanitizer's memory tracking.
JitOptions parseJitOptions(PyObject *Dict);

// Whether array accesses are bounds-checked: boundscheck= (or the
// environment) when given, else on the CPU executor (an out-of-bounds access
// there would corrupt the interpreter) and with debug=True.
bool boundsChecked(const JitOptions &O, driver::Backend B);

// The compiler's options for O on backend B (the link= code, targets, dumps
// and the build id are the caller's).
driver::CompileOptions toCompileOptions(const JitOptions &O, driver::Backend B);

// cuda.jit_options(): ((name, default, doc), ...) in the table's order.
PyObject *jitOptionTable(PyObject *Self, PyObject *Args);

} // namespace pcj::py
