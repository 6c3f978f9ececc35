// DLPack: device arrays as DLPack producers (__dlpack__, __dlpack_device__)
// and consumers (from_dlpack, and DLPack producers as kernel arguments).
//
// The structs are those of dlpack.h v1.0 (DLManagedTensor and
// DLManagedTensorVersioned), declared here so no header is needed.  Export
// gives a "dltensor_versioned" capsule when the consumer asks for
// max_version >= (1, 0), else a legacy "dltensor" capsule; the tensor keeps
// the array alive until the consumer calls its deleter.  Import accepts both
// capsule kinds, CUDA (and CUDA managed) tensors on the CUDA backend and CPU
// tensors on the CPU executor; the imported memory is kept alive by a
// _core.DLPackOwner that calls the producer's deleter when collected.
#pragma once

#include "DeviceArray.h"
#include "Glue.h"

namespace pcj::py {

bool addDLPackTypes(PyObject *Module);

// DeviceArray.__dlpack__(*, stream=None, max_version=None, dl_device=None,
// copy=None) and __dlpack_device__().
PyObject *deviceArrayDlpack(PyObject *Self, PyObject *Args, PyObject *Kw);
PyObject *deviceArrayDlpackDevice(PyObject *Self, PyObject *);

// What an imported tensor is: its memory (ptr, shape, byte strides, numpy
// typestr) and the object that keeps it alive.
struct ImportedTensor {
  InterfaceView view;
  Ref owner;
};

// Imports obj (a DLPack producer) zero-copy; What names it in messages.
// Throws PythonError (TypeError / BufferError).
void importDlpack(PyObject *Obj, ImportedTensor &Out, const std::string &What);

// _core.from_dlpack(obj) -> (owner, ptr, shape, strides, typestr)
PyObject *pyFromDlpack(PyObject *, PyObject *Obj);

} // namespace pcj::py
