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

} // namespace pcj::stdlib::rules
