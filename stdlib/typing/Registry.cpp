// The typing column of Registry.def, lookup by key, and ArgInfo helpers.
#include "stdlib/Registry.h"
#include "stdlib/typing/Rules.h"

#include "support/Diagnostics.h"

#include <algorithm>
#include <map>

namespace pcj::stdlib {

static const IntrinsicInfo Table[] = {
#define PCJ_INTRINSIC(Id, Key, Kind, Typing, Lowering, IData, SData, ...)      \
  {IntrinsicId::Id, Key, IntrinsicKind::Kind, &rules::Typing, IData, SData},
#include "stdlib/Registry.def"
#undef PCJ_INTRINSIC
};

static_assert(sizeof(Table) / sizeof(Table[0]) == size_t(IntrinsicId::Count));

const IntrinsicInfo *lookupIntrinsic(std::string_view Key) {
  static const std::map<std::string_view, const IntrinsicInfo *> ByKey = [] {
    std::map<std::string_view, const IntrinsicInfo *> M;
    for (const IntrinsicInfo &I : Table)
      M.emplace(I.key, &I);
    return M;
  }();
  auto It = ByKey.find(Key);
  return It == ByKey.end() ? nullptr : It->second;
}

const IntrinsicInfo &intrinsicInfo(IntrinsicId Id) { return Table[size_t(Id)]; }

static const char *const ExceptionNames[] = {
#define PCJ_EXCEPTION(Name) #Name,
#include "stdlib/registry/exceptions.def"
#undef PCJ_EXCEPTION
};

bool isKernelException(std::string_view Name) {
  for (const char *N : ExceptionNames)
    if (Name == N)
      return true;
  return false;
}

std::string kernelExceptionNames() {
  std::string S;
  for (const char *N : ExceptionNames)
    S += (S.empty() ? "" : ", ") + std::string(N);
  return S;
}

std::vector<std::string> intrinsicKeys() {
  std::vector<std::string> Keys;
  for (const IntrinsicInfo &I : Table)
    Keys.push_back(I.key);
  return Keys;
}

bool ArgInfo::constant(bc::ConstValue &Out) const {
  if (!instr)
    return false;
  switch (instr->op) {
  case ir::Op::Const:
    Out = instr->cval;
    return true;
  case ir::Op::Global:
  case ir::Op::Deref:
  case ir::Op::GetAttr:
  case ir::Op::Arg: // a device function's parameter its caller passed a
                    // constant for
    // An Enum member is no constant of its value's type (Color.red is not 1).
    if (instr->ct.kind != ir::CTValue::Kind::Const ||
        (instr->ct.type && instr->ct.type->kind() == types::Kind::EnumMember))
      return false;
    Out = instr->ct.value;
    return true;
  case ir::Op::BuildTuple: {
    bc::ConstValue T;
    T.kind = bc::ConstValue::Kind::Tuple;
    for (const ir::Instr *E : instr->operands) {
      bc::ConstValue EV;
      if (!ArgInfo{E->type, E->weak, E}.constant(EV))
        return false;
      T.elems.push_back(EV);
    }
    Out = T;
    return true;
  }
  default:
    return false;
  }
}

int TypingRequest::find(size_t Pos, const std::string &Name) const {
  size_t NPos = args.size() - kwnames.size();
  if (Pos < NPos)
    return int(Pos);
  for (size_t K = 0; K < kwnames.size(); ++K)
    if (kwnames[K] == Name)
      return int(NPos + K);
  return -1;
}

void TypingRequest::fail(const std::string &Msg,
                         const std::string &Hint) const {
  throw CompileError(ErrorKind::Typing, instr.loc, Msg, Hint);
}

} // namespace pcj::stdlib
