// _core.Allocation (owns device memory, releases it when collected),
// _core.HostAllocation (pinned / mapped / managed host memory, seen by numpy
// through __array_interface__) and _core.DeviceArray (a typed, strided view
// of device memory; the Python class pycuda_jit.devicearray.DeviceNDArray
// derives from it).  The array's kernel-argument type is computed once, at
// construction, so the launch path reads it with one pointer load.
//
// DeviceArray does the work of the numba-style array API in C++: indexing
// and slicing into views (_index), reshape (_reshape), contiguity,
// __cuda_array_interface__, DLPack export (DLPack.cpp), and strided copies
// to and from host arrays and other device arrays (_copy_to_host,
// _copy_from_host, _copy_from_device).  The Python subclass adds dtype
// objects and numpy array creation.
#pragma once

#include "Glue.h"
#include "PyExecutor.h"

#include "types/Type.h"

#include <cstdint>

namespace pcj::py {

constexpr int kMaxDims = 8;

struct AllocationObject {
  PyObject_HEAD uint64_t ptr;
  size_t nbytes;
  int device;
  uint64_t gen; // context generation (0 on the CPU)
  bool managed;
};

struct HostAllocationObject {
  PyObject_HEAD HostBlock block;
};

struct DeviceArrayObject {
  PyObject_HEAD PyObject
      *owner;   // keeps the memory alive (Allocation or foreign object)
  uint64_t ptr; // address of element [0, 0, ...]
  int ndim;
  int64_t shape[kMaxDims];
  int64_t strides[kMaxDims]; // bytes
  types::TypeRef type;       // array(dtype, ndim, layout)
  char typestr[8];           // numpy typestr, e.g. "<f4"
  int64_t itemsize;
  PyObject *stream; // the array's stream (nullptr: the default stream, 0)
  int device;       // of the owning Allocation; -1: not ours (not checked)
  uint64_t gen;     // its context generation; 0: not ours, not checked
};

// Registers the types on the module; false with an exception set on failure.
bool addDeviceArrayTypes(PyObject *Module);
PyTypeObject *deviceArrayType();
bool isDeviceArray(PyObject *O);

// C/F/A from shape and strides (dims of extent 1 do not matter).
types::Layout layoutOf(int NDim, const int64_t *Shape, const int64_t *Strides,
                       int64_t ItemSize);
// numpy's C_CONTIGUOUS / F_CONTIGUOUS flags (arrays of <= 1 element are both).
bool isContiguous(const DeviceArrayObject *D, bool COrder);

// A region describing an array interface dict (__array_interface__ or
// __cuda_array_interface__): pointer, shape, byte strides (computed for
// C order when absent), typestr, readonly flag, and for v3 CUDA interfaces
// the stream field (HasStream false when absent or None).
struct InterfaceView {
  uint64_t ptr = 0;
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
  std::string typestr;
  types::TypeRef dtype = nullptr; // scalar or record element type
  int64_t itemsize = 0;
  bool readonly = false;
  bool hasStream = false;
  uint64_t stream = 0;
};
// The element type of an array interface: a scalar typestr ("<f4"), or a
// structured dtype ("|V<n>") that `Descr` describes (numpy's dtype.descr: a
// list of (name, typestr) pairs, '' names for padding).  nullptr with Why
// set when kernels cannot use it.  kBfloat16Typestr (not a NumPy typestr:
// NumPy has no bfloat16) names bfloat16 between our Python and C++ parts
// (DeviceNDArray of an ml_dtypes dtype, DLPack bfloat16 tensors).
inline constexpr const char *kBfloat16Typestr = "bfloat16";
types::TypeRef elementTypeOf(const std::string &Typestr, PyObject *Descr,
                             std::string &Why);
// numpy's dtype.descr for a record type (new reference; nullptr on error).
PyObject *descrOf(types::TypeRef Record);

// Reads an interface dict; throws PythonError (TypeError / ValueError) with
// What naming the value in messages.
// Owner: the object the interface came from; an ml_dtypes bfloat16 array
// (typestr '<V2', its dtype named "bfloat16") is read as bfloat16.
void readInterface(PyObject *Dict, InterfaceView &Out, const std::string &What,
                   PyObject *Owner = nullptr);
// On the CPU executor, where "device" memory is host memory: raises
// ValueError naming What unless V's whole range is host memory the CPU can
// use in place (not GPU memory, not null, mapped).
void requireHostAccess(const InterfaceView &V, const std::string &What);

// Whether launches and as_cuda_array wait on an interface's stream field:
// PYCUDA_JIT_CUDA_ARRAY_INTERFACE_SYNC, read once (numba's switch).
bool interfaceStreamSync();

} // namespace pcj::py
