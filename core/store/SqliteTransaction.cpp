#include "core/store/SqliteTransaction.h"

#include "core/store/SqliteDb.h"

#include <sqlite3.h>

namespace tierscope {

SqliteTransaction::SqliteTransaction(SqliteDb& db, Kind kind) : m_db(db) {
    if (!sqlite3_get_autocommit(db.handle()))
        return; // inside the caller's transaction
    db.exec(kind == Kind::Immediate ? "BEGIN IMMEDIATE" : "BEGIN");
    m_owner = true;
}

SqliteTransaction::~SqliteTransaction() {
    if (m_owner && !m_done && !sqlite3_get_autocommit(m_db.handle()))
        sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::commit() {
    if (m_owner)
        m_db.exec("COMMIT"); // when it fails, the destructor rolls back what is left
    m_done = true;
}

} // namespace tierscope
