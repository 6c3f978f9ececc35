// Shared helpers of the CPython extension: an owning reference type and the
// one place where C++ exceptions become Python exceptions (Errors.cpp).
// Built against the stable ABI (Py_LIMITED_API), so only limited-API calls.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string>
#include <utility>
#include <vector>

namespace pcj::rt::cpu::san {
struct Finding;
}

namespace pcj::py {

// Owning PyObject reference.
class Ref {
public:
  Ref() = default;
  explicit Ref(PyObject *O) : P(O) {} // steals
  static Ref borrow(PyObject *O) {
    Py_XINCREF(O);
    return Ref(O);
  }
  Ref(const Ref &O) : P(O.P) { Py_XINCREF(P); }
  Ref(Ref &&O) noexcept : P(std::exchange(O.P, nullptr)) {}
  Ref &operator=(Ref O) {
    std::swap(P, O.P);
    return *this;
  }
  ~Ref() { Py_XDECREF(P); }
  PyObject *get() const { return P; }
  PyObject *release() { return std::exchange(P, nullptr); }
  explicit operator bool() const { return P != nullptr; }

private:
  PyObject *P = nullptr;
};

// Thrown when a Python exception is already set (propagate it as is).
struct PythonError {};

// Releases the GIL for its lifetime (also when an exception passes): C++
// work that touches no Python object (code generation, linking).
struct WithoutGil {
  PyThreadState *saved = PyEval_SaveThread();
  WithoutGil() = default;
  WithoutGil(const WithoutGil &) = delete;
  WithoutGil &operator=(const WithoutGil &) = delete;
  ~WithoutGil() { PyEval_RestoreThread(saved); }
};

// Ref or throw PythonError if null.
inline Ref check(PyObject *O) {
  if (!O)
    throw PythonError{};
  return Ref(O);
}

std::string str(PyObject *O);                  // str(O), "" on failure
std::string typeName(PyObject *O);             // type(O).__qualname__
Ref getAttr(PyObject *O, const char *Name);    // throws PythonError
Ref getAttrOpt(PyObject *O, const char *Name); // null (no error) if missing
std::string utf8(PyObject *S); // str object -> std::string (throws)
// A namedtuple class (a tuple subclass whose `_fields` is a tuple of str):
// its field names into Fields.  False for anything else.
bool namedTupleFields(PyObject *Class, std::vector<std::string> &Fields);

// Converts the in-flight C++ exception to a Python exception; call from a
// catch (...) block.  Always returns nullptr for `return translate();`.
PyObject *translateException();

// Wraps a body so that every C++ exception becomes a Python exception.
template <typename Fn> PyObject *guard(Fn &&Body) {
  try {
    return Body();
  } catch (...) {
    return translateException();
  }
}

// The CPU executor's sanitizer findings as a list of
// pycuda_jit.errors.SanitizerFinding objects (throws PythonError).
Ref findingsToPython(const std::vector<rt::cpu::san::Finding> &Fs);

// Module state set up in ExtensionInit.cpp: the pycuda_jit.errors module.
PyObject *errorsModule();

} // namespace pcj::py
