// Typing rules for array attributes (registry/array.def).
#include "stdlib/typing/RuleHelpers.h"

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

} // namespace pcj::stdlib::rules
