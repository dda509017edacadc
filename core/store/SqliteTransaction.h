#pragma once

namespace tierscope {

class SqliteDb;

// A transaction on one connection, rolled back unless committed. Where the connection is
// already inside one, it joins it and the outer one decides: a store call that writes in
// several statements is atomic on its own and part of a caller's larger transaction (an
// import of several runs). After a failed statement SQLite may have rolled back by itself
// (SQLITE_FULL, an I/O error); the rollback is then skipped, so the caller sees the error that
// mattered and not "cannot rollback - no transaction is active".
class SqliteTransaction {
  public:
    enum class Kind { Deferred, Immediate };

    explicit SqliteTransaction(SqliteDb& db, Kind kind = Kind::Deferred);
    ~SqliteTransaction();
    SqliteTransaction(const SqliteTransaction&) = delete;
    SqliteTransaction& operator=(const SqliteTransaction&) = delete;

    // Commits what this transaction opened; a joined one leaves that to the outer one.
    void commit();
    bool joined() const { return !m_owner; }

  private:
    SqliteDb& m_db;
    bool m_owner = false;
    bool m_done = false;
};

} // namespace tierscope
