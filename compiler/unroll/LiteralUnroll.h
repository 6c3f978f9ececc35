// Stage 1b: `for x in literal_unroll(t)` loops become one copy of the loop
// body per element of the tuple `t` (numba's literal_unroll), so that each
// copy sees its element with the element's own type:
//
//   LOAD_GLOBAL literal_unroll; LOAD_FAST t; CALL 1     (t: Tuple(int64,
//   float32)) GET_ITER L: FOR_ITER -> E; STORE_FAST x; <body>; JUMP L E: ...
// =>
//   LOAD_GLOBAL literal_unroll; LOAD_FAST t; CALL 1
//   COPY 1; LOAD_CONST 0; BINARY_SUBSCR; STORE_FAST x; <body, `continue` ->
//   next copy> COPY 1; LOAD_CONST 1; BINARY_SUBSCR; STORE_FAST x; <body>
//   POP_TOP; JUMP E
//   E: ...
//
// The tuple's length must be known before typing: a tuple parameter (from
// the signature being compiled), a global or closure variable holding a
// tuple, a tuple display, or a local assigned once from one of those
// displays.  Anything else is a TypingError at the loop's line.
#pragma once

#include "bytecode/Instr.h"
#include "ir/CompileTimeValue.h"
#include "types/Type.h"

#include <vector>

namespace pcj::unroll {

// Unrolls every literal_unroll loop of `Code` (nested ones included).
// `Args` are the parameter types of the specialization being compiled.
// Returns whether it changed anything.
bool unrollLiteralLoops(bc::DecodedCode &Code,
                        const std::vector<types::TypeRef> &Args,
                        ir::Resolver &R);

} // namespace pcj::unroll
