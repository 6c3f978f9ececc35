// ir::Resolver over a live Python function: its module globals, builtins
// and closure cells.  Classifies each Python object into a compile-time
// value (number, module, registry intrinsic, dtype, or unsupported).
#pragma once

#include "Glue.h"

#include "ir/CompileTimeValue.h"

namespace pcj::py {

class PyResolver : public ir::Resolver {
public:
  explicit PyResolver(PyObject *Func); // borrows Func for its lifetime

  ir::CTValue global(const std::string &Name) override;
  ir::CTValue deref(const std::string &Name) override;
  ir::CTValue attribute(const ir::CTValue &Module, const std::string &Attr) override;
  ir::CalleeInfo callee(const ir::CTValue &Function) override;

  // Python object -> compile-time value.
  static ir::CTValue classify(PyObject *O);

private:
  PyObject *Func;
};

} // namespace pcj::py
