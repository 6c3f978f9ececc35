// _core.Allocation (owns device memory, frees it when collected) and
// _core.DeviceArray (a typed, strided view of device memory; the Python
// class pycuda_jit.devicearray.DeviceNDArray derives from it).  The array's
// kernel-argument type is computed once, at construction, so the launch path
// reads it with one pointer load.
#pragma once

#include "Glue.h"

#include "types/Type.h"

#include <cstdint>

namespace pcj::py {

constexpr int kMaxDims = 8;

struct AllocationObject {
  PyObject_HEAD
  uint64_t ptr;
  size_t nbytes;
};

struct DeviceArrayObject {
  PyObject_HEAD
  PyObject *owner; // keeps the memory alive (Allocation or foreign object)
  uint64_t ptr;    // address of element [0, 0, ...]
  int ndim;
  int64_t shape[kMaxDims];
  int64_t strides[kMaxDims]; // bytes
  types::TypeRef type;       // array(dtype, ndim, layout)
  char typestr[8];           // numpy typestr, e.g. "<f4"
};

// Registers the types on the module; false with an exception set on failure.
bool addDeviceArrayTypes(PyObject *Module);
PyTypeObject *deviceArrayType();
bool isDeviceArray(PyObject *O);

// C/F/A from shape and strides (dims of extent 1 do not matter).
types::Layout layoutOf(int NDim, const int64_t *Shape, const int64_t *Strides,
                       int64_t ItemSize);

} // namespace pcj::py
