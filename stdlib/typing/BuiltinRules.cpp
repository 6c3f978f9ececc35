// Typing rules for Python builtins (registry/builtins.def).
#include "stdlib/typing/RuleHelpers.h"
#include "types/Fp8.h"

#include "stdlib/FloatString.h"
#include "support/Diagnostics.h"

namespace pcj::stdlib::rules {

TypingResult typeRange(const TypingRequest &R) {
  expectArgs(R, 1, 3);
  noKeywords(R);
  Operand Acc{R.args[0].type, R.args[0].weak};
  bool Weak = true;
  for (size_t K = 0; K < R.args.size(); ++K) {
    TypeRef T = R.args[K].type;
    if (!T->isIntegral())
      R.fail("range() arguments must be integers, argument " +
             std::to_string(K + 1) + " is " + T->str());
    Weak = Weak && R.args[K].weak;
    bool RW = false;
    Acc.type = promote(Acc, {T, R.args[K].weak}, &RW);
    Acc.weak = RW;
  }
  bc::ConstValue Step;
  if (R.args.size() == 3 && R.args[2].constant(Step) &&
      ((Step.isSmallInt() && Step.i == 0) ||
       (Step.kind == bc::ConstValue::Kind::Bool && !Step.b)))
    throw CompileError(ErrorKind::Value, R.instr.loc,
                       "range() arg 3 must not be zero");
  // uint64 with a signed type promotes to float64 (NumPy): no 64-bit
  // integer holds every value such a range produces (its loop variable
  // wrapped values >= 2**63 to negative int64s), so the user converts.
  TypeRef C = Acc.type;
  if (!C->isInt()) {
    std::string Types;
    for (const auto &A : R.args)
      Types += (Types.empty() ? "" : ", ") + A.type->str();
    R.fail("range() arguments mix uint64 with a signed integer type (" + Types +
               "); no 64-bit integer type holds every value",
           "convert them to one type: np.int64(n), or np.uint64(i) when "
           "every value is non-negative");
  }
  TypingResult Out{rangeTy(C), Weak};
  Out.argTypes.assign(R.args.size(), C);
  return Out;
}

TypingResult typeLen(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  TypeRef T = R.args[0].type;
  if (T->isArray()) {
    if (T->ndim() == 0)
      R.fail("len() of a 0-d array");
    return {int64Ty()};
  }
  if (T->isTuple())
    return {int64Ty()};
  R.fail("len() is not supported for " + T->str());
}

} // namespace pcj::stdlib::rules

namespace pcj::stdlib {

// numba-cuda compares the value's type with the class's type exactly: int
// is int64, float float64, complex complex128 (an int32 is no int).
int isInstanceAnswer(types::TypeRef Value, types::TypeRef Class) {
  using namespace types;
  if (Class->isTuple()) {
    int Any = 0;
    for (TypeRef C : Class->elems()) {
      int A = isInstanceAnswer(Value, C);
      if (A < 0)
        return -1;
      Any |= A;
    }
    return Any;
  }
  if (Class->kind() == Kind::DType)
    return Value == Class->inner();
  if (Class->kind() != Kind::Intrinsic)
    return -1;
  const std::string &N = Class->name();
  if (N == "int")
    return Value == int64Ty();
  if (N == "float")
    return Value == float64Ty();
  if (N == "bool")
    return Value == boolTy();
  if (N == "complex")
    return Value == complexTy(128);
  return -1;
}

} // namespace pcj::stdlib

namespace pcj::stdlib::rules {

// isinstance(x, cls): a bool known when the kernel compiles.
TypingResult typeIsInstance(const TypingRequest &R) {
  expectArgs(R, 2, 2);
  noKeywords(R);
  TypeRef V = R.args[0].type;
  if (!V->isNumeric() && !V->isArray() && !V->isTuple() && V != noneTy())
    R.fail("isinstance() does not support values of type " + V->str(),
           "kernels answer isinstance() for numbers, bools, arrays, tuples "
           "and None");
  if (isInstanceAnswer(V, R.args[1].type) < 0)
    R.fail("isinstance() takes a class kernels know as its second argument "
           "(int, float, bool, complex, a NumPy scalar type, or a tuple of "
           "those), not " +
           R.args[1].type->str());
  TypingResult Out{boolTy(), false};
  Out.argTypes = {nullptr, nullptr};
  return Out;
}

// `v in c` (operator.contains(c, v)): c a tuple of numbers (each element
// compared with ==, as Python does) or a range of integers.
TypingResult typeContains(const TypingRequest &R) {
  expectArgs(R, 2, 2);
  noKeywords(R);
  TypeRef C = R.args[0].type, V = R.args[1].type;
  if (C->isTuple()) {
    if (!V->isNumeric())
      R.fail("'in' with a tuple compares numbers, not " + V->str());
    for (TypeRef E : C->elems())
      if (!E->isNumeric())
        R.fail("'in' compares the value with each element of the tuple; " +
                   C->str() + " holds " + E->str(),
               "kernels support 'in' on tuples of numbers and on ranges");
  } else if (C->kind() == Kind::Range) {
    if (!V->isIntegral())
      R.fail("'in' with a range takes an integer, not " + V->str());
  } else {
    R.fail("'in' is not supported for " + C->str(),
           "kernels support 'in' on tuples of numbers and on ranges");
  }
  TypingResult Out{boolTy(), false};
  Out.argTypes = {nullptr, nullptr};
  return Out;
}

TypingResult typeScalarCtor(const TypingRequest &R) {
  expectArgs(R, 0, 1);
  noKeywords(R);
  TypeRef Target = scalarFromName(R.info.sdata);
  if (R.args.empty())
    return {Target, true};
  TypeRef T = R.args[0].type;
  bc::ConstValue S;
  if (Target->isFloat() && T == strTy() && R.args[0].constant(S)) {
    // float("nan"), float("-inf"), float("1.5"): a constant
    double V;
    if (!parseFloatString(S.text, V))
      R.fail("could not convert string to float: '" + S.text + "'");
    TypingResult Out{Target, true};
    Out.argTypes = {nullptr};
    return Out;
  }
  if (!T->isNumeric() && !isFp8(T)) // an fp8 value converts (lower/Fp8.cpp)
    R.fail(name(R) + "() argument must be a number, not " + T->str());
  if (T->isComplex() && !Target->isBool())
    R.fail("can't convert complex to " + std::string(R.info.sdata));
  TypingResult Out{Target, true};
  // A conversion (InsertCasts: a Python int constant converts exactly, and
  // transforms/ConstantRanges checks it fits); complex -> bool is the
  // lowering's truth test.
  Out.argTypes = {T->isComplex() ? nullptr : Target};
  return Out;
}

TypingResult typeAbs(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  TypeRef T = numericArg(R, 0);
  if (T->isBool())
    T = int64Ty();
  if (T->isComplex())
    T = floatTy(T->bits() / 2);
  TypingResult Out{T, R.args[0].weak};
  Out.argTypes = {R.args[0].type->isBool() ? int64Ty() : nullptr};
  return Out;
}

TypingResult typeMinMax(const TypingRequest &R) {
  if (R.args.size() < 2)
    R.fail(name(R) + "() takes 2 or more numbers in kernels");
  noKeywords(R);
  Operand Acc{numericArg(R, 0), R.args[0].weak};
  for (size_t K = 1; K < R.args.size(); ++K) {
    bool W = false;
    Acc.type = promote(Acc, {numericArg(R, K), R.args[K].weak}, &W);
    Acc.weak = W;
  }
  if (Acc.type->isComplex())
    R.fail(name(R) + "() of complex numbers");
  TypingResult Out{Acc.type, Acc.weak};
  Out.argTypes.assign(R.args.size(), Acc.type);
  return Out;
}

// print(a, b, ...): numbers, bools, None and string constants; printed with
// spaces between and a newline, through vprintf (numba-cuda's formats:
// %lld / %llu for integers, %f for floats).
namespace {

// The number of vprintf arguments printing a value of type T takes (-1: it
// cannot be printed): numbers and bools one, None none, tuples their
// elements', cuda.threadIdx / blockIdx / blockDim / gridDim three.
int printSlots(TypeRef T) {
  if (T->isNumeric() && !T->isComplex())
    return 1;
  if (T->kind() == Kind::None)
    return 0;
  if (T->kind() == Kind::Intrinsic)
    return isDim3Namespace(T->name()) ? 3 : -1;
  if (T->kind() != Kind::Tuple)
    return -1;
  int N = 0;
  for (const Type *E : T->elems()) {
    int K = printSlots(E);
    if (K < 0)
      return -1;
    N += K;
  }
  return N;
}

} // namespace

TypingResult typePrint(const TypingRequest &R) {
  if (!R.kwnames.empty())
    R.fail("print() in kernels takes no keyword arguments (sep, end, file)",
           "print the values separated by spaces, one call per line");
  int Slots = 0;
  for (size_t K = 0; K < R.args.size(); ++K) {
    TypeRef T = R.args[K].type;
    bc::ConstValue C;
    if (T->kind() == Kind::Str && R.args[K].constant(C))
      continue;
    int N = printSlots(T);
    if (N < 0)
      R.fail("print() in kernels cannot print a " + T->str(),
             "print numbers, bools, string constants, tuples of those and "
             "cuda.threadIdx / blockIdx / blockDim / gridDim");
    Slots += N;
  }
  if (Slots > 32)
    R.fail(
        "print() in kernels prints at most 32 values per call (CUDA's vprintf "
        "takes 32 arguments); this one has " +
            std::to_string(Slots),
        "split it into several print() calls");
  return {noneTy()};
}

namespace {

// The promoted type of two numeric, non-complex arguments.
TypeRef promoteTwo(const TypingRequest &R, bool *Weak) {
  expectArgs(R, 2, 2);
  noKeywords(R);
  for (size_t K = 0; K < 2; ++K)
    if (numericArg(R, K)->isComplex())
      R.fail(name(R) + "() of complex numbers is not supported");
  TypeRef T = promote({R.args[0].type, R.args[0].weak},
                      {R.args[1].type, R.args[1].weak}, Weak);
  return T->isBool() ? int64Ty() : T;
}

} // namespace

// literal_unroll(t) is t (its loops are unrolled before typing).
TypingResult typeLiteralUnroll(const TypingRequest &R) {
  expectArgs(R, 1, 1);
  noKeywords(R);
  TypeRef T = R.args[0].type;
  if (!T->isTuple())
    R.fail("literal_unroll() takes a tuple, not " + T->str());
  return {T};
}

// tuple() is the empty tuple; tuple(t) of a tuple (or namedtuple) is a
// plain tuple of its elements.  Other iterables (arrays, ranges) have no
// length known when the kernel compiles, so they are refused.
TypingResult typeTupleCtor(const TypingRequest &R) {
  expectArgs(R, 0, 1);
  noKeywords(R);
  if (R.args.empty())
    return {tupleTy({})};
  TypeRef T = R.args[0].type;
  if (!T->isTuple())
    R.fail("tuple() in kernels takes a tuple, not " + T->str(),
           "the length of a kernel's tuple is fixed when it compiles: build "
           "it from elements, e.g. (a[0], a[1])");
  return {tupleTy(T->elems())};
}

// divmod(a, b) -> (a // b, a % b)
TypingResult typeDivmod(const TypingRequest &R) {
  bool W = false;
  TypeRef T = promoteTwo(R, &W);
  TypingResult Out{tupleTy({T, T})};
  Out.argTypes = {T, T};
  return Out;
}

// pow(a, b) == a ** b; pow(a, b, m) for integers.
TypingResult typePow(const TypingRequest &R) {
  if (R.args.size() == 3) {
    noKeywords(R);
    for (size_t K = 0; K < 3; ++K)
      if (!numericArg(R, K)->isIntegral())
        R.fail("pow() with 3 arguments needs integers");
    TypingResult Out{int64Ty()};
    Out.argTypes.assign(3, int64Ty());
    return Out;
  }
  bool W = false;
  expectArgs(R, 2, 2);
  noKeywords(R);
  // pow(a, b) is a ** b, complex numbers included.
  TypeRef T = numericArg(R, 0)->isComplex() || numericArg(R, 1)->isComplex()
                  ? promote({R.args[0].type, R.args[0].weak},
                            {R.args[1].type, R.args[1].weak}, &W)
                  : promoteTwo(R, &W);
  TypingResult Out{T, W};
  Out.argTypes = {T, T};
  return Out;
}

// round(x) -> int (half to even); round(x, n) -> the type of x.
TypingResult typeRound(const TypingRequest &R) {
  expectArgs(R, 1, 2);
  noKeywords(R);
  TypeRef T = numericArg(R, 0);
  if (T->isComplex())
    R.fail("round() of a complex number");
  if (R.args.size() == 2 && !R.args[1].type->isIntegral())
    R.fail("round() ndigits must be an integer");
  TypingResult Out;
  if (R.args.size() == 1)
    Out.type = T->isFloat() ? int64Ty() : (T->isBool() ? int64Ty() : T);
  else
    Out.type = T->isBool() ? int64Ty() : T;
  Out.weak = R.args[0].weak;
  Out.argTypes.assign(R.args.size(), nullptr);
  if (R.args.size() == 2)
    Out.argTypes[1] = int64Ty();
  return Out;
}

// enumerate(iterable, start=0)
TypingResult typeEnumerate(const TypingRequest &R) {
  int It = R.find(0, "iterable"), Start = R.find(1, "start");
  if (It < 0 || R.args.size() > 2)
    R.fail("enumerate() takes an iterable and an optional start");
  if (!iterElementType(R.args[It].type))
    R.fail("enumerate() of a " + R.args[It].type->str() + " is not supported",
           "iterate over arrays, tuples, ranges, enumerate() or zip()");
  if (Start >= 0 && !R.args[Start].type->isIntegral())
    R.fail("enumerate() start must be an integer");
  TypingResult Out{iterableTy("enumerate", {R.args[It].type})};
  Out.argTypes.assign(R.args.size(), nullptr);
  if (Start >= 0)
    Out.argTypes[Start] = int64Ty();
  return Out;
}

// zip(a, b, ...): stops at the shortest.
TypingResult typeZip(const TypingRequest &R) {
  noKeywords(R);
  if (R.args.empty())
    R.fail("zip() needs at least one iterable in kernels");
  std::vector<TypeRef> Inner;
  for (const ArgInfo &A : R.args) {
    if (!iterElementType(A.type))
      R.fail("zip() of a " + A.type->str() + " is not supported",
             "iterate over arrays, tuples, ranges, enumerate() or zip()");
    Inner.push_back(A.type);
  }
  return {iterableTy("zip", Inner)};
}

} // namespace pcj::stdlib::rules
