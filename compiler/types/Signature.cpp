// Parser for signature strings (grammar in Signature.h).
#include "types/Signature.h"
#include "types/CharSeq.h"
#include "types/DateTime.h"

#include "support/Diagnostics.h"

#include <cctype>

namespace pcj::types {

namespace {

class Parser {
public:
  explicit Parser(const std::string &T) : Text(T) {}

  Signature signature() {
    Signature S;
    skipWs();
    if (peek() != '(') {
      S.ret = type();
      skipWs();
    }
    expect('(');
    skipWs();
    if (peek() != ')') {
      S.args.push_back(type());
      while (skipWs(), peek() == ',') {
        ++Pos;
        skipWs();
        if (peek() == ')') // "void(int64,)", as numba reads it
          break;
        S.args.push_back(type());
      }
    }
    expect(')');
    end();
    return S;
  }

  TypeRef single() {
    TypeRef T = type();
    end();
    return T;
  }

private:
  const std::string &Text;
  size_t Pos = 0;

  char peek() const { return Pos < Text.size() ? Text[Pos] : '\0'; }
  void skipWs() {
    while (Pos < Text.size() && std::isspace((unsigned char)Text[Pos]))
      ++Pos;
  }
  [[noreturn]] void fail(const std::string &What) {
    throw CompileError(ErrorKind::Signature, SourceLoc{},
                       "invalid signature '" + Text + "': " + What +
                           " at position " + std::to_string(Pos),
                       "write e.g. \"void(float32[:], float32[:], float32)\"; "
                       "'::1' marks the contiguous dimension");
  }
  void expect(char C) {
    skipWs();
    if (peek() != C)
      fail(std::string("expected '") + C + "'");
    ++Pos;
  }
  void end() {
    skipWs();
    if (Pos != Text.size())
      fail("unexpected trailing text");
  }

  // An unsigned decimal number.
  uint64_t number() {
    skipWs();
    size_t Start = Pos;
    while (Pos < Text.size() && std::isdigit((unsigned char)Text[Pos]))
      ++Pos;
    if (Start == Pos || Pos - Start > 18)
      fail("expected a number");
    return std::stoull(Text.substr(Start, Pos - Start));
  }

  std::string identifier() {
    skipWs();
    size_t Start = Pos;
    while (Pos < Text.size() &&
           (std::isalnum((unsigned char)Text[Pos]) || Text[Pos] == '_'))
      ++Pos;
    return Text.substr(Start, Pos - Start);
  }

  void keyword(const char *Word) {
    if (identifier() != Word)
      fail(std::string("expected '") + Word + "'");
  }

  // A record field's type: a scalar, or "nestedarray(float32, (3, 2))".
  TypeRef fieldType() {
    skipWs();
    if (Text.compare(Pos, 12, "nestedarray(") != 0)
      return type();
    Pos += 12;
    TypeRef Elem = type();
    if (!Elem->isNumeric())
      fail("nested arrays hold numbers or bools, not " + Elem->str());
    skipWs();
    expect(',');
    skipWs();
    expect('(');
    std::vector<uint64_t> Shape;
    while (skipWs(), peek() != ')') {
      Shape.push_back(number());
      skipWs();
      if (peek() == ',')
        ++Pos;
    }
    expect(')');
    skipWs();
    expect(')');
    if (Shape.empty() || Shape.size() > 8)
      fail("a nested array has 1 to 8 dimensions");
    return nestedArrayTy(Elem, Shape);
  }

  // After "Record": "(x: float64 @0, n: int8 @8; 16 bytes, align 8)", the
  // spelling Type::str() prints.  Fields are scalars or nested arrays.
  TypeRef record() {
    expect('(');
    std::vector<std::string> Names;
    std::vector<TypeRef> Types;
    std::vector<uint64_t> Offsets;
    do {
      std::string N = identifier();
      if (N.empty())
        fail("expected a field name");
      expect(':');
      TypeRef T = fieldType();
      if (!T->isNumeric() && T->kind() != Kind::NestedArray &&
          T->kind() != Kind::Record && !isDateLike(T) && !isCharSeq(T))
        fail("record fields must be numbers, bools, datetimes, strings, "
             "records or nested arrays, not " +
             T->str());
      expect('@');
      uint64_t Off = number();
      Names.push_back(N);
      Types.push_back(T);
      Offsets.push_back(Off);
      skipWs();
    } while (peek() == ',' && (++Pos, true));
    expect(';');
    uint64_t Size = number();
    keyword("bytes");
    expect(',');
    keyword("align");
    uint64_t Align = number();
    expect(')');
    if (Align == 0 || Align > 16 || (Align & (Align - 1)) || Size % Align)
      fail("a record's alignment must be a power of two up to 16 dividing its "
           "size");
    for (size_t K = 0; K < Names.size(); ++K)
      if (Offsets[K] + Types[K]->byteSize() > Size)
        fail("field '" + Names[K] + "' does not fit in the record's " +
             std::to_string(Size) + " bytes");
    return recordTy(Names, Types, Offsets, unsigned(Size), unsigned(Align));
  }

  TypeRef type() {
    skipWs();
    if (peek() == '(') { // tuple
      ++Pos;
      std::vector<TypeRef> Elems;
      skipWs();
      if (peek() != ')') {
        Elems.push_back(type());
        while (skipWs(), peek() == ',') {
          ++Pos;
          skipWs();
          if (peek() == ')')
            break;
          Elems.push_back(type());
        }
      }
      expect(')');
      return tupleTy(Elems);
    }
    size_t Start = Pos;
    while (Pos < Text.size() &&
           (std::isalnum((unsigned char)Text[Pos]) || Text[Pos] == '_'))
      ++Pos;
    std::string Name = Text.substr(Start, Pos - Start);
    if (Name.empty())
      fail("expected a type name");
    if (Name == "voidptr")
      return pointerTy(voidTy());
    if (Name == "CPointer") { // CPointer(float32), CPointer(CPointer(int8))
      expect('(');
      TypeRef Pointee = type();
      skipWs();
      expect(')');
      if (Pointee->isArray() || Pointee->isTuple())
        fail("CPointer of " + Pointee->str() + ": only scalars and pointers");
      return pointerTy(Pointee);
    }
    // datetime64[D], timedelta64[ms]: a unit in brackets, before any dims
    if ((Name == "datetime64" || Name == "timedelta64") && peek() == '[' &&
        Pos + 1 < Text.size() && std::isalpha((unsigned char)Text[Pos + 1])) {
      size_t Close = Text.find(']', Pos);
      if (Close == std::string::npos)
        fail("expected ']' after the time unit");
      Name += Text.substr(Pos, Close + 1 - Pos);
      Pos = Close + 1;
    }
    // CharSeq(12) ('S12'), UnicodeCharSeq(5) ('U5'): numba's class names
    TypeRef Chars = nullptr;
    if (Name == "CharSeq" || Name == "UnicodeCharSeq") {
      expect('(');
      uint64_t N = number();
      skipWs();
      expect(')');
      if (!N)
        fail(Name + " of no characters");
      Chars = charSeqTy(Name == "CharSeq" ? 8 : 32, N);
    }
    TypeRef Scalar = Chars                              ? Chars
                     : Name == "void" || Name == "none" ? voidTy()
                     : Name == "Record"                 ? record()
                                                        : scalarFromName(Name);
    if (!Scalar)
      fail("unknown type '" + Name + "'");
    skipWs();
    if (peek() != '[')
      return Scalar;
    if (Scalar == voidTy())
      fail("arrays of void");
    ++Pos;
    // dims
    std::vector<bool> Contig;
    while (true) {
      skipWs();
      if (peek() != ':')
        fail("expected ':' or '::1'");
      ++Pos;
      bool C = false;
      if (peek() == ':') {
        ++Pos;
        skipWs();
        if (peek() != '1')
          fail("expected '::1'");
        ++Pos;
        C = true;
      }
      Contig.push_back(C);
      skipWs();
      if (peek() == ',') {
        ++Pos;
        continue;
      }
      break;
    }
    expect(']');
    unsigned N = Contig.size();
    if (N > 32)
      fail("too many dimensions");
    int NumContig = 0;
    for (bool C : Contig)
      NumContig += C;
    Layout L = Layout::A;
    if (NumContig > 1)
      fail("only one dimension can be '::1'");
    if (NumContig == 1) {
      if (Contig.back())
        L = Layout::C;
      else if (Contig.front())
        L = Layout::F;
      else
        fail("'::1' must be the first (F) or last (C) dimension");
    }
    return arrayTy(Scalar, N, L);
  }
};

} // namespace

Signature parseSignature(const std::string &Text) {
  return Parser(Text).signature();
}

TypeRef parseType(const std::string &Text) { return Parser(Text).single(); }

std::string Signature::str() const {
  std::string S = "(";
  for (size_t I = 0; I < args.size(); ++I)
    S += (I ? ", " : "") + args[I]->str();
  S += ")";
  if (ret)
    S += " -> " + ret->str();
  return S;
}

} // namespace pcj::types
