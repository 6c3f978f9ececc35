// C++ exceptions -> Python exceptions (the only place this happens).
//
//   pcj::CompileError       -> pycuda_jit.errors.<kind> (TypingError, ...)
//                              with file, line, columns and hint attached;
//                              the Python class formats the source line.
//   pcj::rt::DriverError    -> CudaDriverError / CudaOutOfMemoryError /
//                              CudaStickyError
//   pcj::rt::NvrtcError     -> NvrtcError (CUDA C++ of link= did not compile)
//   pcj::rt::ForeignLinkError -> LinkerError (link= code did not link)
//   pcj::rt::LinkError      -> BackendError
//   LaunchConfigError       -> pycuda_jit.errors.LaunchConfigError
//   BackendUnavailable      -> CudaSupportError
//   cpu::KernelFault        -> KernelIndexError / KernelZeroDivisionError /
//                              KernelValueError / KernelUnboundLocalError /
//                              KernelDeadlockError / KernelSyncError /
//                              KernelTimeoutError / KernelRecursionError /
//                              KernelRaceError /
//                              KernelUninitializedReadError /
//                              KernelUseAfterFreeError / KernelError (with
//                              the failing source line and, for sanitized
//                              launches, `findings`: SanitizerFinding
//                              objects); Interrupted -> KeyboardInterrupt
//   rt::KernelRaised        -> the same classes, for a GPU kernel's error
//                              record (runtime/ErrorRecord.h)
//   std::bad_alloc          -> MemoryError
//   anything else           -> InternalCompilerError
#include "CodegenPlugin.h"
#include "Glue.h"
#include "PyExecutor.h"

#include "runtime/ErrorRecord.h"
#include "runtime/Errors.h"
#include "runtime/Launch.h"
#include "runtime/NvJitLink.h"
#include "runtime/Nvrtc.h"
#include "runtime/cpu/GridRunner.h"
#include "runtime/cpu/Sanitizer.h"
#include "support/Diagnostics.h"

namespace pcj::py {

std::string str(PyObject *O) {
  Ref S(PyObject_Str(O));
  if (!S) {
    PyErr_Clear();
    return "";
  }
  Py_ssize_t N = 0;
  const char *C = PyUnicode_AsUTF8AndSize(S.get(), &N);
  if (!C) {
    PyErr_Clear();
    return "";
  }
  return std::string(C, N);
}

std::string utf8(PyObject *S) {
  Py_ssize_t N = 0;
  const char *C = PyUnicode_AsUTF8AndSize(S, &N);
  if (!C)
    throw PythonError{};
  return std::string(C, N);
}

std::string typeName(PyObject *O) {
  Ref T = Ref::borrow(reinterpret_cast<PyObject *>(Py_TYPE(O)));
  Ref N(PyObject_GetAttrString(T.get(), "__qualname__"));
  if (!N) {
    PyErr_Clear();
    return "object";
  }
  return str(N.get());
}

Ref getAttr(PyObject *O, const char *Name) {
  return check(PyObject_GetAttrString(O, Name));
}

Ref getAttrOpt(PyObject *O, const char *Name) {
  PyObject *R = PyObject_GetAttrString(O, Name);
  if (!R)
    PyErr_Clear();
  return Ref(R);
}

bool namedTupleFields(PyObject *Class, std::vector<std::string> &Fields) {
  if (!PyType_Check(Class) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject *>(Class), &PyTuple_Type))
    return false;
  Ref F = getAttrOpt(Class, "_fields");
  if (!F || !PyTuple_Check(F.get()))
    return false;
  Fields.clear();
  for (Py_ssize_t K = 0; K < PyTuple_Size(F.get()); ++K) {
    PyObject *N = PyTuple_GetItem(F.get(), K);
    if (!PyUnicode_Check(N))
      return false;
    Fields.push_back(utf8(N));
  }
  return true;
}

static PyObject *errorClass(const char *Name) {
  PyObject *Mod = errorsModule();
  PyObject *C = Mod ? PyObject_GetAttrString(Mod, Name) : nullptr;
  if (!C) {
    PyErr_Clear();
    Py_INCREF(PyExc_RuntimeError);
    return PyExc_RuntimeError;
  }
  return C; // new reference
}

// Raises cls(*args) where args are built by Py_BuildValue(Fmt, ...).
template <typename... A>
static PyObject *raise(const char *Cls, const char *Fmt, A... Args) {
  Ref C(errorClass(Cls));
  Ref ArgsT(Py_BuildValue(Fmt, Args...));
  if (!ArgsT)
    return nullptr;
  Ref E(PyObject_CallObject(C.get(), ArgsT.get()));
  if (E)
    PyErr_SetObject(C.get(), E.get());
  return nullptr;
}

Ref findingsToPython(const std::vector<rt::cpu::san::Finding> &Fs) {
  Ref AccessCls(
      check(PyObject_GetAttrString(errorsModule(), "SanitizerAccess")));
  Ref FindingCls(
      check(PyObject_GetAttrString(errorsModule(), "SanitizerFinding")));
  Ref List(check(PyList_New(0)));
  auto Dims = [](rt::cpu::Dims D) {
    return Py_BuildValue("(III)", D.x, D.y, D.z);
  };
  for (const auto &F : Fs) {
    Ref Accesses(check(PyTuple_New(Py_ssize_t(F.accesses.size()))));
    for (size_t K = 0; K < F.accesses.size(); ++K) {
      const auto &A = F.accesses[K];
      Ref T(check(Dims(A.thread)));
      Ref B = A.known ? Ref(check(Dims(A.block))) : Ref::borrow(Py_None);
      Ref Obj(check(PyObject_CallFunction(AccessCls.get(), "ssiiiOO",
                                          A.op.c_str(), A.file.c_str(), A.line,
                                          A.col, A.endCol, T.get(), B.get())));
      PyTuple_SetItem(Accesses.get(), Py_ssize_t(K), Obj.release());
    }
    Ref Obj(check(PyObject_CallFunction(
        FindingCls.get(), "sssLsO", rt::cpu::san::kindName(F.kind),
        F.kernel.c_str(), F.array.c_str(), (long long)F.index,
        F.message.c_str(), Accesses.get())));
    if (PyList_Append(List.get(), Obj.get()) < 0)
      throw PythonError{};
  }
  return List;
}

namespace {
// errors.<Cls>(Message, File, Line[, Findings]), or for an empty Cls the
// kernel's raise/assert: errors.kernel_exception_class(Exception)(...).
// The class shows the source line(s).
PyObject *raiseKernelError(const std::string &Cls, const std::string &Exception,
                           const char *Message, const std::string &File,
                           int Line, PyObject *Findings) {
  Ref C;
  if (Cls.empty()) {
    Ref Fn(errorClass("kernel_exception_class"));
    C = Ref(PyObject_CallFunction(Fn.get(), "s", Exception.c_str()));
    if (!C)
      return nullptr;
  } else {
    C = Ref(errorClass(Cls.c_str()));
  }
  Ref Args(Findings ? Py_BuildValue("(s,s,i,O)", Message, File.c_str(), Line,
                                    Findings)
                    : Py_BuildValue("(s,s,i)", Message, File.c_str(), Line));
  if (!Args)
    return nullptr;
  Ref Exc(PyObject_CallObject(C.get(), Args.get()));
  if (Exc)
    PyErr_SetObject(C.get(), Exc.get());
  return nullptr;
}

// A CPU launch's fault as the Python exception (with its findings).
PyObject *raiseKernelFault(const rt::cpu::KernelFault &E) {
  using K = rt::cpu::KernelFault::Kind;
  const char *Cls = "KernelError";
  switch (E.kind()) {
  case K::IndexError:
    Cls = "KernelIndexError";
    break;
  case K::ZeroDivision:
    Cls = "KernelZeroDivisionError";
    break;
  case K::ValueError:
    Cls = "KernelValueError";
    break;
  case K::UnboundLocal:
    Cls = "KernelUnboundLocalError";
    break;
  case K::Deadlock:
    Cls = "KernelDeadlockError";
    break;
  case K::Sync:
    Cls = "KernelSyncError";
    break;
  case K::Timeout:
    Cls = "KernelTimeoutError";
    break;
  case K::Recursion:
    Cls = "KernelRecursionError";
    break;
  case K::Race:
    Cls = "KernelRaceError";
    break;
  case K::Uninitialized:
    Cls = "KernelUninitializedReadError";
    break;
  case K::UseAfterFree:
    Cls = "KernelUseAfterFreeError";
    break;
  case K::Interrupted:
    PyErr_SetString(PyExc_KeyboardInterrupt, E.what());
    return nullptr;
  case K::Raised:
  case K::Exception:
    break;
  }
  Ref Findings;
  if (E.findings())
    Findings = findingsToPython(*E.findings());
  return raiseKernelError(E.kind() == K::Exception ? "" : Cls,
                          E.exceptionClass(), E.what(), E.file(), E.line(),
                          Findings.get());
}

// A GPU kernel's error record (runtime/ErrorRecord.h), raised as the CPU
// executor raises the same error.
PyObject *raiseKernelRaised(const rt::KernelRaised &E) {
  return raiseKernelError(E.errorClass(), E.exception(), E.what(), E.file(),
                          E.line(), nullptr);
}
} // namespace

PyObject *translateException() {
  try {
    throw;
  } catch (const PythonError &) {
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_SystemError, "error without exception set");
    return nullptr;
  } catch (const CompileError &E) {
    const SourceLoc &L = E.loc();
    // CompileError(message, file, line, col, end_col, hint)
    return raise(errorKindPythonName(E.kind()), "(s,s,i,i,i,s)",
                 E.message().c_str(), L.file ? L.file->c_str() : "", L.line,
                 L.col, L.endCol, E.hint().c_str());
  } catch (const rt::DriverError &E) {
    const char *Cls = E.isOutOfMemory() ? "CudaOutOfMemoryError"
                      : E.isSticky()    ? "CudaStickyError"
                                        : "CudaDriverError";
    return raise(Cls, "(s,i,s,s)", E.what(), int(E.code()), E.name().c_str(),
                 E.call().c_str());
  } catch (const rt::NvrtcError &E) {
    return raise("NvrtcError", "(s,s,i,i,i,s)", E.what(), "", -1, -1, -1,
                 "fix the CUDA C++ code linked with link= (cuda.CUSource or a "
                 ".cu file)");
  } catch (const rt::ForeignLinkError &E) {
    return raise("LinkerError", "(s,s,i,i,i,s)", E.what(), "", -1, -1, -1,
                 "check that the linked code defines every cuda.declare_device "
                 "name (extern \"C\", or the mangled name) with the declared "
                 "signature and ABI");
  } catch (const rt::LinkError &E) {
    return raise("BackendError", "(s,s,i,i,i,s)", E.what(), "", -1, -1, -1,
                 "the PTX was rejected by nvJitLink; this is a compiler bug");
  } catch (const BackendUnavailable &E) {
    return raise("CudaSupportError", "(s)", E.what());
  } catch (const rt::LaunchConfigError &E) {
    return raise("LaunchConfigError", "(s)", E.what());
  } catch (const rt::cpu::KernelFault &E) {
    try {
      return raiseKernelFault(E);
    } catch (const PythonError &) {
      return nullptr;
    }
  } catch (const rt::KernelRaised &E) {
    return raiseKernelRaised(E);
  } catch (const PluginLoadError &E) {
    PyErr_SetString(PyExc_ImportError, E.what());
    return nullptr;
  } catch (const HostOutOfMemory &E) {
    PyErr_SetString(PyExc_MemoryError, E.what());
    return nullptr;
  } catch (const std::bad_alloc &) {
    PyErr_NoMemory();
    return nullptr;
  } catch (const std::exception &E) {
    return raise("InternalCompilerError", "(s,s,i,i,i,s)", E.what(), "", -1, -1,
                 -1, "this is a bug in pycuda_jit; please report it");
  } catch (...) {
    PyErr_SetString(PyExc_SystemError, "unknown C++ exception in pycuda_jit");
    return nullptr;
  }
}

} // namespace pcj::py
