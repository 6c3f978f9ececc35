// type_of(value) and type descriptions (see TypeOf.h).
#include "TypeOf.h"

#include "ArgPack.h"

namespace pcj::py {

using types::Kind;
using types::TypeRef;

namespace {

PyObject *strTuple(const std::vector<std::string> &Names) {
  Ref T(PyTuple_New(Py_ssize_t(Names.size())));
  if (!T)
    return nullptr;
  for (size_t K = 0; K < Names.size(); ++K) {
    PyObject *S = PyUnicode_FromString(Names[K].c_str());
    if (!S)
      return nullptr;
    PyTuple_SetItem(T.get(), Py_ssize_t(K), S); // steals
  }
  return T.release();
}

const char *layoutName(types::Layout L) {
  return L == types::Layout::C ? "C" : L == types::Layout::F ? "F" : "A";
}

} // namespace

PyObject *describeType(TypeRef T) {
  switch (T->kind()) {
  case Kind::Array: {
    Ref DT = check(describeType(T->dtype()));
    return Py_BuildValue("(sOIs)", "array", DT.get(), T->ndim(),
                         layoutName(T->layout()));
  }
  case Kind::Tuple: {
    Ref Elems(check(PyTuple_New(Py_ssize_t(T->elems().size()))));
    for (size_t K = 0; K < T->elems().size(); ++K)
      PyTuple_SetItem(Elems.get(), Py_ssize_t(K),
                      check(describeType(T->elems()[K])).release());
    Ref Fields = check(strTuple(T->fields()));
    if (T->fields().empty())
      return Py_BuildValue("(sOOO)", "tuple", Elems.get(), Py_None,
                           Fields.get());
    return Py_BuildValue("(sOsO)", "tuple", Elems.get(), T->name().c_str(),
                         Fields.get());
  }
  case Kind::Record: {
    Ref Fields(check(PyTuple_New(Py_ssize_t(T->fields().size()))));
    for (size_t K = 0; K < T->fields().size(); ++K) {
      Ref FT = check(describeType(T->elems()[K]));
      PyTuple_SetItem(
          Fields.get(), Py_ssize_t(K),
          check(Py_BuildValue("(sOK)", T->fields()[K].c_str(), FT.get(),
                              (unsigned long long)T->offsets()[K]))
              .release());
    }
    return Py_BuildValue("(sOII)", "record", Fields.get(), T->byteSize(),
                         T->recordAlign());
  }
  case Kind::NestedArray: {
    Ref Shape(check(PyTuple_New(Py_ssize_t(T->ndim()))));
    for (unsigned D = 0; D < T->ndim(); ++D)
      PyTuple_SetItem(
          Shape.get(), D,
          check(PyLong_FromUnsignedLongLong(T->shape()[D])).release());
    Ref Elem = check(describeType(T->dtype()));
    return Py_BuildValue("(sOO)", "nestedarray", Elem.get(), Shape.get());
  }
  default:
    return PyUnicode_FromString(T->str().c_str());
  }
}

PyObject *pyTypeOf(PyObject *, PyObject *Value) {
  return guard([&]() -> PyObject * {
    ArgValue A;
    classifyArg(Value, 0, A);
    return describeType(A.type);
  });
}

} // namespace pcj::py
