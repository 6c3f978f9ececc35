// Compile events to pycuda_jit._log (see Log.h).
#include "Log.h"

namespace pcj::py {

void logCompile(PyObject *PyFunc, const std::string &Signature, double Ms,
                const std::string &LoadPath, const std::string &Cache) {
  PyObject *Type, *Value, *Trace;
  PyErr_Fetch(&Type, &Value, &Trace); // keep whatever is in flight
  // A program that never imported `logging` configured no handler and no
  // level, so its records of DEBUG and INFO go nowhere: importing logging
  // for them would only cost the first call (~4 ms on the H200 host).
  static PyObject *LoggingName = PyUnicode_InternFromString("logging");
  Ref Logging(PyImport_GetModule(LoggingName));
  if (!Logging) {
    PyErr_Restore(Type, Value, Trace);
    return;
  }
  Ref Mod(PyImport_ImportModule("pycuda_jit._log"));
  Ref Fn(Mod ? PyObject_GetAttrString(Mod.get(), "compiled") : nullptr);
  Ref Res(Fn ? PyObject_CallFunction(Fn.get(), "Osdss", PyFunc,
                                     Signature.c_str(), Ms, LoadPath.c_str(),
                                     Cache.c_str())
             : nullptr);
  if (!Res)
    PyErr_WriteUnraisable(Fn ? Fn.get() : Py_None);
  PyErr_Restore(Type, Value, Trace);
}

} // namespace pcj::py
