// ir::Resolver over a live Python function: its module globals, builtins
// and closure cells.  Classifies each Python object into a compile-time
// value (number, module, registry intrinsic, dtype, or unsupported).
#pragma once

#include "Glue.h"

#include "ir/CompileTimeValue.h"

#include <memory>
#include <vector>

namespace pcj::py {

// What the resolvers of one compile -- the kernel's and those of the device
// functions it calls -- hand to the compiled code: shared among them.
struct CompileUses {
  // Device arrays captured by reference (globals and closure cells).
  std::vector<Ref> arrays;
  // The cuda.declare_device objects (ffi.ForeignFunction) called, each
  // once, in order of first use: their link= items' module-load callbacks
  // run for the kernel's modules (ModuleCallbacks.h).
  std::vector<Ref> foreign;
};

class PyResolver : public ir::Resolver {
public:
  explicit PyResolver(PyObject *Func); // borrows Func for its lifetime
  PyResolver(PyObject *Func, std::shared_ptr<CompileUses> Uses);

  ir::CTValue global(const std::string &Name) override;
  ir::CTValue deref(const std::string &Name) override;
  ir::CTValue attribute(const ir::CTValue &Module,
                        const std::string &Attr) override;
  ir::CalleeInfo callee(const ir::CTValue &Function) override;
  ir::CTValue nested(const std::string &Qualname, int ConstIndex) override;

  // Python object -> compile-time value.  Objects with a
  // __cuda_array_interface__ (device arrays, CuPy, torch...) are captured by
  // reference when Captures is given (appended there, to be kept alive as
  // long as the code using their address), refused otherwise.
  static ir::CTValue classify(PyObject *O,
                              std::vector<Ref> *Captures = nullptr);

  // The device arrays captured so far, by this resolver and the resolvers of
  // the device functions it handed out.
  const std::vector<Ref> &captured() const { return Uses->arrays; }
  // The foreign functions they called so far (CompileUses::foreign).
  const std::vector<Ref> &foreignFunctions() const { return Uses->foreign; }

  // A member O of the plain Enum class Cls (EnumMembers.h).
  static ir::CTValue enumMember(PyObject *O, PyObject *Cls);

private:
  PyObject *Func;
  std::shared_ptr<CompileUses> Uses;
};

} // namespace pcj::py
