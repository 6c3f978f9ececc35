// JitOptions (JitOptions.h): the parsers of JitOptions.def's rows, the
// parsing of an options dict and the mapping onto driver::CompileOptions.
#include "JitOptions.h"

#include "lower/Lower.h"
#include "runtime/cpu/Sanitizer.h"
#include "support/Env.h"

#include <cstdlib>
#include <cstring>

namespace pcj::py {

namespace {

[[noreturn]] void fail(PyObject *Type, const std::string &Msg) {
  PyErr_SetString(Type, Msg.c_str());
  throw PythonError{};
}

std::string reprOf(PyObject *V) {
  Ref R(PyObject_Repr(V));
  PyErr_Clear();
  return R ? str(R.get()) : typeName(V);
}

bool given(PyObject *V) { return V && V != Py_None; }

// An int (or anything with __index__, such as NumPy's; not a bool: True is
// no register count).
int intValue(PyObject *V, const char *Kwarg) {
  Ref I(PyBool_Check(V) ? nullptr : PyNumber_Index(V));
  if (!I) {
    PyErr_Clear();
    fail(PyExc_TypeError,
         std::string(Kwarg) + " must be an int, not " + reprOf(V));
  }
  long N = PyLong_AsLong(I.get());
  if ((N == -1 && PyErr_Occurred()) || N < INT32_MIN || N > INT32_MAX) {
    PyErr_Clear();
    fail(PyExc_ValueError,
         std::string(Kwarg) + " is out of range: " + reprOf(V));
  }
  return int(N);
}

bool truth(PyObject *V) {
  int T = PyObject_IsTrue(V);
  if (T < 0)
    throw PythonError{};
  return T == 1;
}

// A 0/1 variable: -1 when unset, else its value (anything else: ValueError).
int envBit(env::Var V) {
  if (!env::isSet(V))
    return -1;
  std::string S = env::text(V);
  if (S != "0" && S != "1")
    fail(PyExc_ValueError,
         std::string(env::name(V)) + " must be 0 or 1, not '" + S + "'");
  return S == "1";
}

// ---- the rows' parsers (JitOptions.def) ------------------------------------

void parseBool(PyObject *V, const char *, JitOptions &, bool &Out) {
  if (given(V))
    Out = truth(V);
}

void parseDebug(PyObject *V, const char *K, JitOptions &O, bool &Out) {
  parseBool(V, K, O, Out);
  if (env::flag(env::Var::Debug))
    Out = true;
}

void parseCache(PyObject *V, const char *K, JitOptions &O, bool &Out) {
  parseBool(V, K, O, Out);
  Out = Out || env::flag(env::Var::Cache);
}

void parseFastmath(PyObject *V, const char *K, JitOptions &, FastMath &Out) {
  if (!given(V))
    return;
  if (PyBool_Check(V)) {
    Out.all = V == Py_True;
    return;
  }
  Ref It(PyObject_GetIter(V));
  if (!It) {
    PyErr_Clear();
    fail(PyExc_TypeError,
         std::string(K) + " must be True, False or a set of flag names, not " +
             reprOf(V));
  }
  while (PyObject *Item = PyIter_Next(It.get())) {
    Ref Owned(Item);
    std::string Name = str(Item);
    unsigned F = lower::fastmath::flagNamed(Name);
    if (!F)
      fail(PyExc_ValueError,
           "unknown fastmath flag '" + Name +
               "' (use contract, afn, arcp, nsz, ninf, nnan, reassoc "
               "or fast)");
    Out.flags |= F;
  }
  if (PyErr_Occurred())
    throw PythonError{};
  Out.all = Out.flags == 127;
}

// fmad=None takes PYCUDA_JIT_FMAD (fastmath's contraction implies it);
// fmad=False contradicts fastmath=True and fastmath={"contract", ...}.
void parseFmad(PyObject *V, const char *, JitOptions &O, bool &Out) {
  bool FastContract =
      O.fastmath.all || (O.fastmath.flags & lower::fastmath::Contract);
  if (!given(V)) {
    Out = FastContract || envBit(env::Var::Fmad) != 0;
    return;
  }
  Out = truth(V);
  if (!Out && FastContract)
    fail(PyExc_ValueError,
         "fmad=False contradicts fastmath, which allows contraction "
         "(fastmath=True or a set with 'contract'): drop one of them");
}

void parseBoundscheck(PyObject *V, const char *, JitOptions &, int &Out) {
  if (given(V))
    Out = truth(V);
  if (int E = envBit(env::Var::BoundsCheck); E >= 0)
    Out = E; // overrides the option, like NUMBA_BOUNDSCHECK
}

// cpu_timeout= (seconds, None for the environment's), else
// PYCUDA_JIT_CPU_TIMEOUT, else none.
void parseCpuTimeout(PyObject *V, const char *K, JitOptions &, double &Out) {
  if (given(V)) {
    Out = PyBool_Check(V) ? -1.0 : PyFloat_AsDouble(V);
    if (PyBool_Check(V) || PyErr_Occurred()) {
      PyErr_Clear();
      fail(PyExc_TypeError,
           std::string(K) + " must be a number of seconds, not " + reprOf(V));
    }
    if (!(Out > 0))
      fail(PyExc_ValueError,
           "cpu_timeout must be a positive number of seconds");
    return;
  }
  if (!env::isSet(env::Var::CpuTimeout))
    return;
  const char *Env = env::raw(env::Var::CpuTimeout);
  char *End = nullptr;
  Out = std::strtod(Env, &End);
  if (*End != '\0' || !(Out >= 0))
    fail(PyExc_ValueError,
         std::string("PYCUDA_JIT_CPU_TIMEOUT must be a number of "
                     "seconds, not '") +
             Env + "'");
}

// sanitize= (True, False, "race,init", a set of those words), else
// PYCUDA_JIT_SANITIZE.  A sanitized kernel arms the sanitizer's memory
// tracking (freed device memory is then quarantined).
void parseSanitize(PyObject *V, const char *K, JitOptions &, uint8_t &Out) {
  std::string Text;
  const char *From = K;
  if (given(V)) {
    Text = str(V);
  } else if (const char *Env = env::raw(env::Var::Sanitize)) {
    Text = Env;
    From = env::name(env::Var::Sanitize);
  }
  int Bits = rt::cpu::san::parseChecks(Text);
  if (Bits < 0)
    fail(PyExc_ValueError,
         std::string(From) +
             " must name checks among race, init, bounds, sync (or be "
             "all / 1 / 0), not '" +
             Text + "'");
  if (Bits)
    rt::cpu::san::arm();
  Out = uint8_t(Bits);
}

void parseLink(PyObject *V, const char *K, JitOptions &, Ref &Out) {
  if (!given(V))
    return;
  if (!PyCallable_Check(V))
    fail(PyExc_TypeError,
         std::string(K) + " must be an ffi.LinkList, not " + reprOf(V));
  Out = Ref::borrow(V);
}

void parseOpt(PyObject *V, const char *K, JitOptions &, int &Out) {
  if (!given(V))
    return;
  Out = PyBool_Check(V) ? (V == Py_True ? 3 : 0) : intValue(V, K);
  if (Out < 0 || Out > 3)
    fail(PyExc_ValueError, "opt must be 0, 1, 2 or 3");
}

void parseCount(PyObject *V, const char *K, JitOptions &, int &Out) {
  if (!given(V))
    return;
  Out = intValue(V, K);
  if (Out < 0)
    fail(PyExc_ValueError,
         std::string(K) + " must be positive, not " + reprOf(V));
}

void parseCarveout(PyObject *V, const char *K, JitOptions &, int &Out) {
  if (!given(V))
    return;
  Out = intValue(V, K);
  if (Out < -1 || Out > 100)
    fail(PyExc_ValueError, "shared_memory_carveout must be between -1 and 100");
}

void parseLaunchBounds(PyObject *V, const char *K, JitOptions &,
                       LaunchBounds &Out) {
  if (!given(V))
    return;
  auto Entry = [&](PyObject *E) {
    int N = intValue(E, K);
    if (N < 0)
      fail(PyExc_ValueError,
           std::string(K) + " must be positive, not " + reprOf(V));
    return N;
  };
  if (!PyTuple_Check(V)) {
    Out.maxThreads = Entry(V);
    return;
  }
  Py_ssize_t N = PyTuple_Size(V);
  if (N < 1 || N > 3)
    fail(PyExc_TypeError, "launch_bounds must be max_threads or (max_threads, "
                          "min_blocks[, max_cluster_rank])");
  Out.maxThreads = Entry(PyTuple_GetItem(V, 0));
  if (N >= 2)
    Out.minBlocks = Entry(PyTuple_GetItem(V, 1));
  if (N == 3)
    Out.maxClusterRank = Entry(PyTuple_GetItem(V, 2));
}

void parseName(PyObject *V, const char *K, JitOptions &, std::string &Out) {
  if (!given(V))
    return;
  if (!PyUnicode_Check(V))
    fail(PyExc_TypeError, std::string(K) + " must be a str, not " + reprOf(V));
  Out = utf8(V);
}

bool isOption(const std::string &Name) {
#define PCJ_JIT_OPTION(Kwarg, Field, Type, Default, Parser, DefaultDoc, Doc)   \
  if (Name == Kwarg)                                                           \
    return true;
#include "JitOptions.def"
  return false;
}

} // namespace

JitOptions parseJitOptions(PyObject *Dict) {
  JitOptions O;
  if (Dict) {
    PyObject *Key, *Value;
    Py_ssize_t Pos = 0;
    while (PyDict_Next(Dict, &Pos, &Key, &Value))
      if (!PyUnicode_Check(Key) || !isOption(utf8(Key)))
        fail(PyExc_TypeError, "unknown compile option " + reprOf(Key));
  }
#define PCJ_JIT_OPTION(Kwarg, Field, Type, Default, Parser, DefaultDoc, Doc)   \
  Parser(Dict ? PyDict_GetItemString(Dict, Kwarg) : nullptr, Kwarg, O, O.Field);
#include "JitOptions.def"
  return O;
}

bool boundsChecked(const JitOptions &O, driver::Backend B) {
  if (O.boundscheck >= 0) // (sanitize's bounds check too: an explicit no wins)
    return O.boundscheck == 1;
  return O.debug || B == driver::Backend::CPU;
}

driver::CompileOptions toCompileOptions(const JitOptions &O,
                                        driver::Backend B) {
  driver::CompileOptions CO;
  CO.backend = B;
  CO.optLevel = O.opt;
  CO.fastMath = O.fastmath.all;
  CO.fastMathFlags = O.fastmath.flags;
  CO.fmad = O.fmad;
  CO.widenNarrowInts = envBit(env::Var::NvptxWidenNarrow) == 1; // NVPTX only
  CO.viaNvvm = B == driver::Backend::CUDA && envBit(env::Var::ViaNvvm) == 1;
  CO.lto = B == driver::Backend::CUDA && O.lto; // the CPU executor: no change
  CO.boundsCheck = boundsChecked(O, B);
  CO.zeroDivisionCheck = O.debug;
  CO.unboundLocalCheck = O.debug;
  CO.lineInfo = O.lineinfo || O.debug; // debug=True has line info too
  CO.debugInfo = O.debug;              // and variables (DWARF)
  CO.debugOptNone = O.debug && O.dbgOptnone;
  CO.sanitize = B == driver::Backend::CPU ? O.sanitize : 0;
  CO.maxRegisters = O.maxRegisters;
  CO.maxThreadsPerBlock = O.launchBounds.maxThreads;
  CO.minBlocksPerSM = O.launchBounds.minBlocks;
  CO.maxClusterRank = O.launchBounds.maxClusterRank;
  return CO;
}

PyObject *jitOptionTable(PyObject *, PyObject *) {
  return guard([]() -> PyObject * {
    Ref Out = check(PyList_New(0));
#define PCJ_JIT_OPTION(Kwarg, Field, Type, Default, Parser, DefaultDoc, Doc)   \
  {                                                                            \
    Ref Row = check(Py_BuildValue("(sss)", Kwarg, DefaultDoc, Doc));           \
    if (PyList_Append(Out.get(), Row.get()) < 0)                               \
      throw PythonError{};                                                     \
  }
#include "JitOptions.def"
    return PyList_AsTuple(Out.get());
  });
}

} // namespace pcj::py
