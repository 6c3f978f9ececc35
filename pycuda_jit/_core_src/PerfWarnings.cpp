// numba-cuda's performance warnings: see PerfWarnings.h.
#include "PerfWarnings.h"

#include "PyExecutor.h"

#include "support/Env.h"

#include <cstring>

namespace pcj::py {

static bool switchFromEnv(env::Var V) {
  const char *S = env::raw(V);
  return !S || !*S || std::strcmp(S, "0") != 0;
}

PerfWarningSwitches &perfWarningSwitches() {
  static PerfWarningSwitches Switches{
      switchFromEnv(env::Var::LowOccupancyWarnings),
      switchFromEnv(env::Var::WarnOnImplicitCopy)};
  return Switches;
}

static PyObject *performanceWarning() {
  PyObject *Cls = errorsModule() ? PyObject_GetAttrString(errorsModule(),
                                                          "PerformanceWarning")
                                 : nullptr;
  if (!Cls) {
    PyErr_Clear();
    Py_INCREF(PyExc_RuntimeWarning);
    return PyExc_RuntimeWarning;
  }
  return Cls;
}

// numba-cuda's threshold: fewer blocks than this rarely fill a GPU (twice
// the SM count would be the ideal, which differs per GPU).
constexpr unsigned long long kMinGridBlocks = 128;

bool warnSmallGrid(const rt::Dim3 &Grid) {
  if (!perfWarningSwitches().lowOccupancy)
    return true;
  unsigned long long Blocks = 1ull * Grid.x * Grid.y * Grid.z;
  if (Blocks >= kMinGridBlocks)
    return true;
  Ref Cls(performanceWarning());
  return PyErr_WarnFormat(Cls.get(), 1,
                          "Grid size %llu will likely result in GPU "
                          "under-utilization due to low occupancy.",
                          Blocks) == 0;
}

// A host array that a GPU launch copies: staged (GPU), or used in place by
// the CPU executor and not mapped or managed memory.  Record scalars
// (numpy.void) are copied too, but numba-cuda does not warn for them.
static bool copiedOnGpu(const ArgValue &V) {
  if (!V.type || !V.type->isArray())
    return false;
  return V.host || (V.hostInPlace && !deviceAddressOfHost(V.ptr, 0));
}

static bool hasHostArray(const std::vector<ArgValue> &Vals) {
  for (const ArgValue &V : Vals) {
    if (copiedOnGpu(V))
      return true;
    if (!V.elems.empty() && hasHostArray(V.elems))
      return true;
  }
  return false;
}

void warnHostArrays(const std::vector<ArgValue> &Vals) {
  if (!perfWarningSwitches().implicitCopy || !hasHostArray(Vals))
    return;
  Ref Cls(performanceWarning());
  if (PyErr_WarnEx(Cls.get(),
                   "Host array used in CUDA kernel will incur copy overhead "
                   "to/from device.",
                   1) < 0)
    throw PythonError{};
}

PyObject *pyPerformanceWarnings(PyObject *, PyObject *) {
  const PerfWarningSwitches &S = perfWarningSwitches();
  return Py_BuildValue("(OO)", S.lowOccupancy ? Py_True : Py_False,
                       S.implicitCopy ? Py_True : Py_False);
}

PyObject *pySetPerformanceWarnings(PyObject *, PyObject *Args) {
  int Low, Copy;
  if (!PyArg_ParseTuple(Args, "pp", &Low, &Copy))
    return nullptr;
  perfWarningSwitches() = {Low != 0, Copy != 0};
  Py_RETURN_NONE;
}

} // namespace pcj::py
