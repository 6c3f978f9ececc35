// DebugInfoWarning for debug=True kernels without source (DebugSource.h).
//
//   exec("def foo():\n    pass", {}, ns)
//   cuda.jit(debug=True, opt=False)(ns["foo"])[1, 1]()
//   -> DebugInfoWarning: Could not find source for function <function foo
//      at 0x...> ...
#include "DebugSource.h"

namespace pcj::py {

namespace {

// Whether linecache knows lines of Func's source file.
bool sourceAvailable(PyObject *Func) {
  Ref Code = getAttrOpt(Func, "__code__");
  Ref File = Code ? getAttrOpt(Code.get(), "co_filename") : Ref();
  Ref LC(PyImport_ImportModule("linecache"));
  Ref Lines(File && LC
                ? PyObject_CallMethod(LC.get(), "getlines", "O", File.get())
                : nullptr);
  if (!Lines) {
    PyErr_Clear();
    return false;
  }
  return PyList_Check(Lines.get()) && PyList_Size(Lines.get()) > 0;
}

} // namespace

void warnIfNoSource(PyObject *Func) {
  if (sourceAvailable(Func))
    return;
  Ref Category = getAttr(errorsModule(), "DebugInfoWarning");
  std::string Msg = "Could not find source for function " + str(Func) +
                    "; its debug information (debug=True) has line numbers "
                    "but no source text to show with them";
  if (PyErr_WarnEx(Category.get(), Msg.c_str(), 1) < 0)
    throw PythonError{};
}

} // namespace pcj::py
