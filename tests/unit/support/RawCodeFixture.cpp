// Loader for the bytecode fixtures (see RawCodeFixture.h and
// tests/unit/fixtures/gen_bytecode_fixtures.py for the format).  Unknown keys
// are errors, so a typo in the generator cannot silently drop data.
#include "support/RawCodeFixture.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#ifndef PCJ_FIXTURE_DIR
#error "PCJ_FIXTURE_DIR must point at tests/unit/fixtures"
#endif

namespace pcj::test {

namespace {

using bc::ConstValue;

[[noreturn]] void fail(const std::string &Where, const std::string &Msg) {
  throw std::runtime_error(Where + ": " + Msg);
}

struct KeyValue {
  std::string key, value;
  int lineNo;
};

std::vector<KeyValue> readKeyValues(const std::string &Path) {
  std::ifstream In(Path);
  if (!In)
    fail(Path, "cannot open");
  std::vector<KeyValue> Out;
  std::string Line;
  int No = 0;
  while (std::getline(In, Line)) {
    ++No;
    if (Line.empty() || Line[0] == '#')
      continue;
    size_t Colon = Line.find(':');
    if (Colon == std::string::npos)
      fail(Path + ":" + std::to_string(No), "expected `key: value`");
    std::string V = Line.substr(Colon + 1);
    if (!V.empty() && V[0] == ' ')
      V.erase(0, 1);
    Out.push_back({Line.substr(0, Colon), V, No});
  }
  return Out;
}

// Whitespace-separated tokens; a token may contain one "quoted" part
// (quotes inside are always escaped as \x22, so no nesting).
std::vector<std::string> tokens(const std::string &S) {
  std::vector<std::string> Out;
  size_t I = 0;
  while (I < S.size()) {
    while (I < S.size() && S[I] == ' ')
      ++I;
    if (I >= S.size())
      break;
    size_t J = I;
    bool InQuote = false;
    while (J < S.size() && (InQuote || S[J] != ' ')) {
      if (S[J] == '"')
        InQuote = !InQuote;
      ++J;
    }
    Out.push_back(S.substr(I, J - I));
    I = J;
  }
  return Out;
}

// "text with \xHH escapes" -> raw bytes.
std::string unquote(const std::string &Where, const std::string &Q) {
  if (Q.size() < 2 || Q.front() != '"' || Q.back() != '"')
    fail(Where, "expected a quoted string: " + Q);
  std::string Out;
  for (size_t I = 1; I + 1 < Q.size(); ++I) {
    if (Q[I] != '\\') {
      Out += Q[I];
      continue;
    }
    if (I + 3 >= Q.size() || Q[I + 1] != 'x')
      fail(Where, "bad escape in " + Q);
    Out += (char)std::stoi(Q.substr(I + 2, 2), nullptr, 16);
    I += 3;
  }
  return Out;
}

int toInt(const std::string &Where, const std::string &S) {
  if (S == "-")
    return -1;
  int V = 0;
  auto R = std::from_chars(S.data(), S.data() + S.size(), V);
  if (R.ec != std::errc() || R.ptr != S.data() + S.size())
    fail(Where, "expected an integer: '" + S + "'");
  return V;
}

std::vector<std::string> splitOn(const std::string &S, char Sep) {
  std::vector<std::string> Out;
  std::string Cur;
  std::istringstream In(S);
  while (std::getline(In, Cur, Sep))
    Out.push_back(Cur);
  return Out;
}

std::string fromHex(const std::string &Where, const std::string &H) {
  if (H.size() % 2)
    fail(Where, "odd-length hex");
  std::string Out;
  for (size_t I = 0; I < H.size(); I += 2)
    Out += (char)std::stoi(H.substr(I, 2), nullptr, 16);
  return Out;
}

double toDouble(const std::string &Where, const std::string &S) {
  char *End = nullptr;
  double D = std::strtod(S.c_str(), &End);
  if (End != S.c_str() + S.size())
    fail(Where, "expected a float: " + S);
  return D;
}

ConstValue parseConst(const std::string &Where,
                      const std::vector<std::string> &Toks, size_t &Pos) {
  if (Pos >= Toks.size())
    fail(Where, "truncated constant");
  const std::string T = Toks[Pos++];
  size_t Colon = T.find(':');
  std::string Tag = T.substr(0, Colon);
  std::string Body = Colon == std::string::npos ? "" : T.substr(Colon + 1);
  ConstValue C;
  if (Tag == "None")
    return ConstValue::none();
  if (Tag == "True" || Tag == "False")
    return ConstValue::ofBool(Tag == "True");
  if (Tag == "Ellipsis") {
    C.kind = ConstValue::Kind::Ellipsis;
    return C;
  }
  if (Tag == "int") {
    int64_t V = 0;
    auto R = std::from_chars(Body.data(), Body.data() + Body.size(), V);
    if (R.ec == std::errc() && R.ptr == Body.data() + Body.size())
      return ConstValue::ofInt(V);
    C.kind = ConstValue::Kind::Int;
    C.bigInt = true;
    C.text = Body;
    return C;
  }
  if (Tag == "float")
    return ConstValue::ofFloat(toDouble(Where, Body));
  if (Tag == "complex") {
    auto Parts = splitOn(Body, ':');
    if (Parts.size() != 2)
      fail(Where, "bad complex " + T);
    C.kind = ConstValue::Kind::Complex;
    C.f = toDouble(Where, Parts[0]);
    C.imag = toDouble(Where, Parts[1]);
    return C;
  }
  if (Tag == "str")
    return ConstValue::ofStr(unquote(Where, Body));
  if (Tag == "bytes" || Tag == "code" || Tag == "other") {
    C.kind = Tag == "bytes"  ? ConstValue::Kind::Bytes
             : Tag == "code" ? ConstValue::Kind::Code
                             : ConstValue::Kind::Other;
    C.text = unquote(Where, Body);
    return C;
  }
  if (Tag == "tuple") {
    C.kind = ConstValue::Kind::Tuple;
    int N = toInt(Where, Body);
    for (int I = 0; I < N; ++I)
      C.elems.push_back(parseConst(Where, Toks, Pos));
    return C;
  }
  fail(Where, "unknown constant token " + T);
}

} // namespace

bc::OpcodeTable loadOpcodeTable(const std::string &Path) {
  bc::OpcodeTable T;
  for (const KeyValue &KV : readKeyValues(Path)) {
    std::string Where = Path + ":" + std::to_string(KV.lineNo);
    auto Toks = tokens(KV.value);
    if (KV.key == "have_argument") {
      T.haveArgument = toInt(Where, KV.value);
    } else if (KV.key == "op") {
      if (Toks.size() != 3)
        fail(Where, "expected `op: NAME NUMBER CACHES`");
      int Num = toInt(Where, Toks[1]);
      T.opmap[Toks[0]] = Num;
      int Caches = toInt(Where, Toks[2]);
      if (Caches > 0 || !T.cacheEntries.empty()) {
        if ((int)T.cacheEntries.size() <= Num)
          T.cacheEntries.resize(Num + 1, 0);
        T.cacheEntries[Num] = Caches;
      }
    } else if (KV.key == "cmp_op") {
      T.cmpOps = Toks;
    } else if (KV.key == "nb_op") {
      T.binaryOps = Toks;
    } else if (KV.key == "intrinsic1") {
      T.intrinsic1 = Toks;
    }
  }
  return T;
}

BytecodeFixture loadBytecodeFixture(const std::string &Path) {
  BytecodeFixture F;
  F.path = Path;
  bc::RawCode &R = F.raw;
  std::filesystem::path Dir = std::filesystem::path(Path).parent_path();
  R.opcodes = loadOpcodeTable((Dir / "opcodes.txt").string());
  for (const KeyValue &KV : readKeyValues(Path)) {
    std::string Where = Path + ":" + std::to_string(KV.lineNo);
    const std::string &K = KV.key, &V = KV.value;
    auto Toks = tokens(V);
    if (K == "version") {
      F.version = V;
      auto Parts = splitOn(V, '.');
      if (Parts.size() != 2)
        fail(Where, "bad version " + V);
      R.pyMajor = toInt(Where, Parts[0]);
      R.pyMinor = toInt(Where, Parts[1]);
    } else if (K == "name") {
      R.name = V;
    } else if (K == "qualname") {
      R.qualname = V;
    } else if (K == "filename") {
      R.filename = V;
    } else if (K == "firstlineno") {
      R.firstLineNo = toInt(Where, V);
    } else if (K == "argcount") {
      R.argCount = toInt(Where, V);
    } else if (K == "posonlyargcount") {
      R.posOnlyArgCount = toInt(Where, V);
    } else if (K == "kwonlyargcount") {
      R.kwOnlyArgCount = toInt(Where, V);
    } else if (K == "flags") {
      R.flags = toInt(Where, V);
    } else if (K == "stacksize") {
      R.stackSize = toInt(Where, V);
    } else if (K == "code") {
      R.code = fromHex(Where, V);
    } else if (K == "consts") {
      R.consts.reserve(toInt(Where, V));
    } else if (K == "const") {
      size_t Pos = 0;
      R.consts.push_back(parseConst(Where, Toks, Pos));
      if (Pos != Toks.size())
        fail(Where, "trailing tokens after constant");
    } else if (K == "names") {
      R.names = Toks;
    } else if (K == "varnames") {
      R.varnames = Toks;
    } else if (K == "cellvars") {
      R.cellvars = Toks;
    } else if (K == "freevars") {
      R.freevars = Toks;
    } else if (K == "lines") {
      for (const std::string &T : Toks) {
        auto P = splitOn(T, ',');
        if (P.size() != 3)
          fail(Where, "bad line entry " + T);
        R.lines.push_back(
            {toInt(Where, P[0]), toInt(Where, P[1]), toInt(Where, P[2])});
      }
    } else if (K == "positions") {
      for (const std::string &T : Toks) {
        auto P = splitOn(T, ',');
        if (P.size() != 4)
          fail(Where, "bad position entry " + T);
        R.positions.push_back({toInt(Where, P[0]), toInt(Where, P[1]),
                               toInt(Where, P[2]), toInt(Where, P[3])});
      }
    } else if (K == "exceptiontable") {
      R.exceptionTable = fromHex(Where, V);
    } else if (K == "expect") {
      if (Toks.size() == 1 && Toks[0] == "ok") {
        F.expectOk = true;
      } else if (Toks.size() == 3 && Toks[0] == "unsupported") {
        F.expectOk = false;
        F.expectKind = Toks[1];
        F.expectLine = toInt(Where, Toks[2]);
      } else {
        fail(Where, "bad expect: " + V);
      }
    } else if (K == "mark") {
      if (Toks.size() != 2)
        fail(Where, "expected `mark: TAG LINE`");
      F.marks[Toks[0]].push_back(toInt(Where, Toks[1]));
    } else if (K == "global" || K == "deref") {
      if (Toks.size() < 2)
        fail(Where, "expected `" + K + ": NAME CONST`");
      size_t Pos = 1;
      bc::ConstValue C = parseConst(Where, Toks, Pos);
      if (Pos != Toks.size())
        fail(Where, "trailing tokens after constant");
      (K == "global" ? F.globals : F.derefs).push_back({Toks[0], C});
    } else if (K == "case") {
      FixtureCase Case;
      size_t Pos = 0;
      while (Pos < Toks.size() && Toks[Pos] != "->")
        Case.args.push_back(parseConst(Where, Toks, Pos));
      if (Pos + 1 >= Toks.size())
        fail(Where, "expected `case: ARGS -> RESULT`");
      ++Pos;
      if (Toks[Pos].rfind("raises:", 0) == 0) {
        Case.raises = Toks[Pos++].substr(7);
        if (Case.raises.empty())
          fail(Where, "empty exception name");
      } else {
        Case.result = parseConst(Where, Toks, Pos);
      }
      if (Pos != Toks.size())
        fail(Where, "trailing tokens after the result");
      F.cases.push_back(std::move(Case));
    } else if (K == "instr") {
      if (Toks.size() != 6)
        fail(Where, "expected `instr: OFFSET OPNAME ARG TARGET LINE REPR`");
      OracleInstr O;
      O.offset = toInt(Where, Toks[0]);
      O.opname = Toks[1];
      O.arg = toInt(Where, Toks[2]);
      O.target = toInt(Where, Toks[3]);
      O.line = toInt(Where, Toks[4]);
      O.argrepr = unquote(Where, Toks[5]);
      F.oracle.push_back(O);
    } else {
      fail(Where, "unknown key " + K);
    }
  }
  if (F.version.empty() || R.code.empty())
    fail(Path, "missing version or code");
  return F;
}

std::vector<int> BytecodeFixture::marked(const std::string &Tag) const {
  auto It = marks.find(Tag);
  return It == marks.end() ? std::vector<int>{} : It->second;
}

std::string bytecodeFixtureRoot() {
  return std::string(PCJ_FIXTURE_DIR) + "/bytecode";
}

std::vector<std::string> bytecodeFixtureNames(const std::string &Version) {
  std::vector<std::string> Out;
  std::filesystem::path Dir =
      std::filesystem::path(bytecodeFixtureRoot()) / ("py" + Version);
  if (!std::filesystem::is_directory(Dir))
    return Out;
  for (const auto &E : std::filesystem::directory_iterator(Dir)) {
    if (E.path().extension() != ".txt" || E.path().stem() == "opcodes")
      continue;
    Out.push_back(E.path().stem().string());
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

BytecodeFixture loadBytecodeFixture(const std::string &Version,
                                    const std::string &Name) {
  return loadBytecodeFixture(bytecodeFixtureRoot() + "/py" + Version + "/" +
                             Name + ".txt");
}

} // namespace pcj::test
