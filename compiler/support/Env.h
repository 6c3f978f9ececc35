// Environment variables, read in one place: every variable pycuda_jit reads
// is a row of support/Env.def (name, default, meaning), and Env.cpp is the
// only file that calls getenv.  Callers keep their own parsing of the text
// (and their own error messages, which name the variable).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pcj::env {

enum class Var : unsigned {
#define PCJ_ENV(Id, Name, Default, Meaning) Id,
#include "support/Env.def"
};

struct VarInfo {
  Var id;
  const char *name;
  const char *defaultText; // markdown, for the docs
  const char *meaning;     // markdown, for the docs
};

// The table, in Env.def's order.
const std::vector<VarInfo> &table();
const VarInfo &info(Var V);
const char *name(Var V);
// The row named Name (an override variable chosen at run time, such as a
// toolkit piece's), or none.
std::optional<Var> named(std::string_view Name);

// The value, or nullptr when the variable is not set.
const char *raw(Var V);
// The value, "" when unset.
std::string text(Var V);
// Set and not empty.
bool isSet(Var V);
// Set, not empty and not "0".
bool flag(Var V);

// The disk cache's directory: $PYCUDA_JIT_CACHE_DIR, else
// $XDG_CACHE_HOME/pycuda_jit, else $HOME/.cache/pycuda_jit.
std::string cacheDir();

// The whole environment (`environ`), for a child process that inherits it.
char **processEnvironment();

} // namespace pcj::env
