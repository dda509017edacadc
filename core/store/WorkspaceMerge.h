#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

class Store;

// Moves sessions between workspaces: `extract` copies a selection of one workspace (its
// sessions with their metrics, samples, rollups, devices, runs, requests and events) into a
// new workspace file, which `merge` then adds to another with new ids. Each merged session
// carries a "pulled-from" event naming its origin (host, session id, start), so merging the
// same session twice adds it once.
class WorkspaceMerge {
  public:
    struct Selection {
        std::optional<std::int64_t> session;
        std::string experiment; // every session holding a run of this experiment
    };
    struct Merged {
        std::int64_t from = 0; // the session's id in the pulled workspace
        std::int64_t to = 0;   // its new id here; 0 when it was here already
        std::string label;
    };

    // Throws StoreError; returns how many sessions the selection holds.
    static std::size_t extract(const std::string& sourceDb, const std::string& outDb,
                               const Selection& selection);
    // `pulledDb` is hostile until checked: it must be a tierscope workspace of this schema
    // version holding nothing but its tables. `origin` names where it came from ("gpu01").
    static std::vector<Merged> merge(Store& local, const std::string& pulledDb,
                                     const std::string& origin);

    // The text of the "pulled-from" event that identifies a session's origin.
    static std::string originKey(const std::string& origin, std::int64_t session,
                                 std::int64_t startNs);
};

} // namespace tierscope
