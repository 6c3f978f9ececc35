// Typing rules for array attributes (registry/array.def).
#include "stdlib/typing/CudaHelpers.h"

#include "stdlib/typing/CudaHelpers.h"

namespace pcj::stdlib::rules {

TypingResult typeArrayAttr(const TypingRequest &R) {
  TypeRef A = R.args[0].type;
  switch (R.info.idata) {
  case 0:
  case 1:
    return {tupleTy(std::vector<TypeRef>(A->ndim(), int64Ty()))};
  default:
    return {int64Ty()};
  }
}

TypingResult typeArrayDtype(const TypingRequest &R) {
  TypeRef D = R.args[0].type->dtype();
  if (D->kind() == Kind::Record)
    R.fail("the dtype of an array of records cannot be used as a value in "
           "kernels yet");
  return {dtypeTy(D)};
}

// a.reshape(shape): the new shape is an int, a tuple of ints, or several
// int arguments (known at run time); the array must be C-contiguous (numba
// reshapes views of contiguous arrays only, F order included when
// one-dimensional).
TypingResult typeArrayReshape(const TypingRequest &R) {
  noKeywords(R);
  if (R.args.size() < 2)
    R.fail("reshape() needs the new shape");
  TypeRef A = R.args[0].type;
  if (A->layout() != Layout::C && !(A->ndim() <= 1 && A->layout() == Layout::F))
    R.fail("reshape() in kernels needs a C-contiguous array, not " + A->str(),
           "reshape a contiguous array, or copy the elements in a loop");
  size_t NDim = 0;
  if (R.args.size() == 2 && R.args[1].type->isTuple()) {
    for (TypeRef E : R.args[1].type->elems())
      if (!E->isInt())
        R.fail("reshape() shape entries must be integers, not " + E->str());
    NDim = R.args[1].type->elems().size();
  } else {
    for (size_t K = 1; K < R.args.size(); ++K)
      if (!R.args[K].type->isInt())
        R.fail("reshape() shape entries must be integers, not " +
               R.args[K].type->str());
    NDim = R.args.size() - 1;
  }
  if (NDim == 0)
    R.fail("reshape() to a 0-d array is not supported in kernels");
  return {arrayTy(A->dtype(), unsigned(NDim), Layout::C, A->addrSpace())};
}

// a.real / a.imag of an array (registry/array.def).
TypingResult typeArrayRealImag(const TypingRequest &R) {
  TypeRef A = R.args[0].type, D = A->dtype();
  if (D->isComplex())
    return {arrayTy(floatTy(D->byteSize() * 4), A->ndim(), Layout::A,
                    A->addrSpace())};
  if (!D->isNumeric())
    R.fail("an array of " + D->str() + " has no ." +
           (R.info.idata ? "imag" : "real") + " in kernels");
  if (R.info.idata)
    R.fail(".imag of an array of " + D->str() +
               " (a new array of zeros) is not supported in kernels",
           "the imaginary part of a real array is 0");
  return {A};
}

// a.view(dtype): a numeric scalar dtype; another item size needs a
// contiguous last axis (C layout, or A checked when the kernel runs).
TypingResult typeArrayView(const TypingRequest &R) {
  noKeywords(R);
  if (R.args.size() != 2)
    R.fail("view() takes one dtype in kernels");
  TypeRef A = R.args[0].type, From = A->dtype();
  TypeRef To = cudahelp::dtypeArg(R, 1);
  if (!From->isNumeric() || !To->isNumeric() || To->kind() == Kind::Bool)
    R.fail("view() in kernels reinterprets numbers as another number type "
           "(not bool), not " +
           From->str() + " and " + To->str());
  if (To->byteSize() != From->byteSize() && A->ndim() == 0)
    R.fail("view() of a 0-d array as a type of another size (NumPy allows "
           "only the same item size): " +
           From->str() + " to " + To->str());
  Layout L = A->layout();
  if (To->byteSize() != From->byteSize() && L == Layout::F && A->ndim() > 1)
    R.fail("view() as a type of another size needs a contiguous last axis, "
           "not " +
           A->str());
  if (To->byteSize() != From->byteSize() && L == Layout::F)
    L = Layout::C; // one dimension, contiguous
  return {arrayTy(To, A->ndim(), L, A->addrSpace())};
}

// carray(ptr, shape, dtype=None) / farray(...): an array of the pointer's
// element type (or dtype, which must agree with it; a voidptr needs it) in
// the generic address space, C- or F-ordered.
TypingResult typePointerArray(const TypingRequest &R) {
  int P = R.find(0, "ptr"), S = R.find(1, "shape"), D = R.find(2, "dtype");
  if (P != 0 || S != 1 || R.args.size() != size_t(2 + (D >= 0)))
    R.fail(name(R) + "(ptr, shape, dtype=None) takes a pointer and a shape "
                     "(in that order) and optionally a dtype");
  TypeRef Ptr = R.args[P].type;
  if (Ptr->kind() != Kind::Pointer)
    R.fail(name(R) +
               "() takes a pointer (a CPointer or voidptr parameter), not " +
               Ptr->str(),
           "an array needs no conversion: index it directly");
  TypeRef Elem = Ptr->inner() == voidTy() ? nullptr : Ptr->inner();
  if (D >= 0) {
    TypeRef Want = cudahelp::dtypeArg(R, D);
    if (Elem && Want != Elem)
      R.fail(name(R) + "(): dtype " + Want->str() +
             " differs from the pointer's " + Elem->str());
    Elem = Want;
  }
  if (!Elem)
    R.fail(name(R) + "() of a voidptr needs dtype=", "e.g. dtype=np.float32");
  if (!Elem->isNumeric())
    R.fail(name(R) + "() of a pointer to " + Elem->str() + " is not supported");
  TypeRef ST = R.args[S].type;
  std::vector<TypeRef> Dims =
      ST->isTuple() ? ST->elems() : std::vector<TypeRef>{ST};
  for (TypeRef E : Dims)
    if (!E->isInt())
      R.fail(name(R) + "() shape entries must be integers, not " + E->str());
  if (Dims.empty())
    R.fail(name(R) + "() of a 0-d shape is not supported in kernels");
  return {arrayTy(Elem, unsigned(Dims.size()),
                  R.info.idata == 0 ? Layout::C : Layout::F,
                  AddrSpace::Generic)};
}

// ffi.from_buffer(a): a pointer to the elements of a contiguous array.
TypingResult typeFromBuffer(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  TypeRef A = R.args[0].type;
  if (!A->isArray() || !A->dtype()->isNumeric())
    R.fail("ffi.from_buffer() in kernels takes an array of numbers, not " +
           A->str());
  if (A->layout() == Layout::A)
    R.fail("ffi.from_buffer() needs a contiguous array, not " + A->str(),
           "pass a C- or F-contiguous array");
  return {pointerTy(A->dtype())};
}

} // namespace pcj::stdlib::rules
