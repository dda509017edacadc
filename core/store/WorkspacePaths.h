#pragma once

#include <string>

namespace tierscope {

class WorkspacePaths {
  public:
    // $XDG_DATA_HOME/tierscope/tierscope.db, else ~/.local/share/tierscope/tierscope.db.
    static std::string defaultDatabase();
};

} // namespace tierscope
