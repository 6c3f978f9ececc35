// What a compile tells the user on stderr, from two environment variables:
//
//   PYCUDA_JIT_DUMP=typed,ptx   the named stages' text (or `all`); a name
//                               that is not a stage raises ValueError
//                               naming the stages, at the first compile
//   PYCUDA_JIT_TIMING=1         one line per compile, every path (first
//                               call, explicit signature, disk-cache hit,
//                               compile_ptx/compile_stages, inspect_*
//                               regenerating text, CPU executor):
//     pycuda_jit timing k_3a5f (array(float32, 1d, C)) -> none [compile]:
//       decode=0.02ms ... load.module=1.10ms total=35.2ms
#pragma once

#include "Glue.h"

#include "driver/Compile.h"

#include <set>
#include <string>

namespace pcj::py {

// The stages PYCUDA_JIT_DUMP asks for; throws PythonError (ValueError)
// for a name that is not a stage (driver::kStageNames) or `all`.
std::set<std::string> envDumps();
bool envTiming();

// Throws PythonError (ValueError) unless Stage is one of driver::kStageNames.
void checkStageName(const std::string &Stage);

// Prints the dumps PYCUDA_JIT_DUMP asks for that R holds.
void printDumps(const driver::CompileResult &R);
// With PYCUDA_JIT_TIMING, prints R's stage times; How names the path
// ("compile", "cache hit", "compile_ptx", "inspect").
void printTimings(const driver::CompileResult &R, const char *How);

} // namespace pcj::py
