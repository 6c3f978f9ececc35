// SourceLoc: where a piece of IR came from in the user's Python source.
//
// Every decoded instruction, every IR value and every diagnostic carries one.
// Lines are 1-based; columns are 0-based UTF-8 byte offsets as CPython reports
// them in co_positions() (3.11+); -1 means "unknown" (3.10 has no columns).
#pragma once

#include <memory>
#include <string>

namespace pcj {

struct SourceLoc {
  // Shared so that thousands of locations do not copy the file name.
  std::shared_ptr<const std::string> file;
  int line = -1;
  int col = -1;
  int endCol = -1;

  bool known() const { return line > 0; }
  const std::string &fileName() const;
  // "file.py:12" (or "<unknown>").
  std::string str() const;
};

} // namespace pcj
