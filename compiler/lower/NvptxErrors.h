// NvptxErrors: a GPU thread's failing `assert`/`raise`/checked error, as a
// call to a cold function that fills the context's error record and exits
// the thread (see NvptxErrors.cpp and runtime/ErrorRecordAbi.h).
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <string>
#include <vector>

namespace pcj::lower {

struct DeviceErrorSite {
  std::string errorClass; // pycuda_jit.errors class of a checked error, or ""
  std::string exception;  // raise/assert: the builtin exception class
  std::string message;    // constant message ("" for none)
  std::string kernel, file;
  int line = 0;
  int axis = -1; // an index error: the axis out of bounds, else -1
};

// Emits, at B, the call that reports Site and ends the thread; the caller
// ends the block with `unreachable`.  An index error (Site.axis >= 0)
// passes the whole index and shape (i64 each) for the record.  A module no
// pycuda_jit runtime loaded (compile_ptx output) prints the message and
// traps, as before.
void emitDeviceError(llvm::IRBuilder<> &B, const DeviceErrorSite &Site,
                     const std::vector<llvm::Value *> &Index = {},
                     const std::vector<llvm::Value *> &Shape = {});

// For a kernel with a grid-wide barrier (cuda.cg.this_grid().sync()): a
// block all of whose threads exited would never arrive there and the grid
// would hang, so a recorded error traps instead of exiting (the record is
// written; the context is lost, as before).
void trapAfterRecording(llvm::Module &M);

} // namespace pcj::lower
