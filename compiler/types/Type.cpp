// Interning of types and their printed names.
#include "types/Type.h"

#include "types/BFloat16.h"
#include "types/CharSeq.h"
#include "types/DateTime.h"
#include "types/Fp8.h"
#include "types/Promotion.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

namespace pcj::types {

// Structural key of a type; interning maps keys to the one Type instance.
using Key =
    std::tuple<int, unsigned, bool, const Type *, unsigned, int, int,
               std::vector<const Type *>, std::string, std::vector<std::string>,
               std::vector<uint64_t>, std::vector<uint64_t>, unsigned>;

struct TypeFactory {
  std::mutex Mu;
  std::map<Key, std::unique_ptr<Type>> Table;

  TypeRef get(Kind K, unsigned Bits = 0, bool Signed = false,
              const Type *Elem = nullptr, unsigned NDim = 0,
              Layout L = Layout::A, AddrSpace S = AddrSpace::Global,
              std::vector<const Type *> Elems = {}, std::string Name = {},
              std::vector<std::string> Fields = {},
              std::vector<uint64_t> Offsets = {},
              std::vector<uint64_t> Shape = {}, unsigned RecordAlign = 0) {
    Key Kt{int(K), Bits, Signed, Elem,    NDim,  int(L),     int(S),
           Elems,  Name, Fields, Offsets, Shape, RecordAlign};
    std::lock_guard<std::mutex> Lock(Mu);
    auto &Slot = Table[Kt];
    if (!Slot) {
      auto T = std::make_unique<Type>();
      T->K = K;
      T->Bits = Bits;
      T->Signed = Signed;
      T->Elem = Elem;
      T->NDim = NDim;
      T->RecordAlign = RecordAlign;
      T->Lay = L;
      T->Space = S;
      T->Elems = std::move(Elems);
      T->Name = std::move(Name);
      T->Fields = std::move(Fields);
      T->Offsets = std::move(Offsets);
      T->Shape = std::move(Shape);
      Slot = std::move(T);
    }
    return Slot.get();
  }
};

static TypeFactory &factory() {
  static TypeFactory *F =
      new TypeFactory(); // never destroyed: types outlive all users
  return *F;
}

TypeRef voidTy() { return factory().get(Kind::Void); }
TypeRef noneTy() { return factory().get(Kind::None); }
TypeRef ellipsisTy() { return factory().get(Kind::Ellipsis); }
TypeRef boolTy() { return factory().get(Kind::Bool, 1); }
TypeRef intTy(unsigned Bits, bool Signed) {
  return factory().get(Kind::Int, Bits, Signed);
}
TypeRef floatTy(unsigned Bits) {
  return factory().get(Kind::Float, Bits, true);
}
TypeRef bfloat16Ty() {
  return factory().get(Kind::Float, 16, true, nullptr, 0, Layout::A,
                       AddrSpace::Global, {}, "bfloat16");
}
TypeRef fp8Ty(Fp8Format F) {
  static const char *Names[] = {"fp8_e4m3", "fp8_e5m2", "fp8_e8m0"};
  return factory().get(Kind::Fp8, 8, false, nullptr, 0, Layout::A,
                       AddrSpace::Global, {}, Names[unsigned(F)]);
}
Fp8Format fp8Format(TypeRef T) {
  return T->name() == "fp8_e4m3"   ? Fp8Format::E4M3
         : T->name() == "fp8_e5m2" ? Fp8Format::E5M2
                                   : Fp8Format::E8M0;
}
TypeRef datetimeTy(const std::string &Unit) {
  return factory().get(Kind::Datetime, 64, true, nullptr, 0, Layout::A,
                       AddrSpace::Global, {}, Unit);
}
TypeRef timedeltaTy(const std::string &Unit) {
  return factory().get(Kind::Timedelta, 64, true, nullptr, 0, Layout::A,
                       AddrSpace::Global, {}, Unit);
}
TypeRef charSeqTy(unsigned CharBits, uint64_t Count) {
  return factory().get(Kind::CharSeq, CharBits, false, nullptr, 0, Layout::A,
                       AddrSpace::Global, {}, "", {}, {}, {Count});
}
TypeRef bytesTy() { return factory().get(Kind::Str, 8); }
TypeRef complexTy(unsigned Bits) {
  return factory().get(Kind::Complex, Bits, true);
}
TypeRef arrayTy(TypeRef DType, unsigned NDim, Layout L, AddrSpace S) {
  // A 1-d F-contiguous array is C-contiguous too: canonicalise to C.
  if (NDim <= 1 && L == Layout::F)
    L = Layout::C;
  return factory().get(Kind::Array, 0, false, DType, NDim, L, S);
}
TypeRef tupleTy(const std::vector<TypeRef> &Elems) {
  return factory().get(Kind::Tuple, 0, false, nullptr, 0, Layout::A,
                       AddrSpace::Global, Elems);
}
TypeRef rangeTy(TypeRef Counter) {
  return factory().get(Kind::Range, 0, false, Counter);
}
TypeRef rangeIterTy(TypeRef Counter) {
  return factory().get(Kind::RangeIter, 0, false, Counter);
}
TypeRef sliceTy(unsigned Parts) { return factory().get(Kind::Slice, Parts); }
TypeRef strTy() { return factory().get(Kind::Str); }
TypeRef moduleTy(const std::string &Name) {
  return factory().get(Kind::Module, 0, false, nullptr, 0, Layout::A,
                       AddrSpace::Global, {}, Name);
}
TypeRef intrinsicTy(const std::string &Key) {
  return factory().get(Kind::Intrinsic, 0, false, nullptr, 0, Layout::A,
                       AddrSpace::Global, {}, Key);
}
TypeRef dtypeTy(TypeRef Scalar) {
  return factory().get(Kind::DType, 0, false, Scalar);
}
TypeRef iterableTy(const std::string &Name, const std::vector<TypeRef> &Inner) {
  return factory().get(Kind::Iterable, 0, false, nullptr, 0, Layout::A,
                       AddrSpace::Global, Inner, Name);
}
TypeRef namedTupleTy(const std::string &Class,
                     const std::vector<std::string> &Fields,
                     const std::vector<TypeRef> &Elems) {
  return factory().get(Kind::Tuple, 0, false, nullptr, 0, Layout::A,
                       AddrSpace::Global, Elems, Class, Fields);
}
TypeRef tupleClassTy(const std::string &Class,
                     const std::vector<std::string> &Fields) {
  return factory().get(Kind::TupleClass, 0, false, nullptr, 0, Layout::A,
                       AddrSpace::Global, {}, Class, Fields);
}
TypeRef recordTy(const std::vector<std::string> &Fields,
                 const std::vector<TypeRef> &Types,
                 const std::vector<uint64_t> &Offsets, unsigned Size,
                 unsigned Align) {
  return factory().get(Kind::Record, Size, false, nullptr, 0, Layout::A,
                       AddrSpace::Global, Types, "", Fields, Offsets, {},
                       Align);
}
TypeRef nestedArrayTy(TypeRef DType, const std::vector<uint64_t> &Shape) {
  return factory().get(Kind::NestedArray, 0, false, DType,
                       unsigned(Shape.size()), Layout::C, AddrSpace::Global, {},
                       "", {}, {}, Shape);
}
TypeRef nestedArrayView(TypeRef Nested) {
  return arrayTy(Nested->dtype(), Nested->ndim(), Layout::C,
                 AddrSpace::Generic);
}
unsigned fieldAddressAlign(TypeRef Rec, int F) {
  uint64_t A = std::max(1u, Rec->recordAlign());
  while (Rec->offsets()[F] % A)
    A /= 2;
  return unsigned(A);
}
unsigned scalarAlign(TypeRef Scalar) {
  if (Scalar->kind() == Kind::CharSeq)
    return Scalar->bits() / 8;
  return Scalar->isComplex() ? Scalar->byteSize() / 2 : Scalar->byteSize();
}
TypeRef vectorTy(TypeRef Base, unsigned Count) {
  static const std::vector<std::string> Names = {"x", "y", "z", "w"};
  return factory().get(
      Kind::Vector, 0, false, Base, 0, Layout::A, AddrSpace::Global,
      std::vector<TypeRef>(Count, Base),
      // numba-cuda's names: float32x4, and fp8x4_e4m3 for fp8 lanes
      Base->kind() == Kind::Fp8
          ? "fp8x" + std::to_string(Count) + Base->str().substr(3)
          : Base->str() + "x" + std::to_string(Count),
      std::vector<std::string>(Names.begin(), Names.begin() + Count));
}
int Type::fieldIndex(const std::string &Field) const {
  for (size_t K = 0; K < Fields.size(); ++K)
    if (Fields[K] == Field)
      return int(K);
  return -1;
}

TypeRef iteratorTy(TypeRef Iterable) {
  return factory().get(Kind::Iterator, 0, false, Iterable);
}

bool expandArrayIndex(const std::vector<TypeRef> &Parts, unsigned NDim,
                      std::vector<IndexStep> &Steps, std::string &Err) {
  unsigned Consumed = 0, Ellipses = 0;
  for (TypeRef P : Parts) {
    if (P->isInt() || P->kind() == Kind::Slice)
      ++Consumed;
    else if (P->kind() == Kind::Ellipsis)
      ++Ellipses;
    else if (P->kind() != Kind::None) {
      Err = "array indices must be integers, slices, None or ..., not " +
            P->str();
      return false;
    }
  }
  if (Ellipses > 1) {
    Err = "an array index can only have a single ellipsis ('...')";
    return false;
  }
  if (Consumed > NDim) {
    Err = "too many indices for a " + std::to_string(NDim) +
          "-d array: " + std::to_string(Consumed);
    return false;
  }
  Steps.clear();
  for (size_t K = 0; K < Parts.size(); ++K) {
    if (Parts[K]->kind() == Kind::Ellipsis) {
      for (unsigned D = Consumed; D < NDim; ++D)
        Steps.push_back({-1, false});
      continue;
    }
    Steps.push_back({int(K), Parts[K]->kind() == Kind::None});
  }
  return true;
}

TypeRef iterElementType(TypeRef T) {
  switch (T->kind()) {
  case Kind::Range:
    return T->inner();
  case Kind::Array:
    if (T->ndim() == 0)
      return nullptr;
    if (T->ndim() == 1)
      return T->dtype();
    return arrayTy(T->dtype(), T->ndim() - 1,
                   T->layout() == Layout::C ? Layout::C : Layout::A,
                   T->addrSpace());
  case Kind::Tuple: {
    if (T->elems().empty())
      return nullptr;
    TypeRef Acc = T->elems()[0];
    for (TypeRef E : T->elems()) {
      if (E == Acc)
        continue;
      if (!E->isNumeric() || !Acc->isNumeric())
        return nullptr;
      Acc = promote({Acc, false}, {E, false});
    }
    return Acc;
  }
  case Kind::Iterable: {
    std::vector<TypeRef> Parts;
    if (T->name() == "enumerate")
      Parts.push_back(int64Ty());
    for (TypeRef I : T->elems()) {
      TypeRef E = iterElementType(I);
      if (!E)
        return nullptr;
      Parts.push_back(E);
    }
    return tupleTy(Parts);
  }
  default:
    return nullptr;
  }
}

TypeRef pointerTy(TypeRef Pointee) {
  return factory().get(Kind::Pointer, 64, false, Pointee);
}

TypeRef enumMemberTy(const std::string &ClassKey, TypeRef Value) {
  return factory().get(Kind::EnumMember, 0, false, Value, 0, Layout::A,
                       AddrSpace::Global, {}, ClassKey);
}

TypeRef optionalTy(TypeRef Value) {
  return factory().get(Kind::Optional, 0, false, Value);
}

TypeRef functionTy(const std::string &Key) {
  return factory().get(Kind::Function, 0, false, nullptr, 0, Layout::A,
                       AddrSpace::Global, {}, Key);
}

bool Type::isRuntime() const {
  switch (K) {
  case Kind::Bool:
  case Kind::Int:
  case Kind::Float:
  case Kind::Complex:
  case Kind::Array:
  case Kind::Range:
  case Kind::RangeIter:
  case Kind::Iterator:
  case Kind::Record:
  case Kind::Vector:
  case Kind::None:
  case Kind::Ellipsis:
  case Kind::Pointer:
  case Kind::Fp8:
  case Kind::Datetime:
  case Kind::Timedelta:
  case Kind::CharSeq:
    return true;
  case Kind::Iterable:
  case Kind::Tuple:
    for (TypeRef E : Elems)
      if (!E->isRuntime())
        return false;
    return true;
  case Kind::EnumMember:
  case Kind::Optional:
    return Elem->isRuntime();
  default:
    return false;
  }
}

unsigned Type::byteSize() const {
  switch (K) {
  case Kind::Bool:
  case Kind::Fp8:
    return 1;
  case Kind::Record:
    return Bits;
  case Kind::NestedArray: {
    uint64_t N = Elem->byteSize();
    for (uint64_t D : Shape)
      N *= D;
    return unsigned(N);
  }
  case Kind::Int:
  case Kind::Float:
  case Kind::Complex:
  case Kind::Pointer:
  case Kind::Datetime:
  case Kind::Timedelta:
    return Bits / 8;
  case Kind::CharSeq:
    return unsigned(Shape[0] * (Bits / 8));
  default:
    return 0;
  }
}

static const char *layoutName(Layout L) {
  switch (L) {
  case Layout::C:
    return "C";
  case Layout::F:
    return "F";
  case Layout::A:
    return "A";
  }
  return "?";
}

std::string Type::str() const {
  switch (K) {
  case Kind::Fp8:
    return Name;
  case Kind::Datetime:
  case Kind::Timedelta: // numba's spelling
    return std::string(K == Kind::Datetime ? "datetime64" : "timedelta64") +
           (Name.empty() ? "" : "[" + Name + "]");
  case Kind::CharSeq:
    return std::string(Bits == 8 ? "[char x " : "[unichr x ") +
           std::to_string(Shape[0]) + "]";
  case Kind::Void:
    return "void";
  case Kind::None:
    return "none";
  case Kind::Ellipsis:
    return "ellipsis";
  case Kind::Bool:
    return "bool";
  case Kind::Int:
    return (Signed ? "int" : "uint") + std::to_string(Bits);
  case Kind::Float:
    return Name.empty() ? "float" + std::to_string(Bits) : Name;
  case Kind::Complex:
    return "complex" + std::to_string(Bits);
  case Kind::Vector:
    return Name;
  case Kind::Array: {
    std::string S = "array(" + Elem->str() + ", " + std::to_string(NDim) +
                    "d, " + layoutName(Lay);
    if (Space == AddrSpace::Shared)
      S += ", shared";
    else if (Space == AddrSpace::Local)
      S += ", local";
    else if (Space == AddrSpace::Const)
      S += ", const";
    else if (Space == AddrSpace::Generic)
      S += ", generic";
    return S + ")";
  }
  case Kind::Tuple: {
    if (!Fields.empty()) {
      std::string S = Name + "(";
      for (size_t I = 0; I < Elems.size(); ++I)
        S += (I ? ", " : "") + Fields[I] + ": " + Elems[I]->str();
      return S + ")";
    }
    bool Uni = !Elems.empty();
    for (TypeRef E : Elems)
      Uni = Uni && E == Elems[0];
    if (Uni)
      return "UniTuple(" + Elems[0]->str() + " x " +
             std::to_string(Elems.size()) + ")";
    std::string S = "Tuple(";
    for (size_t I = 0; I < Elems.size(); ++I)
      S += (I ? ", " : "") + Elems[I]->str();
    return S + ")";
  }
  case Kind::Range:
    return "range(" + Elem->str() + ")";
  case Kind::RangeIter:
    return "range_iter(" + Elem->str() + ")";
  case Kind::Slice: {
    std::string S = "slice(";
    S += (Bits & 1) ? "start" : "";
    S += ":";
    S += (Bits & 2) ? "stop" : "";
    if (Bits & 4)
      S += ":step";
    return S + ")";
  }
  case Kind::Str:
    return Bits == 8 ? "bytes" : "str";
  case Kind::Module:
    return "module(" + Name + ")";
  case Kind::Intrinsic:
    return "intrinsic(" + Name + ")";
  case Kind::DType:
    return "dtype(" + Elem->str() + ")";
  case Kind::Function:
    return "function(" + Name.substr(0, Name.find('@')) + ")";
  // numba's spelling, the class module-qualified and with its id: the
  // printed type keys specializations and the disk cache, and two class
  // objects of one name have members that are never equal.
  case Kind::EnumMember:
    return "Enum<" + Elem->str() + ">(" + Name + ")";
  case Kind::Optional: // numba's spelling
    return "OptionalType(" + Elem->str() + ")";
  case Kind::Pointer: // numba's spelling
    return Elem->kind() == Kind::Void ? "void*" : Elem->str() + "*";
  case Kind::Iterable: {
    std::string S = Name + "(";
    for (size_t I = 0; I < Elems.size(); ++I)
      S += (I ? ", " : "") + Elems[I]->str();
    return S + ")";
  }
  case Kind::Iterator:
    return "iter(" + Elem->str() + ")";
  case Kind::Record: {
    std::string S = "Record(";
    for (size_t I = 0; I < Elems.size(); ++I)
      S += (I ? ", " : "") + Fields[I] + ": " + Elems[I]->str() + " @" +
           std::to_string(Offsets[I]);
    return S + "; " + std::to_string(Bits) + " bytes, align " +
           std::to_string(RecordAlign) + ")";
  }
  case Kind::TupleClass:
    return "class(" + Name + ")";
  case Kind::NestedArray: { // numba's spelling: nestedarray(uint8, (5,))
    std::string S = "nestedarray(" + Elem->str() + ", (";
    for (size_t I = 0; I < Shape.size(); ++I)
      S += (I ? ", " : "") + std::to_string(Shape[I]);
    return S + (Shape.size() == 1 ? ",))" : "))");
  }
  }
  return "?";
}

TypeRef scalarFromName(const std::string &N) {
  static const std::map<std::string, std::pair<int, int>> Names = {
      // name -> (kind: 0 bool 1 int 2 uint 3 float 4 complex, bits)
      {"bool", {0, 1}},       {"bool_", {0, 1}},        {"b1", {0, 1}},
      {"boolean", {0, 1}},    {"int8", {1, 8}},         {"int16", {1, 16}},
      {"int32", {1, 32}},     {"int64", {1, 64}},       {"intp", {1, 64}},
      {"int_", {1, 64}},      {"i1", {1, 8}},           {"i2", {1, 16}},
      {"i4", {1, 32}},        {"i8", {1, 64}},          {"uint8", {2, 8}},
      {"uint16", {2, 16}},    {"uint32", {2, 32}},      {"uint64", {2, 64}},
      {"uintp", {2, 64}},     {"u1", {2, 8}},           {"u2", {2, 16}},
      {"u4", {2, 32}},        {"u8", {2, 64}},          {"float16", {3, 16}},
      {"float32", {3, 32}},   {"float64", {3, 64}},     {"f2", {3, 16}},
      {"f4", {3, 32}},        {"f8", {3, 64}},          {"half", {3, 16}},
      {"single", {3, 32}},    {"double", {3, 64}},      {"float_", {3, 64}},
      {"complex64", {4, 64}}, {"complex128", {4, 128}}, {"c8", {4, 64}},
      {"c16", {4, 128}},      {"csingle", {4, 64}},     {"cdouble", {4, 128}},
      {"complex_", {4, 128}},
  };
  if (N == "bfloat16")
    return bfloat16Ty();
  // datetime64[D], timedelta64[ms], datetime64 (generic)
  for (bool Dt : {true, false}) {
    std::string P = Dt ? "datetime64" : "timedelta64";
    if (N.compare(0, P.size(), P) != 0)
      continue;
    std::string U = N.substr(P.size());
    if (!U.empty() && (U.size() < 3 || U[0] != '[' || U.back() != ']'))
      return nullptr;
    U = U.empty() ? U : U.substr(1, U.size() - 2);
    if (!isTimeUnit(U))
      return nullptr;
    return Dt ? datetimeTy(U) : timedeltaTy(U);
  }
  if (N == "fp8_e4m3" || N == "fp8_e5m2" || N == "fp8_e8m0")
    return fp8Ty(N == "fp8_e4m3"   ? Fp8Format::E4M3
                 : N == "fp8_e5m2" ? Fp8Format::E5M2
                                   : Fp8Format::E8M0);
  auto It = Names.find(N);
  if (It == Names.end())
    return nullptr;
  auto [K, Bits] = It->second;
  switch (K) {
  case 0:
    return boolTy();
  case 1:
    return intTy(Bits, true);
  case 2:
    return intTy(Bits, false);
  case 3:
    return floatTy(Bits);
  default:
    return complexTy(Bits);
  }
}

TypeRef scalarFromTypestr(const std::string &T) {
  if (T.size() < 3)
    return nullptr;
  char Order = T[0];
  if (Order != '<' && Order != '|' && Order != '=')
    return nullptr; // big-endian data is not supported; not a typestr
  std::string Rest = T.substr(1);
  if (Rest == "b1")
    return boolTy();
  // "<M8[D]", "<m8[ms]", "<M8" (generic)
  if ((Rest[0] == 'M' || Rest[0] == 'm') && Rest[1] == '8') {
    std::string U = Rest.substr(2);
    if (!U.empty() && (U.size() < 3 || U[0] != '[' || U.back() != ']'))
      return nullptr;
    U = U.empty() ? U : U.substr(1, U.size() - 2);
    if (!isTimeUnit(U))
      return nullptr;
    return Rest[0] == 'M' ? datetimeTy(U) : timedeltaTy(U);
  }
  // "|S12", "<U5"
  if (Rest[0] == 'S' || Rest[0] == 'U') {
    char *End = nullptr;
    unsigned long long N = std::strtoull(Rest.c_str() + 1, &End, 10);
    if (!N || *End)
      return nullptr;
    return charSeqTy(Rest[0] == 'S' ? 8 : 32, N);
  }
  if (Rest[0] != 'i' && Rest[0] != 'u' && Rest[0] != 'f' && Rest[0] != 'c')
    return nullptr;
  return scalarFromName(Rest);
}

std::string typestrOf(TypeRef T) {
  if (T->isBool())
    return "|b1";
  if (isDateLike(T))
    return std::string(isDatetime(T) ? "<M8" : "<m8") +
           (T->name().empty() ? "" : "[" + T->name() + "]");
  if (isCharSeq(T))
    return (T->bits() == 8 ? "|S" : "<U") + std::to_string(charCount(T));
  char Kind = T->isComplex()  ? 'c'
              : T->isFloat()  ? 'f'
              : T->isSigned() ? 'i'
                              : 'u';
  unsigned Bytes = T->byteSize();
  return std::string(Bytes == 1 ? "|" : "<") + Kind + std::to_string(Bytes);
}

} // namespace pcj::types
