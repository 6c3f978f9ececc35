// type_of(value): the kernel type a Python value has as a kernel argument
// (the rule the dispatcher uses), described as plain Python data for
// pycuda_jit/types.py to build its type objects from.
#pragma once

#include "Glue.h"

#include "types/Type.h"

namespace pcj::py {

// A type as Python data: a scalar name ("float32", "none"), or
// ("array", dtype, ndim, layout), ("tuple", (elems...), class or None,
// (fields...)), ("record", ((name, type, offset), ...), size, align).
PyObject *describeType(types::TypeRef T);

// _core.type_of(value)
PyObject *pyTypeOf(PyObject *Module, PyObject *Value);

} // namespace pcj::py
