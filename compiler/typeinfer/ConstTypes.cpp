// Types of compile-time values (see ConstTypes.h).
#include "typeinfer/ConstTypes.h"

#include "stdlib/Registry.h"
#include "support/Diagnostics.h"
#include "types/CharSeq.h"

namespace pcj::typeinfer {

using namespace types;
using ir::Instr;

namespace {

[[noreturn]] void fail(const Instr *I, const std::string &Msg,
                       const std::string &Hint = {},
                       ErrorKind K = ErrorKind::Typing) {
  throw CompileError(K, I ? I->loc : SourceLoc{}, Msg, Hint);
}

} // namespace

InferredType typeOfConst(const Instr *I, const bc::ConstValue &V) {
  using K = bc::ConstValue::Kind;
  switch (V.kind) {
  case K::None:
    return {noneTy(), false};
  case K::Ellipsis:
    return {ellipsisTy(), false};
  case K::Bool:
    return {boolTy(), true};
  case K::Int: {
    // A Python int is weak (NEP 50).  One in [2**63, 2**64) is a uint64;
    // a larger one can only become a float.  transforms/ConstantRanges
    // checks that every use holds the exact value.
    uint64_t U;
    return {V.bigInt && V.asUInt64(U) ? intTy(64, false) : int64Ty(), true};
  }
  case K::Float:
    return {float64Ty(), true};
  case K::Complex:
    return {complexTy(128), true};
  case K::Str:
    return {strTy(), false};
  case K::Bytes:
    return {bytesTy(), false};
  case K::Tuple: {
    std::vector<TypeRef> Elems;
    for (const auto &E : V.elems) {
      uint64_t U;
      if (E.kind == K::Int && E.bigInt && !E.asUInt64(U))
        fail(I, "Python integer " + E.text + " does not fit in 64 bits",
             "tuple elements keep their own type; use a float (" + E.text +
                 ".0) if the value is meant as one");
      Elems.push_back(typeOfConst(I, E).type);
    }
    return {tupleTy(Elems), false};
  }
  default:
    fail(I, "constant " + V.repr() + " cannot be used in kernels", "",
         ErrorKind::Unsupported);
  }
}

InferredType typeOfCompileTimeValue(const Instr *I, const ir::CTValue &V,
                                    const std::string &What) {
  using K = ir::CTValue::Kind;
  switch (V.kind) {
  case K::Invalid:
    fail(I, What + " is not defined", "", ErrorKind::Name);
  case K::Const: {
    // A numpy scalar keeps its dtype, and so does one inside a tuple (the
    // resolver then types the whole tuple).
    InferredType T =
        V.type ? InferredType{V.type, false} : typeOfConst(I, V.value);
    if (!V.fields.empty() && T.type->isTuple()) // a namedtuple instance
      T.type = namedTupleTy(V.name, V.fields, T.type->elems());
    return T;
  }
  case K::Module:
    return {moduleTy(V.name), false};
  case K::Intrinsic: {
    const stdlib::IntrinsicInfo *Info = stdlib::lookupIntrinsic(V.name);
    PCJ_ASSERT(Info, "resolver returned unknown intrinsic " + V.name);
    return {intrinsicTy(V.name), false};
  }
  case K::DType:
    return {dtypeTy(V.type), false};
  case K::Function:
    return {functionTy(V.name + "@" + std::to_string(V.handle)), false};
  case K::ConstArray: // a host array, frozen into constant memory
    if (V.bytes.size() > ir::kMaxConstArrayBytes)
      fail(I,
           What + " is a NumPy array of " + std::to_string(V.bytes.size()) +
               " bytes; constant memory holds at most " +
               std::to_string(ir::kMaxConstArrayBytes) + " bytes",
           "pass a large table as a kernel argument instead");
    return {
        arrayTy(V.type, unsigned(V.shape.size()), Layout::C, AddrSpace::Const),
        false};
  case K::DeviceArray: { // captured by reference: its address is in the code
    int64_t Item = int64_t(V.type->byteSize()), C = Item, F = Item;
    bool IsC = true, IsF = true;
    for (size_t D = V.shape.size(); D-- > 0;) {
      IsC = IsC && (V.shape[D] <= 1 || V.strides[D] == C);
      C *= V.shape[D];
    }
    for (size_t D = 0; D < V.shape.size(); ++D) {
      IsF = IsF && (V.shape[D] <= 1 || V.strides[D] == F);
      F *= V.shape[D];
    }
    return {arrayTy(V.type, unsigned(V.shape.size()),
                    IsC   ? Layout::C
                    : IsF ? Layout::F
                          : Layout::A),
            false};
  }
  case K::TupleClass:
    return {tupleClassTy(V.name, V.fields), false};
  case K::Tuple: { // holds arrays: each element typed as a global of its own
    std::vector<TypeRef> Elems;
    for (size_t E = 0; E < V.items.size(); ++E)
      Elems.push_back(typeOfCompileTimeValue(
                          I, V.items[E], What + "[" + std::to_string(E) + "]")
                          .type);
    if (!V.fields.empty())
      return {namedTupleTy(V.name, V.fields, Elems), false};
    return {tupleTy(Elems), false};
  }
  case K::ExceptionClass:
    fail(I, What + " is an exception class: kernels can only raise it",
         "raise it where it is made: raise E(\"constant message\")",
         ErrorKind::Unsupported);
  case K::Unsupported: {
    // A name whose value kernels cannot type is numba-cuda's TypingError,
    // whose phrase leads ("Untyped global name 'f': ..."); an attribute of a
    // module (np.cumsum) stays an UnsupportedError of ours.
    bool Name = I && (I->op == ir::Op::Global || I->op == ir::Op::Deref);
    fail(
        I,
        Name ? "Untyped global name " + What + ": " + V.name +
                   ", which kernels cannot use"
             : What + " is " + V.name + ", which kernels cannot use",
        !V.hint.empty()
            ? V.hint
            : "kernels can use numbers, bools, tuples, numpy scalar types, the "
              "modules math, numpy and pycuda_jit.cuda, and module constants",
        Name ? ErrorKind::Typing : ErrorKind::Unsupported);
  }
  }
  return {};
}

} // namespace pcj::typeinfer
