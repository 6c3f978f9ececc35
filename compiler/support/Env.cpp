// Environment variables (Env.h): the table and the only getenv calls.
#include "support/Env.h"

#include "support/Diagnostics.h"

#include <cstdlib>
#include <unistd.h>

namespace pcj::env {

const std::vector<VarInfo> &table() {
  static const std::vector<VarInfo> *T = new std::vector<VarInfo>{
#define PCJ_ENV(Id, Name, Default, Meaning) {Var::Id, Name, Default, Meaning},
#include "support/Env.def"
  };
  return *T;
}

const VarInfo &info(Var V) {
  const auto &T = table();
  PCJ_ASSERT(unsigned(V) < T.size() && T[unsigned(V)].id == V,
             "environment table out of order");
  return T[unsigned(V)];
}

const char *name(Var V) { return info(V).name; }

std::optional<Var> named(std::string_view Name) {
  for (const VarInfo &I : table())
    if (Name == I.name)
      return I.id;
  return std::nullopt;
}

const char *raw(Var V) { return std::getenv(name(V)); }

std::string text(Var V) {
  const char *S = raw(V);
  return S ? S : "";
}

bool isSet(Var V) {
  const char *S = raw(V);
  return S && *S;
}

bool flag(Var V) {
  const char *S = raw(V);
  return S && *S && std::string_view(S) != "0";
}

char **processEnvironment() { return environ; }

std::string cacheDir() {
  if (const char *D = raw(Var::CacheDir); D && *D)
    return D;
  if (const char *X = raw(Var::XdgCacheHome); X && *X)
    return std::string(X) + "/pycuda_jit";
  const char *Home = raw(Var::Home);
  return std::string(Home && *Home ? Home : "/tmp") + "/.cache/pycuda_jit";
}

} // namespace pcj::env
