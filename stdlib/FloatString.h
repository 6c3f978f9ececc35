// float(s) of a constant string, as CPython parses it: surrounding
// whitespace, an optional sign, "nan", "inf" or "infinity" in any case, or a
// decimal literal (digits with single underscores between them, a point,
// an exponent).  Used by the typing and the lowering of the builtin float.
#pragma once

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

namespace pcj::stdlib {

inline bool parseFloatString(std::string S, double &Out) {
  size_t B = S.find_first_not_of(" \t\n\r\f\v");
  size_t E = S.find_last_not_of(" \t\n\r\f\v");
  if (B == std::string::npos)
    return false;
  S = S.substr(B, E - B + 1);
  std::string Lower;
  for (char C : S)
    Lower += char(std::tolower(static_cast<unsigned char>(C)));
  bool Neg = !Lower.empty() && Lower[0] == '-';
  std::string Body = (!Lower.empty() && (Lower[0] == '-' || Lower[0] == '+'))
                         ? Lower.substr(1)
                         : Lower;
  if (Body == "nan") {
    Out = Neg ? -NAN : NAN;
    return true;
  }
  if (Body == "inf" || Body == "infinity") {
    Out = Neg ? -INFINITY : INFINITY;
    return true;
  }
  // Digits, '.', 'e', signs after 'e'; an underscore only between digits.
  std::string Clean;
  for (size_t K = 0; K < Body.size(); ++K) {
    char C = Body[K];
    if (C == '_') {
      if (K == 0 || K + 1 == Body.size() ||
          !std::isdigit(static_cast<unsigned char>(Body[K - 1])) ||
          !std::isdigit(static_cast<unsigned char>(Body[K + 1])))
        return false;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(C)) && C != '.' && C != 'e' &&
        !((C == '+' || C == '-') && K > 0 && Body[K - 1] == 'e'))
      return false;
    Clean += C;
  }
  if (Clean.empty() || Clean.find_first_of("0123456789") == std::string::npos)
    return false;
  char *End = nullptr;
  double V = std::strtod(Clean.c_str(), &End);
  if (End != Clean.c_str() + Clean.size())
    return false;
  Out = Neg ? -V : V;
  return true;
}

} // namespace pcj::stdlib
