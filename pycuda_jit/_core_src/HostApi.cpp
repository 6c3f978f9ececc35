// Host API module functions (see HostApi.h).
#include "HostApi.h"

#include "types/BFloat16.h"

#include "DLPack.h"
#include "DeviceArray.h"
#include "PyExecutor.h"
#include "Streams.h"

#include "runtime/Device.h"
#include "runtime/Launch.h"
#include "runtime/Memory.h"
#include "runtime/Stream.h"
#include "runtime/StridedCopy.h"
#include "runtime/cpu/GridRunner.h"

#include <cstring>
#include <unistd.h>

namespace pcj::py {

namespace {

// device_info(ordinal) -> dict: name, total_memory, compute_capability and
// the CU_DEVICE_ATTRIBUTE_* values of PCJ_DEVICE_ATTRS.
// With gpu=True the driver's device even when the CPU executor is the
// backend (cuda.detect()).
PyObject *pyDeviceInfo(PyObject *, PyObject *Args) {
  return guard([&]() -> PyObject * {
    int Ordinal = 0, Gpu = 0;
    if (!PyArg_ParseTuple(Args, "|ip", &Ordinal, &Gpu))
      return nullptr;
    Ref D(PyDict_New());
    auto Set = [&](const char *K, PyObject *V) {
      Ref Owned(V);
      if (!V || PyDict_SetItemString(D.get(), K, V) < 0)
        throw PythonError{};
    };
    // The CPU executor's pseudo device, or the GPU's description.
    const rt::DeviceInfo I =
        Gpu ? rt::deviceInfo(Ordinal) : backendDeviceInfo(Ordinal);
    Set("name", PyUnicode_FromString(I.Name.c_str()));
    Set("total_memory", PyLong_FromSize_t(I.TotalMemory));
    Set("compute_capability", Py_BuildValue("(ii)", I.ComputeCapabilityMajor,
                                            I.ComputeCapabilityMinor));
#define PCJ_X(Field, Attr) Set(#Attr, PyLong_FromLong(I.Field));
    PCJ_DEVICE_ATTRS(PCJ_X)
#undef PCJ_X
    return D.release();
  });
}

// device_attribute(ordinal, "MAX_THREADS_PER_BLOCK") -> int (AttributeError
// for a name that is not a device attribute).
PyObject *pyDeviceAttribute(PyObject *, PyObject *Args) {
  return guard([&]() -> PyObject * {
    int Ordinal;
    const char *Name;
    if (!PyArg_ParseTuple(Args, "is", &Ordinal, &Name))
      return nullptr;
    long V = 0;
    if (!executor().deviceAttribute(Ordinal, Name, V)) {
      PyErr_Format(PyExc_AttributeError, "the device has no attribute '%s'",
                   Name);
      return nullptr;
    }
    return PyLong_FromLong(V);
  });
}

// device_count() -> GPUs the driver sees (the CPU executor's virtual devices
// when it is the backend, PYCUDA_JIT_CPU_DEVICES, default 1);
// cuda_device_count() -> GPUs only (0 without a driver).
PyObject *pyDeviceCount(PyObject *, PyObject *) {
  return guard(
      [&]() -> PyObject * { return PyLong_FromLong(backendDeviceCount()); });
}

PyObject *pyCudaDeviceCount(PyObject *, PyObject *) {
  return guard(
      [&]() -> PyObject * { return PyLong_FromLong(rt::deviceCount()); });
}

PyObject *pySelectDevice(PyObject *, PyObject *Arg) {
  return guard([&]() -> PyObject * {
    long Ordinal = PyLong_AsLong(Arg);
    if (Ordinal == -1 && PyErr_Occurred())
      return nullptr;
    backendSelectDevice(Ordinal);
    Py_RETURN_NONE;
  });
}

PyObject *pyCurrentDevice(PyObject *, PyObject *) {
  return guard(
      [&]() -> PyObject * { return PyLong_FromLong(backendCurrentDevice()); });
}

// close(): destroys every context we created (after a sticky error, this is
// what makes the next call work); modules, memory, streams and events of the
// old contexts are invalid afterwards and reported as such.
PyObject *pyClose(PyObject *, PyObject *) {
  return guard([&]() -> PyObject * {
    executor().closeContexts();
    Py_RETURN_NONE;
  });
}

// profile_start() / profile_stop(): cuProfilerStart/Stop on the current
// device; nothing on the CPU executor (there is no CUDA profiler to tell).
PyObject *pyProfileStart(PyObject *, PyObject *) {
  return guard([&]() -> PyObject * {
    executor().profilerStart();
    Py_RETURN_NONE;
  });
}

PyObject *pyProfileStop(PyObject *, PyObject *) {
  return guard([&]() -> PyObject * {
    executor().profilerStop();
    Py_RETURN_NONE;
  });
}

// malloc_heap_size() / set_malloc_heap_size(n): the heap of arrays made in
// kernels (rt::Executor::mallocHeapSize).
PyObject *pyMallocHeapSize(PyObject *, PyObject *) {
  return guard([&]() -> PyObject * {
    return PyLong_FromSize_t(executor().mallocHeapSize());
  });
}

PyObject *pySetMallocHeapSize(PyObject *, PyObject *Arg) {
  return guard([&]() -> PyObject * {
    size_t N = PyLong_AsSize_t(Arg);
    if (N == size_t(-1) && PyErr_Occurred())
      return nullptr;
    executor().setMallocHeapSize(N);
    Py_RETURN_NONE;
  });
}

// mem_info() -> (free, total) bytes of the current device (of the host on
// the CPU executor).
PyObject *pyResetDevice(PyObject *, PyObject *Arg) {
  return guard([&]() -> PyObject * {
    long Ordinal = PyLong_AsLong(Arg);
    if (Ordinal == -1 && PyErr_Occurred())
      return nullptr;
    executor().resetDevice(int(Ordinal));
    Py_RETURN_NONE;
  });
}

PyObject *pyMemInfo(PyObject *, PyObject *) {
  return guard([&]() -> PyObject * {
    rt::Executor::MemoryInfo M = executor().memoryInfo();
    return Py_BuildValue("(KK)", (unsigned long long)M.free,
                         (unsigned long long)M.total);
  });
}

PyObject *pyMemoryStats(PyObject *, PyObject *) {
  return guard([&]() -> PyObject * {
    MemoryStats S = memoryStats();
    rt::DeferredFreeStats Q = rt::deferredFreeStats();
    return Py_BuildValue(
        "{s:L,s:L,s:K,s:K,s:L,s:L,s:n,s:n,s:K,s:K,s:K,s:K}", "live_allocations",
        (long long)S.liveAllocations, "live_bytes", (long long)S.liveBytes,
        "total_allocations", (unsigned long long)S.totalAllocations,
        "total_releases", (unsigned long long)S.totalReleases,
        "live_host_allocations", (long long)S.liveHostAllocations,
        "live_host_bytes", (long long)S.liveHostBytes, "pending_frees",
        Py_ssize_t(Q.PendingCount), "pending_bytes", Py_ssize_t(Q.PendingBytes),
        "flushes", (unsigned long long)Q.Flushes, "freed_by_flushes",
        (unsigned long long)Q.Freed, "oom_retries",
        (unsigned long long)Q.OomRetries, "staged_arguments",
        (unsigned long long)S.stagedArguments);
  });
}

// set_deallocation_limits(max_count, max_bytes): max_bytes 0 = a fifth of
// the device's memory.
PyObject *pySetDeallocLimits(PyObject *, PyObject *Args) {
  return guard([&]() -> PyObject * {
    Py_ssize_t Count, Bytes;
    if (!PyArg_ParseTuple(Args, "nn", &Count, &Bytes))
      return nullptr;
    if (Count < 0 || Bytes < 0) {
      PyErr_SetString(PyExc_ValueError, "limits must be >= 0");
      return nullptr;
    }
    rt::setDeferredFreeLimits(size_t(Count), size_t(Bytes));
    Py_RETURN_NONE;
  });
}

PyObject *pyDeferCleanup(PyObject *, PyObject *Arg) {
  return guard([&]() -> PyObject * {
    rt::deferCleanup(PyObject_IsTrue(Arg) == 1);
    Py_RETURN_NONE;
  });
}

PyObject *pyFlushDeallocations(PyObject *, PyObject *) {
  return guard([&]() -> PyObject * {
    executor().flushDeferredFrees();
    Py_RETURN_NONE;
  });
}

// ---- interop
// ------------------------------------------------------------------------

// The memory span of a host array (its __array_interface__).
void hostSpan(PyObject *Ary, uint64_t &Low, uint64_t &Bytes, const char *What) {
  Ref AI = getAttrOpt(Ary, "__array_interface__");
  if (!AI) {
    PyErr_Format(PyExc_TypeError, "%s: expected a numpy array, got %s", What,
                 typeName(Ary).c_str());
    throw PythonError{};
  }
  InterfaceView V;
  readInterface(AI.get(), V, What, Ary);
  rt::StridedRegion R{V.ptr, V.ndim, V.shape, V.strides, false};
  Low = rt::regionLowest(R);
  Bytes = rt::regionSpan(R, size_t(V.itemsize));
}

// host_register(ary) -> the address registered (for host_unregister).
PyObject *pyHostRegister(PyObject *, PyObject *Ary) {
  return guard([&]() -> PyObject * {
    uint64_t Low, Bytes;
    hostSpan(Ary, Low, Bytes, "pinned");
    if (Bytes)
      pinHostRange(reinterpret_cast<void *>(Low), Bytes);
    return PyLong_FromUnsignedLongLong(Bytes ? Low : 0);
  });
}

PyObject *pyHostUnregister(PyObject *, PyObject *Arg) {
  return guard([&]() -> PyObject * {
    unsigned long long P = PyLong_AsUnsignedLongLong(Arg);
    if (PyErr_Occurred())
      return nullptr;
    if (P)
      unpinHostRange(reinterpret_cast<void *>(P));
    Py_RETURN_NONE;
  });
}

// cai_import(obj, sync=True) -> (ptr, shape, strides, typestr, stream):
// reads obj's __cuda_array_interface__ (or obj itself when it is the dict);
// with sync, waits for the stream it names (the protocol's consumer duty).
PyObject *pyCaiImport(PyObject *, PyObject *Args) {
  return guard([&]() -> PyObject * {
    PyObject *Obj;
    int Sync = 1;
    if (!PyArg_ParseTuple(Args, "O|p", &Obj, &Sync))
      return nullptr;
    Ref CAI = PyDict_Check(Obj) ? Ref::borrow(Obj)
                                : getAttrOpt(Obj, "__cuda_array_interface__");
    if (!CAI) {
      PyErr_Format(
          PyExc_TypeError,
          "as_cuda_array: %s does not implement __cuda_array_interface__",
          typeName(Obj).c_str());
      return nullptr;
    }
    InterfaceView V;
    readInterface(CAI.get(), V, "as_cuda_array", Obj);
    rt::Executor &E = executor();
    if (E.deviceMemoryIsHost)
      requireHostAccess(V, "as_cuda_array(" + typeName(Obj) + ")");
    if (Sync && V.hasStream && interfaceStreamSync())
      E.synchronizeStream(E.streamOfHandle(V.stream)); // CPU: nothing
    Ref Shape(PyTuple_New(V.ndim)), Strides(PyTuple_New(V.ndim));
    for (int K = 0; K < V.ndim; ++K) {
      PyTuple_SetItem(Shape.get(), K, PyLong_FromLongLong(V.shape[K]));
      PyTuple_SetItem(Strides.get(), K, PyLong_FromLongLong(V.strides[K]));
    }
    Ref Stream = V.hasStream ? Ref(PyLong_FromUnsignedLongLong(V.stream))
                             : Ref::borrow(Py_None);
    // bfloat16 (an ml_dtypes array's '<V2') goes back under our name for it
    const char *Typestr =
        V.dtype == types::bfloat16Ty() ? kBfloat16Typestr : V.typestr.c_str();
    return Py_BuildValue("(KOOsO)", (unsigned long long)V.ptr, Shape.get(),
                         Strides.get(), Typestr, Stream.get());
  });
}

// ---- CUDA IPC
// -----------------------------------------------------------------------

// ipc_handle(ptr) -> (bytes, base): the IPC handle of the allocation that
// contains ptr, and where that allocation starts (the executor's; the CPU
// executor refuses IPC: CudaSupportError).
PyObject *pyIpcHandle(PyObject *, PyObject *Arg) {
  return guard([&]() -> PyObject * {
    unsigned long long P = PyLong_AsUnsignedLongLong(Arg);
    if (PyErr_Occurred())
      return nullptr;
    uint64_t Base = 0;
    rt::CUipcMemHandle H = executor().ipcHandle(P, Base);
    return Py_BuildValue("(y#K)", H.reserved, Py_ssize_t(sizeof H.reserved),
                         static_cast<unsigned long long>(Base));
  });
}

// ipc_open(handle: bytes) -> the address where it is mapped in the current
// context; ipc_close(address) unmaps it.
PyObject *pyIpcOpen(PyObject *, PyObject *Arg) {
  return guard([&]() -> PyObject * {
    char *Data = nullptr;
    Py_ssize_t Len = 0;
    if (PyBytes_AsStringAndSize(Arg, &Data, &Len) < 0)
      return nullptr;
    rt::CUipcMemHandle H{};
    if (Len != Py_ssize_t(sizeof H.reserved)) {
      PyErr_Format(PyExc_ValueError, "an IPC handle has %zu bytes, not %zd",
                   sizeof H.reserved, Len);
      return nullptr;
    }
    std::memcpy(H.reserved, Data, sizeof H.reserved);
    return PyLong_FromUnsignedLongLong(executor().openIpc(H));
  });
}

PyObject *pyIpcClose(PyObject *, PyObject *Arg) {
  return guard([&]() -> PyObject * {
    unsigned long long P = PyLong_AsUnsignedLongLong(Arg);
    if (PyErr_Occurred())
      return nullptr;
    executor().closeIpc(P);
    Py_RETURN_NONE;
  });
}

PyMethodDef Methods[] = {
    {"ipc_handle", pyIpcHandle, METH_O, nullptr},
    {"ipc_open", pyIpcOpen, METH_O, nullptr},
    {"ipc_close", pyIpcClose, METH_O, nullptr},
    {"device_info", pyDeviceInfo, METH_VARARGS, nullptr},
    {"device_attribute", pyDeviceAttribute, METH_VARARGS, nullptr},
    {"device_count", pyDeviceCount, METH_NOARGS, nullptr},
    {"cuda_device_count", pyCudaDeviceCount, METH_NOARGS, nullptr},
    {"select_device", pySelectDevice, METH_O, nullptr},
    {"current_device", pyCurrentDevice, METH_NOARGS, nullptr},
    {"close", pyClose, METH_NOARGS, nullptr},
    {"profile_start", pyProfileStart, METH_NOARGS, nullptr},
    {"malloc_heap_size", pyMallocHeapSize, METH_NOARGS, nullptr},
    {"set_malloc_heap_size", pySetMallocHeapSize, METH_O, nullptr},
    {"profile_stop", pyProfileStop, METH_NOARGS, nullptr},
    {"reset_device", pyResetDevice, METH_O, nullptr},
    {"mem_info", pyMemInfo, METH_NOARGS, nullptr},
    {"memory_stats", pyMemoryStats, METH_NOARGS, nullptr},
    {"set_deallocation_limits", pySetDeallocLimits, METH_VARARGS, nullptr},
    {"defer_cleanup", pyDeferCleanup, METH_O, nullptr},
    {"flush_deallocations", pyFlushDeallocations, METH_NOARGS, nullptr},
    {"host_register", pyHostRegister, METH_O, nullptr},
    {"host_unregister", pyHostUnregister, METH_O, nullptr},
    {"cai_import", pyCaiImport, METH_VARARGS, nullptr},
    {"from_dlpack", pyFromDlpack, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

} // namespace

PyMethodDef *hostApiMethods() { return Methods; }

} // namespace pcj::py
