// Test support: loads the bytecode fixtures written by
// tests/unit/fixtures/gen_bytecode_fixtures.py into a pcj::bc::RawCode (as
// the Python glue would fill it) plus `dis`'s view of the same code (the
// oracle the decoder is checked against).
//
// Layout: tests/unit/fixtures/bytecode/py3.X/opcodes.txt (the interpreter's
// opcode table) and py3.X/<function>.txt, one `key: value` per line.
#pragma once

#include "bytecode/RawCode.h"

#include <string>
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

struct BytecodeFixture {
  std::string path;
  std::string version; // "3.11"
  bc::RawCode raw;
  // expect: ok | unsupported <Kind> <line>
  bool expectOk = true;
  std::string expectKind;
  int expectLine = -1;
  std::vector<OracleInstr> oracle;
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
