// Code object -> RawCode, through attribute access only (stable ABI).
#include "CodeReader.h"

#include <algorithm>
#include <mutex>

namespace pcj::py {

namespace {

long longAttr(PyObject *O, const char *Name) {
  Ref V = getAttr(O, Name);
  long R = PyLong_AsLong(V.get());
  if (R == -1 && PyErr_Occurred())
    throw PythonError{};
  return R;
}

std::vector<std::string> strTuple(PyObject *O, const char *Name) {
  Ref T = getAttr(O, Name);
  std::vector<std::string> Out;
  Py_ssize_t N = PyTuple_Size(T.get());
  for (Py_ssize_t K = 0; K < N; ++K)
    Out.push_back(utf8(PyTuple_GetItem(T.get(), K)));
  return Out;
}

std::string bytesAttr(PyObject *O, const char *Name) {
  Ref B = getAttrOpt(O, Name);
  if (!B)
    return {};
  char *Data = nullptr;
  Py_ssize_t N = 0;
  if (PyBytes_AsStringAndSize(B.get(), &Data, &N) < 0)
    throw PythonError{};
  return std::string(Data, N);
}

// The line of `def` (co_firstlineno is the first decorator's line): the
// first source line from co_firstlineno to the body's first line that
// starts with `def` or `async def`; 0 when the source is not available.
int defLine(const std::string &File, int First, int Body) {
  Ref LC(PyImport_ImportModule("linecache"));
  Ref Lines(LC ? PyObject_CallMethod(LC.get(), "getlines", "s", File.c_str())
               : nullptr);
  if (!Lines || !PyList_Check(Lines.get())) {
    PyErr_Clear();
    return 0;
  }
  Py_ssize_t N = PyList_Size(Lines.get());
  for (int L = First; L >= 1 && L <= Body && L <= N; ++L) {
    PyObject *S = PyList_GetItem(Lines.get(), L - 1); // borrowed
    if (!S || !PyUnicode_Check(S))
      break;
    std::string T = utf8(S);
    size_t K = T.find_first_not_of(" \t");
    if (K == std::string::npos)
      continue;
    if (T.compare(K, 4, "def ") == 0 || T.compare(K, 10, "async def ") == 0)
      return L;
  }
  return 0;
}

int intOrMinus1(PyObject *O) {
  if (O == Py_None)
    return -1;
  long V = PyLong_AsLong(O);
  if (V == -1 && PyErr_Occurred())
    throw PythonError{};
  return int(V);
}

// The interpreter's opcode table, read once.
const bc::OpcodeTable &opcodeTable() {
  static std::once_flag Once;
  static bc::OpcodeTable Table;
  static bool Failed = false;
  std::call_once(Once, [] {
    Ref Mod(PyImport_ImportModule("opcode"));
    if (!Mod) {
      Failed = true;
      return;
    }
    Ref OpMap(PyObject_GetAttrString(Mod.get(), "opmap"));
    Ref Items(OpMap ? PyMapping_Items(OpMap.get()) : nullptr);
    if (!Items) {
      Failed = true;
      return;
    }
    for (Py_ssize_t K = 0; K < PyList_Size(Items.get()); ++K) {
      PyObject *Pair = PyList_GetItem(Items.get(), K);
      Table.opmap[str(PyTuple_GetItem(Pair, 0))] =
          int(PyLong_AsLong(PyTuple_GetItem(Pair, 1)));
    }
    Ref Have(PyObject_GetAttrString(Mod.get(), "HAVE_ARGUMENT"));
    if (Have)
      Table.haveArgument = int(PyLong_AsLong(Have.get()));
    PyErr_Clear();
    Table.cacheEntries.assign(256, 0);
    Ref Cache(PyObject_GetAttrString(Mod.get(), "_inline_cache_entries"));
    PyErr_Clear();
    if (Cache && PyList_Check(Cache.get())) { // 3.11 / 3.12: list by opcode
      for (Py_ssize_t K = 0; K < PyList_Size(Cache.get()) && K < 256; ++K)
        Table.cacheEntries[K] =
            int(PyLong_AsLong(PyList_GetItem(Cache.get(), K)));
    } else if (Cache && PyDict_Check(Cache.get())) { // 3.13: dict by name
      for (auto &[Name, Num] : Table.opmap) {
        PyObject *V = PyDict_GetItemString(Cache.get(), Name.c_str());
        if (V && Num >= 0 && Num < 256)
          Table.cacheEntries[Num] = int(PyLong_AsLong(V));
      }
    }
    PyErr_Clear();
  });
  if (Failed) {
    PyErr_SetString(PyExc_ImportError,
                    "pycuda_jit: cannot read the opcode module");
    throw PythonError{};
  }
  return Table;
}

} // namespace

bc::ConstValue readConst(PyObject *O) {
  using K = bc::ConstValue::Kind;
  bc::ConstValue C;
  if (O == Py_None)
    return C;
  if (PyBool_Check(O))
    return bc::ConstValue::ofBool(O == Py_True);
  if (PyLong_Check(O)) {
    int Overflow = 0;
    long long V = PyLong_AsLongLongAndOverflow(O, &Overflow);
    if (Overflow) {
      C.kind = K::Int;
      C.bigInt = true;
      C.text = str(O);
      return C;
    }
    return bc::ConstValue::ofInt(V);
  }
  if (PyFloat_Check(O))
    return bc::ConstValue::ofFloat(PyFloat_AsDouble(O));
  if (PyComplex_Check(O)) {
    C.kind = K::Complex;
    C.f = PyComplex_RealAsDouble(O);
    C.imag = PyComplex_ImagAsDouble(O);
    return C;
  }
  if (PyUnicode_Check(O))
    return bc::ConstValue::ofStr(utf8(O));
  if (PyBytes_Check(O)) { // its bytes (ConstValue::repr quotes them)
    C.kind = K::Bytes;
    C.text.assign(PyBytes_AsString(O), size_t(PyBytes_Size(O)));
    return C;
  }
  if (PyTuple_Check(O)) {
    C.kind = K::Tuple;
    for (Py_ssize_t I = 0; I < PyTuple_Size(O); ++I)
      C.elems.push_back(readConst(PyTuple_GetItem(O, I)));
    return C;
  }
  if (O == Py_Ellipsis) {
    C.kind = K::Ellipsis;
    return C;
  }
  if (typeName(O) == "code") { // text: co_qualname (3.10: co_name)
    C.kind = K::Code;
    Ref Name = getAttrOpt(O, "co_qualname");
    if (!Name)
      Name = getAttrOpt(O, "co_name");
    C.text = Name ? utf8(Name.get()) : "";
    return C;
  }
  C.kind = K::Other;
  C.text = typeName(O);
  return C;
}

bc::RawCode readCode(PyObject *Func) {
  Ref Code = getAttr(Func, "__code__");
  PyObject *Co = Code.get();
  bc::RawCode R;
  Ref Sys(PyImport_ImportModule("sys"));
  Ref VI = getAttr(check(Sys.release()).get(), "version_info");
  R.pyMajor = int(PyLong_AsLong(PyTuple_GetItem(VI.get(), 0)));
  R.pyMinor = int(PyLong_AsLong(PyTuple_GetItem(VI.get(), 1)));
  R.name = utf8(getAttr(Co, "co_name").get());
  Ref Qual = getAttrOpt(Func, "__qualname__");
  R.qualname = Qual ? utf8(Qual.get()) : R.name;
  R.filename = utf8(getAttr(Co, "co_filename").get());
  R.firstLineNo = int(longAttr(Co, "co_firstlineno"));
  R.argCount = int(longAttr(Co, "co_argcount"));
  R.posOnlyArgCount = int(longAttr(Co, "co_posonlyargcount"));
  R.kwOnlyArgCount = int(longAttr(Co, "co_kwonlyargcount"));
  R.flags = int(longAttr(Co, "co_flags"));
  R.stackSize = int(longAttr(Co, "co_stacksize"));
  R.code = bytesAttr(Co, "co_code");
  Ref Consts = getAttr(Co, "co_consts");
  for (Py_ssize_t K = 0; K < PyTuple_Size(Consts.get()); ++K)
    R.consts.push_back(readConst(PyTuple_GetItem(Consts.get(), K)));
  R.names = strTuple(Co, "co_names");
  R.varnames = strTuple(Co, "co_varnames");
  R.cellvars = strTuple(Co, "co_cellvars");
  R.freevars = strTuple(Co, "co_freevars");
  R.exceptionTable = bytesAttr(Co, "co_exceptiontable");

  Ref Lines = check(PyObject_CallMethod(Co, "co_lines", nullptr));
  Ref It = check(PyObject_GetIter(Lines.get()));
  while (PyObject *E = PyIter_Next(It.get())) {
    Ref Entry(E);
    bc::LineRange L;
    L.start = intOrMinus1(PyTuple_GetItem(E, 0));
    L.end = intOrMinus1(PyTuple_GetItem(E, 1));
    L.line = intOrMinus1(PyTuple_GetItem(E, 2));
    R.lines.push_back(L);
  }
  if (PyErr_Occurred())
    throw PythonError{};
  int Body = 1 << 30;
  for (const bc::LineRange &L : R.lines)
    if (L.line > R.firstLineNo)
      Body = std::min(Body, L.line);
  R.defLine = defLine(R.filename, R.firstLineNo, Body);
  if (Ref Pos = getAttrOpt(Co, "co_positions")) {
    Ref PIt = check(
        PyObject_GetIter(check(PyObject_CallObject(Pos.get(), nullptr)).get()));
    while (PyObject *E = PyIter_Next(PIt.get())) {
      Ref Entry(E);
      bc::Position P;
      P.line = intOrMinus1(PyTuple_GetItem(E, 0));
      P.endLine = intOrMinus1(PyTuple_GetItem(E, 1));
      P.col = intOrMinus1(PyTuple_GetItem(E, 2));
      P.endCol = intOrMinus1(PyTuple_GetItem(E, 3));
      R.positions.push_back(P);
    }
    if (PyErr_Occurred())
      throw PythonError{};
  }
  R.opcodes = opcodeTable();
  return R;
}

} // namespace pcj::py
