// Module-load callbacks of link= code: see ModuleCallbacks.h.
#include "ModuleCallbacks.h"

#include <atomic>

namespace pcj::py {

uint64_t nextModuleId() {
  static std::atomic<uint64_t> Next{1};
  return Next.fetch_add(1, std::memory_order_relaxed);
}

void runModuleSetup(DispatcherObject *D, Specialization &S, int Device) {
  uint64_t Id, Handle;
  {
    std::lock_guard<std::mutex> L(D->st->mu);
    const DeviceFn &F = S.devices[size_t(Device)];
    if (F.setUp)
      return;
    Id = F.moduleId;
    // The CUlibrary on a GPU (a kernel with link= code, its own or its
    // foreign functions', is loaded as one, as numba-cuda does: callbacks
    // call cuLibraryGetGlobal), the CUmodule when the driver
    // JIT-compiled PTX; the load's number on the CPU executor.
    Handle = !F.module             ? Id
             : F.module->library() ? uint64_t(uintptr_t(F.module->library()))
                                   : uint64_t(uintptr_t(F.module->handle()));
  }
  PyObject *Link = D->st->opts.link.get();
  if (Link || !S.foreignFunctions.empty()) {
    // The Python call may let other threads run: S.devices is read again
    // below, under the lock.  S.foreignFunctions is fixed once compiled.
    Ref Foreign(check(PyTuple_New(Py_ssize_t(S.foreignFunctions.size()))));
    for (size_t K = 0; K < S.foreignFunctions.size(); ++K)
      PyTuple_SetItem(Foreign.get(), Py_ssize_t(K),
                      Ref::borrow(S.foreignFunctions[K].get()).release());
    Ref Mod(check(PyImport_ImportModule("pycuda_jit._module_callbacks")));
    Ref Fn = getAttr(Mod.get(), "module_loaded");
    Ref Name(check(PyUnicode_FromString(S.result.kernelName.c_str())));
    check(PyObject_CallFunction(Fn.get(), "OiKKOO", Link ? Link : Py_None,
                                Device, (unsigned long long)Id,
                                (unsigned long long)Handle, Name.get(),
                                Foreign.get()));
  }
  std::lock_guard<std::mutex> L(D->st->mu);
  DeviceFn &F = S.devices[size_t(Device)];
  if (F.moduleId == Id)
    F.setUp = true;
}

} // namespace pcj::py
