// Types of the kernel language.
//
// Types are immutable and interned: two structurally equal types are the same
// pointer, so `a == b` compares types.  They live for the whole process
// (a small, bounded set) and are safe to create from several threads.
//
//   scalars   bool, int8..int64, uint8..uint64, float16/32/64, complex64/128
//   arrays    array(dtype, ndim, layout C|F|A, addrspace)   -- kernel arguments
//   tuples    Tuple(t0, t1, ...)  (UniTuple when homogeneous, printed as such),
//             namedtuples (a tuple with a class name and field names)
//   records   Record(x: float64 @0, ...) -- structured dtypes; a record
//             taken from an array refers to the element (like numba)
//   nested arrays  nestedarray(float32, (3, 2)) -- a record field holding a
//             fixed-shape array (a NumPy subarray); only a field type: reading
//             the field gives an array view, array(float32, 2d, C, generic)
//   vectors   float32x4, int8x2, ... -- CUDA's vector types: 1 to 4 scalars
//             of one type named x, y, z, w (a value, built in kernels)
//   fp8       fp8_e4m3, fp8_e5m2, fp8_e8m0 -- one-byte storage types that
//             only convert (types/Fp8.h); not numeric: no arithmetic
//   datetime  datetime64[D], timedelta64[ms] -- NumPy's int64 time counts
//             (types/DateTime.h): their own arithmetic, not numeric
//   charseq   [char x 12], [unichr x 5] -- NumPy 'S12' / 'U5' elements and
//             fields (types/CharSeq.h): copied and compared, nothing else
//   pointers  CPointer(T) (`T*`), voidptr (`void*`): foreign-function
//             parameters and results (cuda.declare_device), a generic address
//   optional  OptionalType(int32) -- a device function's result that may be
//             None (a `return` without a value on some paths)
//   compile-time only: none, range, range_iter, slice, str, module(name),
//             intrinsic(key) (a registry entry: function or namespace),
//             dtype(scalar) (np.float32 used as a value: cast / dtype arg),
//             function(name) (a device function: @cuda.jit(device=True))
//   iteration: enumerate(...)/zip(...) values (iterable), and iterators over
//             arrays, tuples and those (iterator); range has its own
//             range_iter for the common `for i in range(n)`
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pcj::types {

enum class Kind : uint8_t {
  Void,
  None,
  Bool,
  Int,
  Float,
  Complex,
  Array,
  Tuple,
  Range,
  RangeIter,
  Slice,
  Str,
  Module,
  Intrinsic,
  DType,
  Function,
  Iterable,
  Iterator,
  Record,
  TupleClass,
  Vector,
  Ellipsis,    // `...` (in array indices)
  Pointer,     // CPointer(T) / voidptr: inner() is T (void for voidptr)
  NestedArray, // a record's subarray field: dtype() and shape()
  Fp8,         // an fp8 storage type (types/Fp8.h): one byte, name() its format
  // NumPy datetime64[unit] / timedelta64[unit] (types/DateTime.h): an int64
  // count of name()'s unit
  Datetime,
  Timedelta,
  // A NumPy 'S<n>' (bits() 8) or 'U<n>' (bits() 32, UCS4) element or field
  // (types/CharSeq.h): shape()[0] characters, zero-padded
  CharSeq,
  // A member of a Python Enum class (not IntEnum, whose members are ints):
  // name() the class's key ("module.Qualname@id": one type per class),
  // inner() the type of the members' values, which is what a member holds
  // at run time (types/Type.h enumMemberTy)
  EnumMember,
  // numba's OptionalType(T): a device function's result that is None on
  // some paths and inner() (a run-time type, not None) on others; held as
  // {inner's value, whether there is one}
  Optional,
};

enum class Layout : uint8_t { C, F, A };
// Generic: any memory (an array view into a record, whose memory space its
// type does not tell).
enum class AddrSpace : uint8_t { Global, Shared, Local, Const, Generic };

class Type {
public:
  Kind kind() const { return K; }
  // Scalars: width in bits (bool: 1; complex64: 64), signedness for ints.
  unsigned bits() const { return Bits; }
  bool isSigned() const { return Signed; }
  // Arrays.
  const Type *dtype() const { return Elem; }
  unsigned ndim() const { return NDim; }
  Layout layout() const { return Lay; }
  AddrSpace addrSpace() const { return Space; }
  // Tuples.
  const std::vector<const Type *> &elems() const { return Elems; }
  // Range / RangeIter: the counter type.  DType: the scalar it names.
  const Type *inner() const { return Elem; }
  // Module / Intrinsic: the qualified name ("math", "cuda.threadIdx").
  // Named tuples and tuple classes: the class name.
  const std::string &name() const { return Name; }
  // Named tuples, records, tuple classes, vectors: field names (empty
  // otherwise).
  const std::vector<std::string> &fields() const { return Fields; }
  // Records: byte offset of each field.
  const std::vector<uint64_t> &offsets() const { return Offsets; }
  // Index of a field, or -1.
  int fieldIndex(const std::string &Field) const;
  // Records: alignment in bytes.
  unsigned recordAlign() const { return RecordAlign; }
  // Nested arrays: the extent of each dimension.
  const std::vector<uint64_t> &shape() const { return Shape; }

  bool isBool() const { return K == Kind::Bool; }
  bool isInt() const { return K == Kind::Int; }
  bool isFloat() const { return K == Kind::Float; }
  bool isComplex() const { return K == Kind::Complex; }
  bool isIntegral() const { return K == Kind::Int || K == Kind::Bool; }
  bool isNumeric() const { return isIntegral() || isFloat() || isComplex(); }
  bool isArray() const { return K == Kind::Array; }
  bool isTuple() const { return K == Kind::Tuple; }
  // Holds a run-time value (vs. compile-time-only types like modules).
  bool isRuntime() const;
  // Size in bytes of a scalar in memory (bool: 1), of a record, of a
  // nested array (all its elements).
  unsigned byteSize() const;

  // numba-compatible spelling: "float32", "array(float32, 1d, C)",
  // "UniTuple(int64 x 2)", "Tuple(int64, float32)".
  std::string str() const;

private:
  friend struct TypeFactory;
  Kind K = Kind::Void;
  unsigned Bits = 0;
  bool Signed = false;
  const Type *Elem = nullptr;
  unsigned NDim = 0;
  unsigned RecordAlign = 0;
  Layout Lay = Layout::A;
  AddrSpace Space = AddrSpace::Global;
  std::vector<const Type *> Elems;
  std::string Name;
  std::vector<std::string> Fields;
  std::vector<uint64_t> Offsets;
  std::vector<uint64_t> Shape;
};

using TypeRef = const Type *;

TypeRef voidTy();
TypeRef noneTy();
TypeRef ellipsisTy();
TypeRef boolTy();
TypeRef intTy(unsigned Bits, bool Signed = true);
TypeRef floatTy(unsigned Bits);
TypeRef complexTy(unsigned Bits);
TypeRef arrayTy(TypeRef DType, unsigned NDim, Layout L,
                AddrSpace S = AddrSpace::Global);
TypeRef tupleTy(const std::vector<TypeRef> &Elems);
// A C pointer (generic address space) to Pointee; voidTy() for voidptr.
TypeRef pointerTy(TypeRef Pointee);
TypeRef rangeTy(TypeRef Counter);
TypeRef rangeIterTy(TypeRef Counter);
// A slice; Parts says which of start (1), stop (2), step (4) were given.
TypeRef sliceTy(unsigned Parts = 0);
TypeRef strTy();
TypeRef moduleTy(const std::string &Name);
TypeRef intrinsicTy(const std::string &Key);
TypeRef dtypeTy(TypeRef Scalar);
// A member of the Enum class `ClassKey` ("module.Qualname@id", printed
// whole) whose value has type `Value`: numba's Enum<int64>(Color).  Members of
// one class compare by value; members of different classes are never equal.
TypeRef enumMemberTy(const std::string &ClassKey, TypeRef Value);
// OptionalType(Value): Value or None (Kind::Optional); Value is a run-time
// type other than None and not itself optional.
TypeRef optionalTy(TypeRef Value);
// A device function; `Key` identifies it ("qualname@id"), and only the part
// before '@' is printed.
TypeRef functionTy(const std::string &Key);
// enumerate / zip objects: Name "enumerate" or "zip", elems the iterables.
TypeRef iterableTy(const std::string &Name, const std::vector<TypeRef> &Inner);
// A namedtuple: a tuple whose elements also have names.
TypeRef namedTupleTy(const std::string &Class,
                     const std::vector<std::string> &Fields,
                     const std::vector<TypeRef> &Elems);
// The namedtuple class itself (called in a kernel to build one).
TypeRef tupleClassTy(const std::string &Class,
                     const std::vector<std::string> &Fields);
// A structured dtype: named fields at byte offsets, `Size` bytes in all.
TypeRef recordTy(const std::vector<std::string> &Fields,
                 const std::vector<TypeRef> &Types,
                 const std::vector<uint64_t> &Offsets, unsigned Size,
                 unsigned Align);
// A record field holding a C-ordered array of the scalar `DType` with the
// given extents (a NumPy subarray field, `('b', np.float64, (3,))`).
TypeRef nestedArrayTy(TypeRef DType, const std::vector<uint64_t> &Shape);
// What reading a nested-array field gives: a C-contiguous view in generic
// memory, array(dtype, ndim, C, generic).
TypeRef nestedArrayView(TypeRef Nested);
// Records: the alignment in bytes field F's address is known to have (from
// the record's alignment and the field's offset).
unsigned fieldAddressAlign(TypeRef Rec, int F);
// The natural alignment of a scalar in memory (a complex: its parts').
unsigned scalarAlign(TypeRef Scalar);
// A CUDA vector type: `Count` (1-4) elements of the int or float `Base`,
// fields x, y, z, w; printed as numba names it ("float32x4").
TypeRef vectorTy(TypeRef Base, unsigned Count);
// An iterator over `Iterable` (an array, a tuple, a range or an iterable).
TypeRef iteratorTy(TypeRef Iterable);
// What iterating over T yields (nullptr if T is not iterable): range -> its
// int, 1-d array -> dtype, n-d array -> an (n-1)-d row view, tuple -> its
// common element type, enumerate -> (int64, elem), zip -> tuple of elems.
TypeRef iterElementType(TypeRef T);

// An array index (the parts of a tuple index, or one part) applied to an
// N-d array, with `...` expanded: one step per part that is an int or a
// slice, one per dimension `...` stands for (Part -1: the whole dimension),
// one per None (a new axis of extent 1).  False with Err set when the
// parts are not ints, slices, None or one `...`, or index too many
// dimensions.
struct IndexStep {
  int part;     // position in the index tuple; -1: a whole dimension
  bool newAxis; // None
};
bool expandArrayIndex(const std::vector<TypeRef> &Parts, unsigned NDim,
                      std::vector<IndexStep> &Steps, std::string &Err);

inline TypeRef int32Ty() { return intTy(32); }
inline TypeRef int64Ty() { return intTy(64); }
inline TypeRef float32Ty() { return floatTy(32); }
inline TypeRef float64Ty() { return floatTy(64); }

// "float32", "int64", "uint8", "bool", "complex128", ... (also numpy aliases
// "f4", "i8", "float_", "intp", "double"...).  nullptr when not a scalar name.
TypeRef scalarFromName(const std::string &Name);
// NumPy array-interface typestr ("<f4", "|b1", "<i8") -> scalar; nullptr if
// unsupported (big-endian, objects; records come from a dtype's descr).
TypeRef scalarFromTypestr(const std::string &Typestr);
// The inverse for scalars: float32 -> "<f4", bool -> "|b1", int8 -> "|i1".
std::string typestrOf(TypeRef Scalar);

} // namespace pcj::types
