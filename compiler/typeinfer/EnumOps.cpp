// Typing of the members of plain Enum classes (types::Kind::EnumMember; an
// IntEnum's members are ints).  A member holds its value at run time; the
// class is in its type, so the class decides what typing can:
//   Color.red == Color.green    (one class)   -> compare the values
//   Color.red == Shape.circle   (two classes) -> const False (Python's Enum)
//   a is b                      (one class)   -> a == b (one value, one member)
//   a is b                      (two classes) -> False, from the types
//   a.value                                   -> cast(a) to the value's type
// Members are not ordered (`<` is a TypingError, a TypeError in Python).
#include "typeinfer/Inferrer.h"

namespace pcj::typeinfer::detail {

namespace {

// Whether values of T compare with == in kernels: numbers, bools, and
// tuples of those.
bool comparableValue(TypeRef T) {
  if (T->isTuple()) {
    for (TypeRef E : T->elems())
      if (!comparableValue(E))
        return false;
    return true;
  }
  return T->isNumeric();
}

// I becomes the constant V.
void makeConstBool(Instr *I, bool V) {
  I->op = Op::Const;
  I->cval = bc::ConstValue::ofBool(V);
  I->operands.clear();
  I->argTypes.clear();
  I->index = 0;
}

} // namespace

bool Inferrer::inferEnumCompare(Instr *I, InferredType &Out) {
  TypeRef TA = I->operands[0]->type, TB = I->operands[1]->type;
  auto K = bc::CmpKind(I->index);
  if (K != bc::CmpKind::Eq && K != bc::CmpKind::Ne)
    fail(I,
         "Enum members are not ordered: cannot compare " + TA->str() + " and " +
             TB->str() + " with " + bc::cmpSymbol(K),
         "compare their .value");
  Out = {boolTy(), false};
  if (TA != TB) {
    // Members of different classes, or a member and another value, are
    // never equal (Enum's __eq__ is identity).
    makeConstBool(I, K == bc::CmpKind::Ne);
    return true;
  }
  if (!comparableValue(TA->inner()))
    fail(I, "members of " + TA->str() + " cannot be compared in kernels",
         "kernels compare members whose values are numbers or tuples of "
         "numbers");
  // Lowering compares the values (lower/Arith.cpp lowerValueEquality).
  I->argTypes.assign(2, nullptr);
  return true;
}

bool Inferrer::inferEnumIs(Instr *I, InferredType &Out) {
  TypeRef TA = I->operands[0]->type, TB = I->operands[1]->type;
  Out = {boolTy(), false};
  if (TA != TB) { // different classes (or a member and another value)
    makeConstBool(I, I->index != 0);
    return true;
  }
  // One class: a value names one member, so identity is equality.
  I->op = Op::Compare;
  I->index = int64_t(I->index ? bc::CmpKind::Ne : bc::CmpKind::Eq);
  return inferEnumCompare(I, Out);
}

bool Inferrer::inferEnumAttr(Instr *I, InferredType &Out) {
  TypeRef T = I->operands[0]->type;
  if (I->str != "value" && I->str != "_value_")
    fail(I, "'" + T->str() + "' has no attribute '" + I->str + "' in kernels",
         "kernels read an Enum member's .value", ErrorKind::Name);
  // The member holds its value: a conversion to the value's own type.
  I->op = Op::Cast;
  I->str.clear();
  I->ct = ir::CTValue::invalid();
  I->type = T->inner();
  I->argTypes.clear();
  Out = {T->inner(), false};
  return true;
}

} // namespace pcj::typeinfer::detail
