// Private to the decoder: what each CPython opcode *name* means in each
// supported version, and the first decoding step that turns co_code into a
// list of raw instructions (EXTENDED_ARG folded, inline caches skipped, jump
// targets resolved to byte offsets, source positions attached).
//
// Opcode numbers come only from RawCode::opcodes; the table here is keyed by
// name, e.g. {"POP_JUMP_IF_FALSE", 10, 10, ..., Absolute} and
// {"POP_JUMP_IF_FALSE", 12, 13, ..., Forward}.
#pragma once

#include "bytecode/Instr.h"
#include "bytecode/RawCode.h"

#include <cstdint>
#include <vector>

namespace pcj::bc::detail {

// What a raw opcode does; the decoder switches on this.
enum class RawKind : uint8_t {
  Drop,        // emits nothing (NOP, RESUME, PRECALL, MAKE_CELL, ...)
  ExtendedArg, // folded into the next instruction's argument
  Simple,      // one neutral op without operand: param = (int)Op
  WithArg,     // one neutral op, raw arg copied: param = (int)Op
  RotN,        // ROT_*: param = n (0: n = arg)
  Dup,         // DUP_TOP (param 1) / DUP_TOP_TWO (param 2)
  LoadConst,
  ReturnConst,
  LoadFast,          // incl. LOAD_FAST_CHECK
  LoadFastLoadFast,  // 3.13 super-instructions: arg>>4 then arg&15
  StoreFastLoadFast, //
  StoreFastStoreFast,
  StoreFast,
  LoadDeref,  // param: 0 = index into cellvars+freevars, 1 = localsplus
  StoreDeref, // param as LoadDeref
  LoadClosure,
  LoadGlobal, // param: 0 = arg is the name, 1 = NULL bit, NULL first,
              //        2 = NULL bit, NULL after the global
  LoadAttr,   // param: 0 = arg is the name, 1 = arg>>1 with a method bit
  LoadMethod,
  StoreAttr,
  BinaryLegacy, // 3.10 BINARY_*/INPLACE_*: param = BinOpKind | 0x100 inplace
  BinaryOp,     // 3.11+ BINARY_OP: arg indexes OpcodeTable::binaryOps
  CompareOp,    // param = shift applied to arg
  BinarySlice,
  StoreSlice,
  CallIntrinsic1,
  CallLegacy,   // 3.10 CALL_FUNCTION (param 0) / CALL_METHOD (param 1)
  CallLegacyKw, // 3.10 CALL_FUNCTION_KW
  Call,         // 3.11+ CALL
  CallKw,       // 3.13 CALL_KW
  CallEx,       // CALL_FUNCTION_EX: param 1 = a callable pair (3.11+)
  KwNames,      // 3.11/3.12 KW_NAMES
  Jump,         // unconditional: JUMP_FORWARD/ABSOLUTE/BACKWARD...
  CondJump,     // param = (int)Op of the neutral conditional jump
  ForIter,      // param = raw instructions skipped at the exhaustion target
                //         (3.12: END_FOR; 3.13: END_FOR, POP_TOP)
  EndFor,       // param = values popped (3.12: 2, 3.13: 1)
  MakeFunction, // param: 0 = 3.10 (code, qualname, flags in arg),
                //        1 = 3.11/3.12 (code, flags in arg), 2 = 3.13 (code)
  SetFunctionAttribute, // 3.13
  Unsupported,          // param = (int)UnsupportedKind
};

enum class JumpMode : uint8_t { None, Absolute, Forward, Backward };

struct RawOpInfo {
  const char *name;
  int minMinor, maxMinor; // Python 3.minMinor .. 3.maxMinor
  RawKind kind;
  int param = 0;
  JumpMode jump = JumpMode::None;
};

// The spec for `Name` under Python 3.Minor; an Unsupported(Other) spec when
// the name is not known.
const RawOpInfo &lookupOpInfo(const std::string &Name, int Minor);

struct RawInstr {
  int start = 0;  // byte offset of its first EXTENDED_ARG (jumps land here)
  int offset = 0; // byte offset of the opcode itself
  int next = 0;   // byte offset after it and its inline caches
  int opcode = 0;
  uint32_t arg = 0;
  const RawOpInfo *info = nullptr;
  const std::string *opname = nullptr;
  int jumpTo = -1; // jumps: target byte offset
  int line = -1, col = -1, endCol = -1;
};

// The opcode-number -> spec dispatch for one interpreter, built once per
// OpcodeTable from the names in its opmap.
struct Dispatch {
  std::vector<const RawOpInfo *> info;   // by opcode number
  std::vector<const std::string *> name; // by opcode number
  std::vector<int> caches;               // by opcode number
  int haveArgument = 0;
};
Dispatch buildDispatch(const OpcodeTable &T, int Minor);

// co_code -> raw instructions.  Throws CompileError(Bytecode) on truncated
// code or unknown opcode numbers.
std::vector<RawInstr> scanRaw(const RawCode &Raw, const Dispatch &D,
                              const SourceLoc &FnLoc);

// One co_exceptiontable entry, in byte offsets.
struct ExceptionEntry {
  int start = 0, end = 0, target = 0, depth = 0;
  bool lasti = false;
};
std::vector<ExceptionEntry> parseExceptionTable(const std::string &Table,
                                                const SourceLoc &FnLoc);

[[noreturn]] void malformed(const SourceLoc &Loc, const std::string &Msg);

} // namespace pcj::bc::detail
