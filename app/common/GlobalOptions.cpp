#include "app/common/GlobalOptions.h"

#include "core/store/WorkspacePaths.h"

namespace tierscope {

std::string GlobalOptions::dbPath() const {
    return db.empty() ? WorkspacePaths::defaultDatabase() : db;
}

} // namespace tierscope
