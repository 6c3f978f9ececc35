// Parser for signature strings (grammar in Signature.h).
#include "types/Signature.h"

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
    TypeRef Scalar = Name == "void" || Name == "none" ? voidTy()
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
