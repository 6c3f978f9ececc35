// Test support: loads the bytecode fixtures written by
// tests/unit/fixtures/gen_bytecode_fixtures.py into a pcj::bc::RawCode (as
// the Python glue would fill it) plus `dis`'s view of the same code (the
// oracle the decoder is checked against).
//
// Layout: tests/unit/fixtures/bytecode/py3.X/opcodes.txt (the interpreter's
// opcode table) and py3.X/<function>.txt, one `key: value` per line.  Besides
// the code object, a fixture may carry source marks, the constant globals /
// closure variables the function reads and CPython's results for a few
// argument tuples (used by ssa_test.cpp and typeinfer_test.cpp).
#pragma once

#include "bytecode/RawCode.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace pcj::test {

// One row of dis.get_instructions().
struct OracleInstr {
  int offset = 0;
  std::string opname;
  int arg = -1;    // -1: no argument
  int target = -1; // jump target byte offset, -1: not a jump
  int line = -1;   // the instruction's line (inherited when dis has none)
  std::string argrepr;
};

// One `case:` line: arguments and what CPython computed for them.
struct FixtureCase {
  std::vector<bc::ConstValue> args;
  bc::ConstValue result; // when `raises` is empty
  std::string raises;    // "TypeError": CPython raised this instead
};

struct BytecodeFixture {
  std::string path;
  std::string version; // "3.11"
  bc::RawCode raw;
  // expect: ok | unsupported <Kind> <line>
  bool expectOk = true;
  std::string expectKind;
  int expectLine = -1;
  std::vector<OracleInstr> oracle;
  // For the SSA / typing tests (all optional):
  // `mark: TAG LINE`: lines of the sample's source carrying `# <TAG`.
  std::map<std::string, std::vector<int>> marks;
  // `global: NAME CONST` / `deref: NAME CONST`: constant globals and closure
  // variables the sample reads, in the order recorded.
  std::vector<std::pair<std::string, bc::ConstValue>> globals, derefs;
  // `case: ARGS -> RESULT`.
  std::vector<FixtureCase> cases;

  // marks[Tag], or empty.
  std::vector<int> marked(const std::string &Tag) const;
};

// The opcode table of one interpreter (py3.X/opcodes.txt).
bc::OpcodeTable loadOpcodeTable(const std::string &Path);

// A function fixture; reads opcodes.txt from the same directory.
BytecodeFixture loadBytecodeFixture(const std::string &Path);

// tests/unit/fixtures/bytecode
std::string bytecodeFixtureRoot();
// Sorted function names with a fixture for `Version` ("3.10" ...).
std::vector<std::string> bytecodeFixtureNames(const std::string &Version);
// loadBytecodeFixture(root/py<Version>/<Name>.txt)
BytecodeFixture loadBytecodeFixture(const std::string &Version,
                                    const std::string &Name);

} // namespace pcj::test
