// Kernel arguments: what type each Python argument has (its fingerprint for
// the specialization cache) and how it is packed into the kernel parameter
// buffer (types/KernelABI.h).
//
//   our DeviceArray            -> its precomputed array type, zero-copy
//   __cuda_array_interface__   -> array type from the interface (CuPy, torch,
//                                 numba, any object), zero-copy; a v3
//                                 "stream" field orders the launch after it;
//                                 on the CPU executor the range must be host
//                                 memory (checked: not GPU memory, mapped);
//                                 torch tensors and CuPy arrays read the same
//                                 through their attributes (ForeignArrays.h)
//   numpy array / __array_interface__ -> on CUDA: copied to the device for
//                                 the launch and back afterwards (numba's
//                                 behaviour), except mapped and managed
//                                 memory (cuda.mapped_array/managed_array),
//                                 used in place; on the CPU: used in place
//   DLPack producer (__dlpack__) -> imported zero-copy for the launch
//   bool / int / float         -> bool / int64 / float64
//   numpy scalar               -> its dtype
//   tuple                      -> tuple of the above
#pragma once

#include "DeviceArray.h"
#include "Glue.h"

#include "runtime/CudaTypes.h"
#include "types/KernelABI.h"

#include <vector>

namespace pcj::py {

struct ArgValue {
  types::TypeRef type = nullptr;
  // arrays
  uint64_t ptr = 0;
  int device = -1; // our device array's device (-1: another kind of array)
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
  // a read-only array (a NumPy array whose flags.writeable is False, an
  // array interface or DLPack tensor marked read-only): never written by a
  // launch (refused where the kernel may write it; a staged copy is not
  // copied back)
  bool readonly = false;
  // a host array staged through device memory (CUDA backend)
  PyObject *host = nullptr; // borrowed: the argument tuple keeps it alive
  uint64_t hostPtr = 0;
  size_t nbytes = 0;
  // a host array the CPU executor uses in place (a GPU launch would stage
  // it unless it is mapped or managed memory: PerfWarnings.h)
  bool hostInPlace = false;
  // a CUDA array interface's stream field (synchronized before the launch)
  bool hasStream = false;
  uint64_t stream = 0;
  // A torch tensor (1) or CuPy array (2) read through its attributes
  // (ForeignArrays.h); with hasStream, its producer's current stream is
  // looked up once per launch for all such arguments (`stream` is unused).
  uint8_t foreign = 0;
  PyObject *object = nullptr; // borrowed: the argument tuple keeps it alive
  // keeps imported (DLPack) memory alive for the launch
  Ref keep;
  // scalars
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
  double fi = 0;               // imaginary part of a complex
  std::vector<ArgValue> elems; // tuples
};

// A launch's argument list.  A thread's outermost launch reuses one vector
// (an ArgValue is ~650 bytes: a fresh list cost each launch an allocation
// outside malloc's small-block cache); a launch made while another runs on
// the thread (a Python callback or array interface launching again) gets
// its own.  Emptied when the launch ends, so that no argument's keep-alive
// reference outlives it.  GIL held throughout.
class LaunchArgList {
public:
  explicit LaunchArgList(size_t N);
  ~LaunchArgList();
  LaunchArgList(const LaunchArgList &) = delete;
  LaunchArgList &operator=(const LaunchArgList &) = delete;
  std::vector<ArgValue> &values() { return *Vals; }

private:
  std::vector<ArgValue> Own;
  std::vector<ArgValue> *Vals;
  bool Reused;
};

// Fills Out from a Python argument; throws PythonError (TypeError) for
// values kernels cannot take.  `Index` is the 0-based position, for
// messages; Index 0 starts a new argument list (a torch tensor or CuPy array
// passed several times in one list is read once: ForeignArrays.h).
void classifyArg(PyObject *O, int Index, ArgValue &Out);

// Raises DeviceMismatchError when an array of Args (our device arrays,
// tuples searched) lives on another device than Device, the launch's.
void checkArgDevices(const std::vector<ArgValue> &Args, int Device);

// Orders work on Stream after every CUDA-array-interface stream field in
// Args (the protocol's synchronization; CUDA backend).
void syncArgStreams(const std::vector<ArgValue> &Args, rt::CUstream Stream);

// Writes the flattened parameters of `Args` (converted to `ParamTypes`, the
// specialization's signature) into Buf at Offsets; Params[i] points at
// kernel parameter i (a slot, or the first byte of an aggregate).
void packArgs(const std::vector<types::AbiSlot> &Slots,
              const std::vector<size_t> &Offsets,
              const std::vector<types::TypeRef> &ParamTypes,
              const std::vector<ArgValue> &Args, char *Buf, void **Params);

} // namespace pcj::py
