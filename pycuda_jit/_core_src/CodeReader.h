// Reads a live CPython function/code object into bc::RawCode (plain C++
// data for the decoder), and the running interpreter's opcode table.
#pragma once

#include "Glue.h"

#include "bytecode/RawCode.h"

namespace pcj::py {

// `Func` is a Python function; reads its __code__.
bc::RawCode readCode(PyObject *Func);
// A Python constant -> ConstValue (ints beyond int64 are marked bigInt).
bc::ConstValue readConst(PyObject *O);

} // namespace pcj::py
