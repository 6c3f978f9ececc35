// PyInit__core: the extension module's functions and types.  Everything the
// Python package needs from C++ goes through here; the compiler and the
// runtime know nothing about Python.
#include "ArgView.h"
#include "CodeReader.h"
#include "DLPack.h"
#include "DeviceArray.h"
#include "Dispatcher.h"
#include "Glue.h"
#include "GpuTarget.h"
#include "HostApi.h"
#include "JitOptions.h"
#include "PerfWarnings.h"
#include "PyExecutor.h"
#include "Streams.h"
#include "ToolkitApi.h"
#include "TypeOf.h"

#include "CodegenPlugin.h"
#include "driver/Compile.h"
#include "runtime/Device.h"
#include "runtime/DiskCache.h"
#include "runtime/LoadImage.h"
#include "runtime/NvJitLink.h"
#include "runtime/cpu/Sanitizer.h"
#include "stdlib/Registry.h"
#include "support/Env.h"
#include "types/Signature.h"

namespace pcj::py {

namespace {
PyObject *ErrorsModule = nullptr;

PyObject *pyBackend(PyObject *, PyObject *) {
  return guard([&]() -> PyObject * {
    Backend K = backend();
    return Py_BuildValue("(s,s)", backendName(K),
                         backendFallbackReason().c_str());
  });
}

// ((name, default, meaning), ...): support/Env.def, for the docs and
// pycuda_jit/_env.py.
PyObject *pyEnvVars(PyObject *, PyObject *) {
  return guard([]() -> PyObject * {
    const auto &T = env::table();
    Ref Out = check(PyTuple_New(Py_ssize_t(T.size())));
    for (size_t K = 0; K < T.size(); ++K)
      PyTuple_SetItem(Out.get(), Py_ssize_t(K),
                      check(Py_BuildValue("(sss)", T[K].name, T[K].defaultText,
                                          T[K].meaning))
                          .release());
    return Out.release();
  });
}

PyObject *pyIntrinsicKeys(PyObject *, PyObject *) {
  std::vector<std::string> Keys = stdlib::intrinsicKeys();
  PyObject *L = PyList_New(0);
  for (const std::string &K : Keys) {
    Ref S(PyUnicode_FromString(K.c_str()));
    PyList_Append(L, S.get());
  }
  return L;
}

PyObject *pyBuildId(PyObject *, PyObject *) {
  return PyUnicode_FromString(
      driver::compilerBuildId(driver::frontendBuildId(), codegenPluginBuildId())
          .c_str());
}

// parse_signature(text) -> its canonical text; raises SignatureError.
PyObject *pyParseSignature(PyObject *, PyObject *Arg) {
  return guard([&]() -> PyObject * {
    return PyUnicode_FromString(types::parseSignature(utf8(Arg)).str().c_str());
  });
}

// memcpy_htod(dst: int, src: int, nbytes: int)
PyObject *pyMemcpyHtoD(PyObject *, PyObject *Args) {
  return guard([&]() -> PyObject * {
    unsigned long long Dst, Src;
    Py_ssize_t N;
    if (!PyArg_ParseTuple(Args, "KKn", &Dst, &Src, &N))
      return nullptr;
    copyToDevice(Dst, reinterpret_cast<const void *>(Src), size_t(N));
    Py_RETURN_NONE;
  });
}

PyObject *pyMemcpyDtoH(PyObject *, PyObject *Args) {
  return guard([&]() -> PyObject * {
    unsigned long long Dst, Src;
    Py_ssize_t N;
    if (!PyArg_ParseTuple(Args, "KKn", &Dst, &Src, &N))
      return nullptr;
    copyToHost(reinterpret_cast<void *>(Dst), Src, size_t(N));
    Py_RETURN_NONE;
  });
}

PyObject *pyMemcpyDtoD(PyObject *, PyObject *Args) {
  return guard([&]() -> PyObject * {
    unsigned long long Dst, Src;
    Py_ssize_t N;
    if (!PyArg_ParseTuple(Args, "KKn", &Dst, &Src, &N))
      return nullptr;
    copyDeviceToDevice(Dst, Src, size_t(N));
    Py_RETURN_NONE;
  });
}

PyObject *pyMemset(PyObject *, PyObject *Args) {
  return guard([&]() -> PyObject * {
    unsigned long long Dst;
    int Value;
    Py_ssize_t N;
    if (!PyArg_ParseTuple(Args, "Kin", &Dst, &Value, &N))
      return nullptr;
    deviceMemset(Dst, (unsigned char)Value, size_t(N));
    Py_RETURN_NONE;
  });
}

PyObject *pySynchronize(PyObject *, PyObject *) {
  return guard([&]() -> PyObject * {
    deviceSynchronize();
    Py_RETURN_NONE;
  });
}

// link_ptx(code, cc_major, cc_minor[, lineinfo[, inputs]]) -> bytes (cubin);
// needs nvJitLink, no GPU.  code: PTX text, or LTO-IR bytes
// (compile(output="ltoir")), linked with -lto.  lineinfo: keep the PTX's
// .loc line table (-lineinfo); inputs: [(kind, name, bytes)] more code to
// link (LinkInput).
PyObject *pyLinkPtx(PyObject *, PyObject *Args) {
  return guard([&]() -> PyObject * {
    PyObject *Code;
    int Major, Minor, LineInfo = 0;
    PyObject *Inputs = nullptr;
    if (!PyArg_ParseTuple(Args, "Oii|pO!", &Code, &Major, &Minor, &LineInfo,
                          &PyList_Type, &Inputs))
      return nullptr;
    rt::LinkOptions LO;
    LO.LineInfo = LineInfo != 0;
    std::string PtxText;
    if (PyBytes_Check(Code)) {
      char *Data = nullptr;
      Py_ssize_t Len = 0;
      if (PyBytes_AsStringAndSize(Code, &Data, &Len) < 0)
        return nullptr;
      LO.KernelLtoIr.assign(Data, size_t(Len));
    } else
      PtxText = utf8(Code);
    for (Py_ssize_t K = 0; Inputs && K < PyList_Size(Inputs); ++K) {
      const char *Kind, *Name, *Data;
      Py_ssize_t Len;
      if (!PyArg_ParseTuple(PyList_GetItem(Inputs, K), "ssy#", &Kind, &Name,
                            &Data, &Len))
        return nullptr;
      LO.Inputs.push_back({Kind, Name, std::string(Data, size_t(Len))});
    }
    rt::LoadableImage Img;
    {
      WithoutGil Released; // ptxas runs in nvJitLink: other threads may run
      Img = rt::ptxToLoadable(PtxText, Major, Minor, LO);
    }
    if (!Img.isCubin()) {
      PyErr_Format(PyExc_RuntimeError, "nvJitLink is not available: %s",
                   Img.FallbackReason.c_str());
      return nullptr;
    }
    return PyBytes_FromStringAndSize(Img.Bytes.data(),
                                     Py_ssize_t(Img.Bytes.size()));
  });
}

PyObject *pyCodegenLoaded(PyObject *, PyObject *) {
  return PyBool_FromLong(pcj::py::codegenPluginLoaded());
}

PyObject *pyCacheDir(PyObject *, PyObject *) {
  return PyUnicode_FromString(rt::DiskCache::defaultDir().c_str());
}

// cache_list(dir) -> [ {path, key, bytes, valid, problem, sections, kernel} ]
PyObject *pyCacheList(PyObject *, PyObject *Args) {
  return guard([&]() -> PyObject * {
    const char *Dir;
    if (!PyArg_ParseTuple(Args, "s", &Dir))
      return nullptr;
    Ref L(PyList_New(0));
    for (const rt::CacheFileInfo &I : rt::DiskCache(Dir).list()) {
      Ref Sections(PyList_New(0));
      for (const std::string &S : I.sections) {
        Ref Name(PyUnicode_FromString(S.c_str()));
        PyList_Append(Sections.get(), Name.get());
      }
      Ref D(Py_BuildValue(
          "{s:s,s:s,s:K,s:O,s:s,s:O,s:s}", "path", I.path.c_str(), "key",
          I.key.c_str(), "bytes", (unsigned long long)I.bytes, "valid",
          I.valid ? Py_True : Py_False, "problem", I.problem.c_str(),
          "sections", Sections.get(), "kernel", I.kernel.c_str()));
      PyList_Append(L.get(), D.get());
    }
    return L.release();
  });
}

PyObject *pyCacheClear(PyObject *, PyObject *Args) {
  return guard([&]() -> PyObject * {
    const char *Dir;
    if (!PyArg_ParseTuple(Args, "s", &Dir))
      return nullptr;
    return PyLong_FromSize_t(rt::DiskCache(Dir).clear());
  });
}

// sanitizer_report(clear: bool) -> (findings, dropped): the CPU executor
// sanitizer's findings so far (then forgotten when clear).
PyObject *pySanitizerReport(PyObject *, PyObject *Args) {
  return guard([&]() -> PyObject * {
    int Clear = 0;
    if (!PyArg_ParseTuple(Args, "p", &Clear))
      return nullptr;
    Ref L = findingsToPython(rt::cpu::san::report());
    unsigned long long Dropped = rt::cpu::san::droppedFindings();
    if (Clear)
      rt::cpu::san::clearReport();
    return Py_BuildValue("(OK)", L.get(), Dropped);
  });
}

PyMethodDef Methods[] = {
    {"sanitizer_report", pySanitizerReport, METH_VARARGS,
     "(findings, dropped) of the CPU executor's sanitizer."},
    {"cache_dir", pyCacheDir, METH_NOARGS,
     "The disk cache directory in effect."},
    {"codegen_loaded", pyCodegenLoaded, METH_NOARGS,
     "Whether the code generator (LLVM, libpcj_codegen.so) is loaded."},
    {"cache_list", pyCacheList, METH_VARARGS, "Entries of a cache directory."},
    {"cache_clear", pyCacheClear, METH_VARARGS, "Remove every cache entry."},
    {"performance_warnings", pyPerformanceWarnings, METH_NOARGS,
     "(low_occupancy, implicit_copy): the PerformanceWarning switches."},
    {"set_performance_warnings", pySetPerformanceWarnings, METH_VARARGS,
     "Set the PerformanceWarning switches (low_occupancy, implicit_copy)."},
    {"backend", pyBackend, METH_NOARGS,
     "(name, reason): the executor in use and why auto fell back to the CPU."},
    {"intrinsic_keys", pyIntrinsicKeys, METH_NOARGS, "Registry keys."},
    {"env_vars", pyEnvVars, METH_NOARGS,
     "((name, default, meaning), ...): the environment variables read."},
    {"jit_options", jitOptionTable, METH_NOARGS,
     "((name, default, doc), ...): the options of cuda.jit and compile_ptx."},
    {"build_id", pyBuildId, METH_NOARGS, "Compiler build id."},
    {"gpu_target", pyGpuTarget, METH_VARARGS,
     "(ptx_arch, description, jit, max_ptx_isa) for a compute capability."},
    {"parse_signature", pyParseSignature, METH_O, "Check a signature string."},
    {"type_of", pyTypeOf, METH_O,
     "The kernel type of a value (as an argument), described as Python data."},
    {"arg_view", pyArgView, METH_O,
     "What a launch reads from a value (tests): type, pointer, shape, ..."},
    {"classify_seconds", pyClassifySeconds, METH_VARARGS,
     "Seconds to classify a tuple of arguments `rounds` times (benchmarks)."},
    {"compile_ptx",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(compilePtx)),
     METH_VARARGS | METH_KEYWORDS, "Compile a function to PTX."},
    {"link_ptx", pyLinkPtx, METH_VARARGS, "PTX -> cubin with nvJitLink."},
    {"memcpy_htod", pyMemcpyHtoD, METH_VARARGS, nullptr},
    {"memcpy_dtoh", pyMemcpyDtoH, METH_VARARGS, nullptr},
    {"memcpy_dtod", pyMemcpyDtoD, METH_VARARGS, nullptr},
    {"memset", pyMemset, METH_VARARGS, nullptr},
    {"synchronize", pySynchronize, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef ModuleDef = {PyModuleDef_HEAD_INIT,
                         "_core",
                         "pycuda_jit's compiler and runtime (C++).",
                         -1,
                         Methods,
                         nullptr,
                         nullptr,
                         nullptr,
                         nullptr};

} // namespace

PyObject *errorsModule() { return ErrorsModule; }

} // namespace pcj::py

extern "C" __attribute__((visibility("default"))) PyObject *PyInit__core() {
  using namespace pcj::py;
  PyObject *M = PyModule_Create(&ModuleDef);
  if (!M)
    return nullptr;
  ErrorsModule = PyImport_ImportModule("pycuda_jit.errors");
  if (!ErrorsModule || !addDeviceArrayTypes(M) || !addDispatcherTypes(M) ||
      !addStreamTypes(M) || !addDLPackTypes(M) ||
      PyModule_AddFunctions(M, hostApiMethods()) < 0 ||
      PyModule_AddFunctions(M, toolkitMethods()) < 0) {
    Py_DECREF(M);
    return nullptr;
  }
  return M;
}
