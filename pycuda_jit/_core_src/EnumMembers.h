// Python Enum classes and members as kernels see them: an Enum class is a
// namespace of its members; a member of a plain Enum (not an int subclass)
// is a value of the type types::enumMemberTy(key of its class, type of its
// value); IntEnum members are ints.
#pragma once

#include "Glue.h"

#include "types/Type.h"

#include <string>

namespace pcj::py {

// Whether the class O was made by enum's metaclass (Enum, IntEnum, Flag...)
// or by another enum metaclass making int subclasses (cuda.bindings'
// FastEnum).
bool isEnumClass(PyObject *O);

// O's class when O is a member of an Enum class whose members are not ints
// (borrowed), else null.
PyObject *plainEnumClassOf(PyObject *O);

// The class's key in its member type: "module.Qualname@id" (one type per
// class object).
std::string enumClassKey(PyObject *Class);

// Whether an Enum member's value of type T can be held in kernels: a
// number, a bool, or a tuple of those.
bool enumValueType(types::TypeRef T);

} // namespace pcj::py
