// Python face of the CUDA toolkit search (see ToolkitApi.h).
#include "ToolkitApi.h"

#include "Nvtx.h"

#include "runtime/CudaDriver.h"
#include "runtime/NvJitLink.h"
#include "support/Toolkit.h"

namespace pcj::py {

namespace {

bool pieceByName(const std::string &Name, ToolkitPiece &Out) {
  for (ToolkitPiece P : allToolkitPieces())
    if (Name == toolkitPieceName(P)) {
      Out = P;
      return true;
    }
  return false;
}

// set_site_packages([dir, ...]): where NVIDIA's pip wheels may be.
PyObject *pySetSitePackages(PyObject *, PyObject *Arg) {
  return guard([&]() -> PyObject * {
    Ref Seq(
        check(PySequence_Fast(Arg, "set_site_packages expects a list of str")));
    std::vector<std::string> Dirs;
    Py_ssize_t N = PySequence_Size(Seq.get());
    for (Py_ssize_t I = 0; I < N; ++I) {
      Ref Item(check(PySequence_GetItem(Seq.get(), I)));
      Dirs.push_back(utf8(Item.get()));
    }
    setToolkitSitePackages(std::move(Dirs));
    Py_RETURN_NONE;
  });
}

Ref strList(const std::vector<std::string> &Items) {
  Ref L(check(PyList_New(0)));
  for (const std::string &S : Items) {
    Ref O(check(PyUnicode_FromString(S.c_str())));
    PyList_Append(L.get(), O.get());
  }
  return L;
}

// toolkit_report() -> [{piece, path, origin, version, error, env, hint,
//                       candidates}]: what was found where, in search order.
PyObject *pyToolkitReport(PyObject *, PyObject *) {
  return guard([&]() -> PyObject * {
    Ref Out(check(PyList_New(0)));
    for (ToolkitPiece P : allToolkitPieces()) {
      std::string Path, Origin, Version, Error;
      ToolkitSearch S = searchToolkit(P);
      std::vector<std::string> Candidates;
      for (const ToolkitCandidate &C : S.Candidates)
        Candidates.push_back(C.Path + "  [" + C.Origin + "]");
      if (P == ToolkitPiece::NvJitLink) {
        // The library linking uses, as it was loaded.
        const rt::NvJitLink &L = rt::NvJitLink::process();
        Path = L.path();
        Error = L.loadError();
        if (L.versionMajor())
          Version = std::to_string(L.versionMajor()) + "." +
                    std::to_string(L.versionMinor());
        for (const ToolkitCandidate &C : S.Candidates)
          if (C.Path == Path)
            Origin = C.Origin;
      } else if (P == ToolkitPiece::Nvrtc) {
        ToolkitProbe Probe = probeToolkitLibrary(P);
        Path = Probe.Path;
        Origin = Probe.Origin;
        Version = Probe.Version;
        Error = Probe.Error;
      } else {
        Path = findToolkitFile(P, nullptr, &Origin);
      }
      Ref D(check(Py_BuildValue(
          "{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:O}", "piece", toolkitPieceName(P),
          "path", Path.c_str(), "origin", Origin.c_str(), "version",
          Version.c_str(), "error", Error.c_str(), "env", toolkitOverrideEnv(P),
          "hint", toolkitInstallHint(P).c_str(), "candidates",
          strList(Candidates).get())));
      PyList_Append(Out.get(), D.get());
    }
    return Out.release();
  });
}

// toolkit_file(piece) -> path; FileNotFoundError naming every place looked
// at and what to install.
PyObject *pyToolkitFile(PyObject *, PyObject *Args) {
  return guard([&]() -> PyObject * {
    const char *Name;
    if (!PyArg_ParseTuple(Args, "s", &Name))
      return nullptr;
    ToolkitPiece P;
    if (!pieceByName(Name, P)) {
      PyErr_Format(PyExc_ValueError, "unknown CUDA toolkit piece '%s'", Name);
      return nullptr;
    }
    std::vector<std::string> Searched;
    std::string Path = findToolkitFile(P, &Searched);
    if (!Path.empty())
      return PyUnicode_FromString(Path.c_str());
    std::string Msg = std::string(Name) + " was not found; looked in:";
    for (const std::string &S : Searched)
      Msg += "\n  " + S;
    if (!toolkitSystemSearchEnabled())
      Msg += "\n(the system toolkit is not searched: PYCUDA_JIT_SYSTEM_CUDA=0)";
    Msg += "\n" + toolkitInstallHint(P);
    PyErr_SetString(PyExc_FileNotFoundError, Msg.c_str());
    return nullptr;
  });
}

// driver_report() -> {path, loaded, available, version, error}: the CUDA
// driver library as the process loaded it (loading it if not yet).
PyObject *pyDriverReport(PyObject *, PyObject *) {
  return guard([&]() -> PyObject * {
    const rt::CudaDriver &D = rt::CudaDriver::process();
    return Py_BuildValue("{s:s,s:O,s:O,s:i,s:s}", "path", D.path().c_str(),
                         "loaded", D.libraryLoaded() ? Py_True : Py_False,
                         "available", D.available() ? Py_True : Py_False,
                         "version", D.version(), "error",
                         D.loadError().c_str());
  });
}

// nvtx() -> (built in, enabled by PYCUDA_JIT_NVTX=1).
PyObject *pyNvtx(PyObject *, PyObject *) {
  return Py_BuildValue("(OO)", nvtxBuiltIn() ? Py_True : Py_False,
                       nvtxEnabled() ? Py_True : Py_False);
}

PyMethodDef Methods[] = {
    {"nvtx", pyNvtx, METH_NOARGS, "NVTX ranges: (built in, enabled)."},
    {"driver_report", pyDriverReport, METH_NOARGS,
     "The CUDA driver library: where, which version, or why not."},
    {"set_site_packages", pySetSitePackages, METH_O,
     "Directories where NVIDIA's pip wheels may be installed."},
    {"toolkit_report", pyToolkitReport, METH_NOARGS,
     "Every CUDA toolkit piece: where it was found, or why not."},
    {"toolkit_file", pyToolkitFile, METH_VARARGS,
     "The path of a toolkit file (libdevice, nvdisasm, cuobjdump)."},
    {nullptr, nullptr, 0, nullptr}};

} // namespace

PyMethodDef *toolkitMethods() { return Methods; }

} // namespace pcj::py
