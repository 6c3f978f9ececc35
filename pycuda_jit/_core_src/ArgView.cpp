// arg_view / classify_seconds (see ArgView.h).
#include "ArgView.h"

#include "ArgPack.h"
#include "ForeignArrays.h"
#include "TypeOf.h"

#include <chrono>
#include <vector>

namespace pcj::py {

namespace {
PyObject *dims(const int64_t *D, int N) {
  Ref T(check(PyTuple_New(N)));
  for (int K = 0; K < N; ++K)
    PyTuple_SetItem(T.get(), K, check(PyLong_FromLongLong(D[K])).release());
  return T.release();
}
} // namespace

PyObject *pyArgView(PyObject *, PyObject *Value) {
  return guard([&]() -> PyObject * {
    ArgValue A;
    classifyArg(Value, 0, A);
    Ref Type = check(describeType(A.type));
    Ref Shape(dims(A.shape, A.ndim)), Strides(dims(A.strides, A.ndim));
    Ref Stream;
    if (A.hasStream)
      Stream = check(
          PyLong_FromUnsignedLongLong(A.foreign ? foreignStream(A) : A.stream));
    return Py_BuildValue("{sOsKsOsOsOsOss}", "type", Type.get(), "ptr",
                         (unsigned long long)A.ptr, "shape", Shape.get(),
                         "strides", Strides.get(), "readonly",
                         A.readonly ? Py_True : Py_False, "stream",
                         Stream ? Stream.get() : Py_None, "path",
                         A.foreign ? "foreign" : "other");
  });
}

PyObject *pyClassifySeconds(PyObject *, PyObject *Args) {
  return guard([&]() -> PyObject * {
    PyObject *Tuple;
    long long Rounds;
    if (!PyArg_ParseTuple(Args, "O!L", &PyTuple_Type, &Tuple, &Rounds))
      return nullptr;
    Py_ssize_t N = PyTuple_Size(Tuple);
    auto Start = std::chrono::steady_clock::now();
    for (long long R = 0; R < Rounds; ++R) {
      // As a launch: one vector of values per call.
      std::vector<ArgValue> Vals(N);
      for (Py_ssize_t K = 0; K < N; ++K)
        classifyArg(PyTuple_GetItem(Tuple, K), int(K), Vals[K]);
    }
    std::chrono::duration<double> D = std::chrono::steady_clock::now() - Start;
    return PyFloat_FromDouble(D.count());
  });
}

} // namespace pcj::py
