// Stage 1: CPython bytecode -> version-neutral instructions.
//
// The only place in the project that knows Python versions exist.  Supports
// CPython 3.10, 3.11, 3.12 and 3.13; opcode numbers come from the RawCode's
// OpcodeTable (the running interpreter's `opcode` module), never from
// hard-coded tables.  Handles EXTENDED_ARG, inline cache entries, relative /
// absolute / backward jumps, super-instructions, and assigns every
// instruction its source line (and columns where the version has them).
//
// Throws CompileError(Bytecode) for unknown versions or malformed code, and
// CompileError(Unsupported) for functions that are generators/coroutines or
// use exception handling (which the kernel language does not have).
#pragma once

#include "bytecode/Instr.h"

namespace pcj::bc {

DecodedCode decode(const RawCode &Raw);

} // namespace pcj::bc
