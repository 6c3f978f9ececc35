// The array interface side of DeviceArray.h: element types from a
// typestr/descr and back (records included), layouts, reading a
// __cuda_array_interface__ / __array_interface__ dict.
#include "DeviceArray.h"

#include "types/BFloat16.h"

#include "runtime/Memory.h"
#include "support/Diagnostics.h"
#include "support/Env.h"

#include <cstring>

namespace pcj::py {

namespace {
// The record a dtype.descr list describes; Size 0: as large as its fields
// and padding (a nested structure's descr).
types::TypeRef recordOfDescr(PyObject *Descr, uint64_t Size, std::string &Why) {
  std::vector<std::string> Names;
  std::vector<types::TypeRef> Types;
  std::vector<uint64_t> Offsets;
  uint64_t Off = 0;
  unsigned MaxAlign = 1;
  for (Py_ssize_t K = 0; K < PyList_Size(Descr); ++K) {
    PyObject *E = PyList_GetItem(Descr, K);
    if (!PyTuple_Check(E) || PyTuple_Size(E) < 2)
      return nullptr;
    PyObject *Name = PyTuple_GetItem(E, 0), *TS = PyTuple_GetItem(E, 1);
    if (PyTuple_Check(Name) && PyTuple_Size(Name) == 2) // (title, name)
      Name = PyTuple_GetItem(Name, 1);
    if (!PyUnicode_Check(Name))
      return nullptr;
    std::string N = utf8(Name);
    if (PyList_Check(TS)) { // a nested structure: a record inside
      types::TypeRef Inner =
          PyTuple_Size(E) == 2 ? recordOfDescr(TS, 0, Why) : nullptr;
      if (!Inner) {
        if (PyTuple_Size(E) > 2)
          Why = "structured dtypes with arrays of nested structures (field '" +
                N + "') are not supported in kernels";
        return nullptr;
      }
      Names.push_back(N);
      Types.push_back(Inner);
      Offsets.push_back(Off);
      Off += Inner->byteSize();
      MaxAlign = std::max(MaxAlign, Inner->recordAlign());
      continue;
    }
    if (!PyUnicode_Check(TS))
      return nullptr;
    std::string FieldTS = utf8(TS);
    if (N.empty() && FieldTS.compare(0, 2, "|V") == 0) { // padding
      Off += std::strtoull(FieldTS.c_str() + 2, nullptr, 10);
      continue;
    }
    types::TypeRef FT = types::scalarFromTypestr(FieldTS);
    if (!FT) {
      Why = "field '" + N + "' of dtype '" + FieldTS +
            "' cannot be used in kernels";
      return nullptr;
    }
    MaxAlign = std::max(MaxAlign, types::scalarAlign(FT));
    if (PyTuple_Size(E) > 2) { // a subarray field: (name, typestr, shape)
      PyObject *Shape = PyTuple_GetItem(E, 2);
      std::vector<uint64_t> Dims;
      for (Py_ssize_t D = 0; PyTuple_Check(Shape) && D < PyTuple_Size(Shape);
           ++D) {
        long long X = PyLong_AsLongLong(PyTuple_GetItem(Shape, D));
        if (X < 0) {
          PyErr_Clear();
          Dims.clear();
          break;
        }
        Dims.push_back(uint64_t(X));
      }
      if (!PyTuple_Check(Shape) || Dims.empty() || Dims.size() > kMaxDims) {
        Why = "array field '" + N + "' with an unreadable shape";
        return nullptr;
      }
      FT = types::nestedArrayTy(FT, Dims);
    }
    Names.push_back(N);
    Types.push_back(FT);
    Offsets.push_back(Off);
    Off += FT->byteSize();
  }
  if (!Size)
    Size = Off;
  if (Names.empty() || Off != Size) {
    Why = "a structured dtype of " + std::to_string(Size) +
          " bytes with an unreadable layout";
    return nullptr;
  }
  // Elements of an array sit at multiples of the item size.
  unsigned Align = MaxAlign;
  while (Size % Align)
    Align /= 2;
  return types::recordTy(Names, Types, Offsets, unsigned(Size), Align);
}
} // namespace

types::TypeRef elementTypeOf(const std::string &Typestr, PyObject *Descr,
                             std::string &Why) {
  if (Typestr == kBfloat16Typestr)
    return types::bfloat16Ty();
  if (types::TypeRef T = types::scalarFromTypestr(Typestr))
    return T;
  Why = "arrays of dtype '" + Typestr + "' are not supported";
  if (Typestr.size() < 3 || Typestr.compare(0, 2, "|V") != 0 || !Descr ||
      !PyList_Check(Descr))
    return nullptr;
  uint64_t Size = std::strtoull(Typestr.c_str() + 2, nullptr, 10);
  return Size ? recordOfDescr(Descr, Size, Why) : nullptr;
}

PyObject *descrOf(types::TypeRef R) {
  Ref L(PyList_New(0));
  if (!L)
    return nullptr;
  uint64_t Off = 0;
  auto Add = [&](const std::string &Name, const std::string &TS) {
    Ref T(Py_BuildValue("(ss)", Name.c_str(), TS.c_str()));
    return T && PyList_Append(L.get(), T.get()) == 0;
  };
  auto Pad = [&](uint64_t To) {
    return To <= Off || Add("", "|V" + std::to_string(To - Off));
  };
  auto AddArray = [&](const std::string &Name, types::TypeRef Nested) {
    Ref Shape(PyTuple_New(Py_ssize_t(Nested->ndim())));
    for (unsigned D = 0; Shape && D < Nested->ndim(); ++D)
      PyTuple_SetItem(Shape.get(), D,
                      PyLong_FromUnsignedLongLong(Nested->shape()[D]));
    Ref T(Shape ? Py_BuildValue("(ssO)", Name.c_str(),
                                types::typestrOf(Nested->dtype()).c_str(),
                                Shape.get())
                : nullptr);
    return T && PyList_Append(L.get(), T.get()) == 0;
  };
  auto AddRecord = [&](const std::string &Name, types::TypeRef Inner) {
    Ref D(descrOf(Inner));
    Ref T(D ? Py_BuildValue("(sO)", Name.c_str(), D.get()) : nullptr);
    return T && PyList_Append(L.get(), T.get()) == 0;
  };
  for (size_t K = 0; K < R->elems().size(); ++K) {
    types::TypeRef F = R->elems()[K];
    const std::string &Name = R->fields()[K];
    if (!Pad(R->offsets()[K]) ||
        !(F->kind() == types::Kind::NestedArray ? AddArray(Name, F)
          : F->kind() == types::Kind::Record    ? AddRecord(Name, F)
                                             : Add(Name, types::typestrOf(F))))
      return nullptr;
    Off = R->offsets()[K] + F->byteSize();
  }
  if (!Pad(R->byteSize()))
    return nullptr;
  return L.release();
}

types::Layout layoutOf(int NDim, const int64_t *Shape, const int64_t *Strides,
                       int64_t ItemSize) {
  auto Contig = [&](bool C) {
    int64_t Expect = ItemSize;
    for (int K = 0; K < NDim; ++K) {
      int D = C ? NDim - 1 - K : K;
      if (Shape[D] == 1)
        continue;
      if (Strides[D] != Expect)
        return false;
      Expect *= Shape[D];
    }
    return true;
  };
  if (Contig(true))
    return types::Layout::C;
  if (Contig(false))
    return types::Layout::F;
  return types::Layout::A;
}

// ml_dtypes' bfloat16 (a NumPy dtype named so, 2 bytes) or torch.bfloat16
// (torch's interface says '<V2' for it, as ml_dtypes does).
bool isBfloat16Dtype(PyObject *Dtype) {
  if (str(Dtype) == "torch.bfloat16")
    return true;
  Ref Name(PyObject_GetAttrString(Dtype, "name"));
  Ref Size(Name ? PyObject_GetAttrString(Dtype, "itemsize") : nullptr);
  if (!Size) {
    PyErr_Clear();
    return false;
  }
  long Bytes = PyLong_AsLong(Size.get());
  if (Bytes == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return Bytes == 2 && PyUnicode_Check(Name.get()) &&
         utf8(Name.get()) == "bfloat16";
}

void readInterface(PyObject *Dict, InterfaceView &Out, const std::string &What,
                   PyObject *Owner) {
  auto Fail = [&](PyObject *Exc, const std::string &Msg) {
    PyErr_SetString(Exc, (What + ": " + Msg).c_str());
    throw PythonError{};
  };
  if (!PyDict_Check(Dict))
    Fail(PyExc_TypeError, "the array interface is not a dict");
  PyObject *Shape = PyDict_GetItemString(Dict, "shape");
  PyObject *Typestr = PyDict_GetItemString(Dict, "typestr");
  PyObject *Data = PyDict_GetItemString(Dict, "data");
  PyObject *Strides = PyDict_GetItemString(Dict, "strides");
  PyObject *Stream = PyDict_GetItemString(Dict, "stream");
  if (!Shape || !Typestr || !Data || !PyTuple_Check(Shape))
    Fail(PyExc_TypeError, "malformed array interface");
  if (PyDict_GetItemString(Dict, "mask") &&
      PyDict_GetItemString(Dict, "mask") != Py_None)
    Fail(PyExc_TypeError, "masked arrays are not supported");
  Out.typestr = utf8(Typestr);
  std::string Why;
  PyObject *Descr = Out.typestr.compare(0, 2, "|V") == 0
                        ? PyDict_GetItemString(Dict, "descr") // borrowed
                        : nullptr;
  types::TypeRef DT = elementTypeOf(Out.typestr, Descr, Why);
  if (!DT && Owner && Out.typestr.size() == 3 &&
      Out.typestr.compare(1, 2, "V2") == 0) {
    // NumPy has no bfloat16: ml_dtypes' arrays say '<V2'; their dtype tells
    Ref Dtype(PyObject_GetAttrString(Owner, "dtype"));
    if (!Dtype)
      PyErr_Clear();
    else if (isBfloat16Dtype(Dtype.get()))
      DT = types::bfloat16Ty();
  }
  if (!DT)
    Fail(PyExc_TypeError, Why);
  Out.dtype = DT;
  Py_ssize_t N = PyTuple_Size(Shape);
  if (N > kMaxDims)
    Fail(PyExc_TypeError, "arrays of more than 8 dimensions are not supported");
  Out.ndim = int(N);
  Out.itemsize = DT->byteSize();
  for (int K = 0; K < Out.ndim; ++K)
    Out.shape[K] = PyLong_AsLongLong(PyTuple_GetItem(Shape, K));
  if (Strides && Strides != Py_None) {
    if (!PyTuple_Check(Strides) || PyTuple_Size(Strides) != N)
      Fail(PyExc_TypeError,
           "the array interface's strides do not match its shape");
    for (int K = 0; K < Out.ndim; ++K)
      Out.strides[K] = PyLong_AsLongLong(PyTuple_GetItem(Strides, K));
  } else {
    int64_t S = Out.itemsize;
    for (int K = Out.ndim - 1; K >= 0; --K) {
      Out.strides[K] = S;
      S *= Out.shape[K];
    }
  }
  if (PyErr_Occurred())
    throw PythonError{};
  if (!PyTuple_Check(Data) || PyTuple_Size(Data) != 2)
    Fail(PyExc_TypeError,
         "array interface 'data' must be a (pointer, readonly) tuple");
  PyObject *P = PyTuple_GetItem(Data, 0);
  Out.ptr = P == Py_None ? 0 : PyLong_AsUnsignedLongLong(P);
  Out.readonly = PyObject_IsTrue(PyTuple_GetItem(Data, 1)) == 1;
  if (PyErr_Occurred())
    throw PythonError{};
  if (Stream && Stream != Py_None) {
    long long V = PyLong_AsLongLong(Stream);
    if (PyErr_Occurred())
      throw PythonError{};
    if (V == 0)
      Fail(PyExc_ValueError,
           "the array interface's stream is 0, which the "
           "protocol disallows (1 is the legacy default stream)");
    Out.hasStream = true;
    Out.stream = uint64_t(V);
  }
}

bool interfaceStreamSync() {
  static const bool Sync = [] {
    const char *S = env::raw(env::Var::CudaArrayInterfaceSync);
    return !S || !*S || std::strcmp(S, "0") != 0;
  }();
  return Sync;
}

void requireHostAccess(const InterfaceView &V, const std::string &What) {
  int64_t Lo = 0, Hi = V.itemsize;
  for (int K = 0; K < V.ndim; ++K) {
    if (V.shape[K] == 0)
      return; // no elements: nothing is read
    int64_t Ext = (V.shape[K] - 1) * V.strides[K];
    (Ext < 0 ? Lo : Hi) += Ext;
  }
  std::string Why =
      rt::hostAccessProblem(V.ptr + uint64_t(Lo), uint64_t(Hi - Lo));
  if (Why.empty())
    return;
  PyErr_Format(PyExc_ValueError,
               "%s: its __cuda_array_interface__ cannot be used by the CPU "
               "executor, which needs host memory: %s",
               What.c_str(), Why.c_str());
  throw PythonError{};
}

} // namespace pcj::py
