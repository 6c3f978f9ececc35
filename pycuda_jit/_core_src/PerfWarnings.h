// numba-cuda's performance warnings (pycuda_jit.errors.PerformanceWarning):
// a launch configuration with fewer than 128 blocks, and a host (NumPy)
// array argument that a launch copies to the device and back.  Each has a
// switch (cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS /
// CUDA_WARN_ON_IMPLICIT_COPY, first read from PYCUDA_JIT_* variables, on by
// default as in numba-cuda).  Given on both backends: on the CPU executor
// they say what the launch would cost on a GPU.
//
//   if (!warnSmallGrid(Grid)) return nullptr; // the warning was an error
#pragma once

#include "ArgPack.h"
#include "Glue.h"

#include "runtime/Launch.h"

#include <vector>

namespace pcj::py {

struct PerfWarningSwitches {
  bool lowOccupancy;
  bool implicitCopy;
};
PerfWarningSwitches &perfWarningSwitches();

// Warns when Grid has fewer than 128 blocks (and the switch is on); false
// when the warning was turned into an exception (set).
bool warnSmallGrid(const rt::Dim3 &Grid);

// Warns when an argument (or a tuple's element) is a host array that the
// launch copies (and the switch is on); throws PythonError when the warning
// was turned into an exception.
void warnHostArrays(const std::vector<ArgValue> &Vals);

// _core.performance_warnings() -> (low_occupancy, implicit_copy);
// _core.set_performance_warnings(low_occupancy, implicit_copy).
PyObject *pyPerformanceWarnings(PyObject *, PyObject *);
PyObject *pySetPerformanceWarnings(PyObject *, PyObject *Args);

} // namespace pcj::py
