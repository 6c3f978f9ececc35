// The options each code-generation stage sees, made from the compile
// options: the rows a stage reads are copied by the table
// (driver/CompileOptions.def generates both the stage structs' fields and
// these copies), and the few values a stage derives from several rows are
// set here.
//
//   CompileOptions O;  O.boundsCheck = true;
//   lower::LowerOptions LO = lowerOptions(O);   // LO.boundsCheck == true
#pragma once

#include "driver/Compile.h"

#include "codegen/HostBackend.h"
#include "codegen/NvptxBackend.h"
#include "lower/Lower.h"

#include <vector>

namespace pcj::driver {

// ReadOnlyArgs: the kernel's read-only array parameters (the analysis'),
// marked noalias when O.noAliasReadOnly; KernelName: the entry's symbol.
lower::LowerOptions lowerOptions(const CompileOptions &O,
                                 const std::vector<bool> &ReadOnlyArgs = {},
                                 const std::string &KernelName = {});
// KeepOptimizedIR: the llvm-opt dump was asked for.
codegen::NvptxOptions nvptxOptions(const CompileOptions &O,
                                   bool KeepOptimizedIR = false);
codegen::HostOptions hostOptions(const CompileOptions &O,
                                 bool KeepOptimizedIR = false);

} // namespace pcj::driver
