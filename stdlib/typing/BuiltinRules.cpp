// Typing rules for Python builtins (registry/builtins.def).
#include "stdlib/typing/RuleHelpers.h"

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
  TypeRef C = Acc.type;
  if (!C->isInt())
    C = int64Ty();
  if (!C->isInt())
    R.fail("range() arguments do not have a common integer type");
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

TypingResult typeScalarCtor(const TypingRequest &R) {
  expectArgs(R, 0, 1);
  noKeywords(R);
  TypeRef Target = scalarFromName(R.info.sdata);
  if (R.args.empty())
    return {Target, true};
  TypeRef T = R.args[0].type;
  if (!T->isNumeric())
    R.fail(name(R) + "() argument must be a number, not " + T->str());
  if (T->isComplex() && !Target->isBool())
    R.fail("can't convert complex to " + std::string(R.info.sdata));
  TypingResult Out{Target, true};
  Out.argTypes = {nullptr}; // converted by the lowering (truth / trunc)
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
TypingResult typePrint(const TypingRequest &R) {
  if (!R.kwnames.empty())
    R.fail("print() in kernels takes no keyword arguments (sep, end, file)",
           "print the values separated by spaces, one call per line");
  for (size_t K = 0; K < R.args.size(); ++K) {
    TypeRef T = R.args[K].type;
    bc::ConstValue C;
    if (T->kind() == Kind::Str && R.args[K].constant(C))
      continue;
    if ((T->isNumeric() && !T->isComplex()) || T->kind() == Kind::None)
      continue;
    R.fail("print() in kernels cannot print a " + T->str(),
           "print numbers, bools and string constants");
  }
  return {noneTy()};
}

} // namespace pcj::stdlib::rules
