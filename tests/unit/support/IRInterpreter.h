// Test support: a small interpreter for the SSA IR (ir::Function), used to
// check that decoding + CFG + SSA construction (and type inference) preserve
// the meaning of the Python code they came from.
//
// It evaluates a function built by ssa::buildSSA on concrete arguments with
// Python semantics: ints (held in int64; leaving int64 is an InterpError, not
// a silent wrap), floats (CPython's floor division / modulo / pow rules),
// bools (an int subtype: True + True == 2, True & True is True), None,
// tuples, strings (as constants), `range` iteration (GetIter / ForIter),
// phis chosen by the incoming edge, and calls of the builtins range, abs,
// min, max, len, int, float, bool and math.sqrt / math.floor.  Globals and
// closure variables come from an InterpEnv, which may also provide host
// functions (e.g. a C++ version of a Python helper).
//
// Typed mode (InterpOptions::typed) runs a function after
// typeinfer::inferTypes: operands are first converted to Instr::argTypes and
// every result to Instr::type, so ints wrap to their width and float32
// rounds; int arithmetic wraps instead of failing.
//
// Anything it does not model (an op, a value, an int64 overflow in untyped
// mode, a step limit) throws InterpError so that a test fails loudly instead
// of passing.  A Python-level exception the code would raise (TypeError,
// ZeroDivisionError, ...) is a PyError naming the exception class.
//
// The implementation only reads the IR's data structures (no functions
// from the compiler libraries), because tests/unit/support/*.cpp is also
// linked into pcj_runtime_tests, which does not link the compiler.
#pragma once

#include "bytecode/RawCode.h"
#include "ir/IR.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace pcj::test {

struct RangeIterState;

struct Value {
  enum class Kind : uint8_t {
    Undef, // a local not assigned on the path taken
    None,
    Bool,
    Int,
    Float,
    Str,
    Tuple,
    Range,     // range(start, stop, step)
    RangeIter, // iterator over a range (shared, mutable state)
    Builtin,   // a builtin function: `name` ("range", "math.sqrt")
    Module,    // a module: `name` ("math")
    Host,      // a host function from InterpEnv::functions: `name`
  };
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string name;         // Str text; Builtin / Module / Host name
  std::vector<Value> elems; // Tuple
  int64_t start = 0, stop = 0, step = 1; // Range
  std::shared_ptr<RangeIterState> iter;  // RangeIter

  static Value none() { return {}; }
  static Value ofBool(bool V);
  static Value ofInt(int64_t V);
  static Value ofFloat(double V);
  static Value ofStr(std::string S);
  static Value tuple(std::vector<Value> Elems);

  bool isNumeric() const {
    return kind == Kind::Bool || kind == Kind::Int || kind == Kind::Float;
  }
};

struct RangeIterState {
  int64_t cur = 0, stop = 0, step = 1;
};

// Python-like text: None, True, 3, -0.5, (1, 2.5), 'abc'.
std::string repr(const Value &V);
// Strict equality for test oracles: same kind (bool is not int), ints
// equal, floats bit-identical (so -0.0 != 0.0; NaNs are equal), tuples
// element-wise.
bool sameValue(const Value &A, const Value &B);
// A recorded constant as a Value; throws InterpError for kinds the
// interpreter does not model (complex, bytes, big ints, ...).
Value fromConst(const bc::ConstValue &C);

// The interpreter cannot evaluate this: the test must fail.
class InterpError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// The code raised a Python exception (`type` is its class name).
class PyError : public std::runtime_error {
public:
  PyError(std::string Type, const std::string &Msg)
      : std::runtime_error(Type + ": " + Msg), type(std::move(Type)) {}
  std::string type;
};

using HostFunction = std::function<Value(
    const std::vector<Value> &Args, const std::vector<std::string> &KwNames)>;

struct InterpEnv {
  std::map<std::string, Value> globals; // looked up before the builtins
  std::map<std::string, Value> derefs;  // closure variables
  std::map<std::string, HostFunction> functions; // globals naming host code
};

struct InterpOptions {
  bool typed = false;          // apply Instr::argTypes / Instr::type
  uint64_t maxSteps = 5000000; // executed instructions before giving up
};

struct InterpStats {
  uint64_t steps = 0;
  uint64_t intWraps = 0; // typed mode: conversions that changed an int
};

// Runs `F` on `Args`; returns what its Return returns.
Value interpret(const ir::Function &F, const std::vector<Value> &Args,
                const InterpEnv &Env = {}, const InterpOptions &O = {},
                InterpStats *Stats = nullptr);

// Python's `A op B` for bc::BinOpKind `Op`, and `A cmp B` for bc::CmpKind
// `Cmp` (untyped: int64 overflow is an InterpError).
Value pyBinOp(int Op, const Value &A, const Value &B);
bool pyCompare(int Cmp, const Value &A, const Value &B);

struct BytecodeFixture;
// The environment of the fixture samples (gen_bytecode_fixtures.py): the
// constant globals / closure variables the fixture recorded, plus host
// versions of the generator's `helper(a, b=1, c=2)` and of `print` (which
// appends its line to *Printed when given).
InterpEnv sampleEnv(const BytecodeFixture &F,
                    std::vector<std::string> *Printed = nullptr);

} // namespace pcj::test
