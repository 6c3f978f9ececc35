// ScopedEnv: sets (or, with a null value, unsets) an environment variable
// for one scope and restores the previous value at its end.  Shared by the
// unit tests that steer the toolkit search and the codegen options.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace pcj::test {

class ScopedEnv {
public:
  ScopedEnv(const char *Name, const char *Value) : Name(Name) {
    if (const char *Old = std::getenv(Name))
      Saved = std::string(Old);
    if (Value)
      ::setenv(Name, Value, 1);
    else
      ::unsetenv(Name);
  }
  ~ScopedEnv() {
    if (Saved)
      ::setenv(Name, Saved->c_str(), 1);
    else
      ::unsetenv(Name);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  const char *Name;
  std::optional<std::string> Saved;
};

} // namespace pcj::test
