// Python Enum classes and members (see EnumMembers.h).
#include "EnumMembers.h"

#include <cstdio>

namespace pcj::py {

bool isEnumClass(PyObject *O) {
  static PyObject *Meta = [] {
    Ref Enum(PyImport_ImportModule("enum"));
    PyObject *M =
        Enum ? PyObject_GetAttrString(Enum.get(), "EnumMeta") : nullptr;
    PyErr_Clear();
    return M; // kept for the process
  }();
  if (!Meta || !PyType_Check(O))
    return false;
  int R = PyObject_IsInstance(O, Meta);
  if (R < 0)
    PyErr_Clear();
  // Other enum metaclasses making int subclasses count too: cuda.bindings'
  // FastEnum (cudaRoundMode, which numba-cuda's fp8 functions take).
  return R == 1 ||
         (Py_TYPE(O) != &PyType_Type &&
          PyType_IsSubtype(reinterpret_cast<PyTypeObject *>(O), &PyLong_Type) &&
          getAttrOpt(O, "__members__"));
}

PyObject *plainEnumClassOf(PyObject *O) {
  PyObject *Cls = reinterpret_cast<PyObject *>(Py_TYPE(O));
  if (PyLong_Check(O) || !isEnumClass(Cls))
    return nullptr;
  return Cls;
}

std::string enumClassKey(PyObject *Class) {
  Ref Mod = getAttrOpt(Class, "__module__");
  std::string Key = Mod && PyUnicode_Check(Mod.get()) ? str(Mod.get()) : "?";
  Key += "." + str(getAttr(Class, "__qualname__").get());
  char Id[32];
  std::snprintf(Id, sizeof Id, "@%llx", (unsigned long long)uintptr_t(Class));
  return Key + Id;
}

bool enumValueType(types::TypeRef T) {
  if (T && T->isTuple()) {
    for (types::TypeRef E : T->elems())
      if (!enumValueType(E))
        return false;
    return true;
  }
  return T && T->isNumeric();
}

} // namespace pcj::py
