// RawCode: everything the compiler reads from a CPython code object, as plain
// C++ data.  The Python glue (pycuda_jit/_core) fills it from a live code
// object; tests fill it from fixture files written by
// tests/unit/fixtures/gen_bytecode_fixtures.py under each supported Python.
// Nothing here interprets the bytes: that is the decoder's job.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pcj::bc {

// A constant from co_consts, or any compile-time scalar/tuple.
struct ConstValue {
  enum class Kind : uint8_t {
    None,
    Bool,
    Int,
    Float,
    Complex,
    Str,
    Bytes,
    Tuple,
    Ellipsis,
    Code,  // nested code object (lambda / def inside the kernel);
           // `text` holds its co_qualname (3.10: co_name)
    Other, // anything else; `text` holds its repr
  };
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;
  // A Python int outside int64: `text` holds its exact decimal (and `i` is
  // 0, meaningless); read ints through the helpers below.
  bool bigInt = false;
  double f = 0, imag = 0;
  std::string text;              // Str, Bytes, Other (repr), big ints
  std::vector<ConstValue> elems; // Tuple

  static ConstValue none() { return {}; }
  static ConstValue ofBool(bool V) {
    ConstValue C;
    C.kind = Kind::Bool;
    C.b = V;
    return C;
  }
  static ConstValue ofInt(int64_t V) {
    ConstValue C;
    C.kind = Kind::Int;
    C.i = V;
    return C;
  }
  static ConstValue ofFloat(double V) {
    ConstValue C;
    C.kind = Kind::Float;
    C.f = V;
    return C;
  }
  static ConstValue ofStr(std::string V) {
    ConstValue C;
    C.kind = Kind::Str;
    C.text = std::move(V);
    return C;
  }

  // An Int that fits int64 (its value is `i`).
  bool isSmallInt() const { return kind == Kind::Int && !bigInt; }
  // An Int in [0, 2**64): its value in Out.
  bool asUInt64(uint64_t &Out) const;
  // An Int in [-2**(Bits-1), 2**(Bits-1)) (Signed) or [0, 2**Bits)
  // (unsigned), Bits <= 64: whether it fits a fixed-width integer.
  bool fitsInt(unsigned Bits, bool Signed) const;
  // An Int as Python's float(int) gives it (correctly rounded, ties to
  // even); false where Python raises OverflowError (too large for a double).
  bool asDouble(double &Out) const;

  // Python-like repr, deterministic (used by dumps and cache keys).
  std::string repr() const;
  bool operator==(const ConstValue &O) const;
};

// The running interpreter's opcode numbering.  Names are CPython's opnames;
// `cacheEntries[op]` is the number of inline cache code units after `op`
// (3.11/3.12: opcode._inline_cache_entries; 3.13: that name -> count dict
// turned into a list by number; 3.10: none).
struct OpcodeTable {
  std::map<std::string, int> opmap;
  std::vector<int> cacheEntries; // indexed by opcode number; may be empty
  int haveArgument = 90;         // opcode.HAVE_ARGUMENT

  // Operand tables that some opcodes index into.  The defaults are CPython's
  // (identical in 3.10-3.13, checked by tests/unit/bytecode_test.cpp); the
  // glue may refill them from the interpreter.
  // COMPARE_OP's comparison (opcode.cmp_op).
  std::vector<std::string> cmpOps = {"<", "<=", "==", "!=", ">", ">="};
  // BINARY_OP's operator symbols, "+=" etc. for in-place (3.11+:
  // opcode._nb_ops / dis._nb_ops, second elements).
  std::vector<std::string> binaryOps = {
      "+",  "&",  "//", "<<",  "@",   "*",  "%",   "|",   "**",
      ">>", "-",  "/",  "^",   "+=",  "&=", "//=", "<<=", "@=",
      "*=", "%=", "|=", "**=", ">>=", "-=", "/=",  "^="};
  // CALL_INTRINSIC_1's functions (3.12+: opcode._intrinsic_1_descs).
  std::vector<std::string> intrinsic1 = {
      "INTRINSIC_1_INVALID",      "INTRINSIC_PRINT",
      "INTRINSIC_IMPORT_STAR",    "INTRINSIC_STOPITERATION_ERROR",
      "INTRINSIC_ASYNC_GEN_WRAP", "INTRINSIC_UNARY_POSITIVE",
      "INTRINSIC_LIST_TO_TUPLE"};

  int number(const std::string &Name) const; // -1 when absent
};

// One co_lines() entry: the bytes [start, end) of co_code (byte offsets, as
// co_lines() reports them) belong to `line` (-1: None).
struct LineRange {
  int start = 0, end = 0, line = -1;
};

// One co_positions() entry per code unit (3.11+); columns are -1 when absent.
struct Position {
  int line = -1, endLine = -1, col = -1, endCol = -1;
};

struct RawCode {
  int pyMajor = 3, pyMinor = 11;
  std::string name, qualname, filename;
  int firstLineNo = 0; // co_firstlineno: the first decorator's line
  int defLine = 0;     // the `def` line (from the source); 0: unknown
  int argCount = 0, posOnlyArgCount = 0, kwOnlyArgCount = 0, flags = 0;
  std::string code; // co_code (the de-specialized bytes)
  std::vector<ConstValue> consts;
  std::vector<std::string> names, varnames, cellvars, freevars;
  std::vector<LineRange> lines;    // co_lines()
  std::vector<Position> positions; // co_positions(), one per code unit
  std::string exceptionTable;      // co_exceptiontable (3.11+)
  int stackSize = 0;               // co_stacksize (informational)
  OpcodeTable opcodes;
  // A nested function or lambda compiled on its own (the glue sets it):
  // its free variables become its first parameters, which the caller
  // passes the captured values in.
  bool freevarsAsParams = false;
  // A device function with *args, specialized for a call (the compiler
  // sets it): the *args tuple is its last positional parameter.
  bool varargsAsParam = false;
};

} // namespace pcj::bc
