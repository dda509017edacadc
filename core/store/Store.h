#pragma once

#include "core/model/Bucket.h"
#include "core/model/DeviceRecord.h"
#include "core/model/MetricInfo.h"
#include "core/model/RequestRecord.h"
#include "core/model/RunInfo.h"
#include "core/model/Sample.h"
#include "core/model/SessionInfo.h"
#include "core/model/StoredEvent.h"
#include "core/store/SqliteDb.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tierscope {

// One connection to a workspace database: session bookkeeping and the read API. Samples are
// written by StoreWriter on its own thread; readers see them once committed (WAL).
class Store {
  public:
    enum class Mode { ReadOnly, ReadWrite };

    // Throws StoreError with a user-facing message for: a file that is not SQLite or not ours,
    // a newer schema, or a location that cannot be written (ReadWrite).
    Store(const std::string& path, Mode mode);
    ~Store();
    Store(const Store&) = delete;
    Store& operator=(const Store&) = delete;

    SqliteDb& db() { return m_db; }

    // An open session (no end) is claimed by this connection's writer: it reads "recording"
    // while this process lives and this connection is open (WriterRegistry::sessionOwner).
    std::int64_t createSession(const SessionInfo& info);
    void finishSession(std::int64_t sessionId, std::int64_t endNs);
    std::vector<SessionInfo> sessions();
    std::optional<SessionInfo> session(std::int64_t sessionId);
    // The user's words about a session. Throws StoreError (NotFound) for an unknown id.
    void describeSession(std::int64_t sessionId, const std::string& label,
                         const std::string& notes);
    // The session and everything recorded in it (metrics, samples, rollups, devices, runs,
    // requests, events), in one transaction: other sessions' rows are untouched, and a
    // concurrent writer waits (busy timeout) instead of seeing half a deletion. Deleting a
    // session that another process still records into leaves that process writing orphans:
    // the caller refuses open sessions it owns. Throws StoreError (NotFound).
    void deleteSession(std::int64_t sessionId);

    std::int64_t defineMetric(std::int64_t sessionId, const MetricDescriptor& metric);
    std::vector<MetricInfo> metrics(std::int64_t sessionId);

    void addDevices(std::int64_t sessionId, const std::vector<DeviceRecord>& devices);
    std::vector<DeviceRecord> devices(std::int64_t sessionId);
    void addEvent(std::int64_t sessionId, std::int64_t tNs, const std::string& kind,
                  const std::string& text);
    // The text of the session's first event of this kind, e.g. "experiment-plan".
    std::optional<std::string> eventText(std::int64_t sessionId, const std::string& kind);
    // Every event of the session, in time order.
    std::vector<StoredEvent> events(std::int64_t sessionId);

    // A workload execution inside a session, and its load-generator requests.
    std::int64_t createRun(std::int64_t sessionId, const std::string& workload,
                           const std::string& paramsJson, std::int64_t startNs,
                           const std::string& experiment = {}, const std::string& arm = {},
                           int repetition = 0);
    void finishRun(std::int64_t runId, std::int64_t endNs, const std::string& status,
                   const std::string& summaryJson);
    void addRequests(std::int64_t runId, const std::vector<RequestRecord>& requests);
    std::int64_t requestCount(std::int64_t runId);
    std::optional<RunInfo> run(std::int64_t runId);
    std::vector<RunInfo> runsOfSession(std::int64_t sessionId);
    std::vector<RunInfo> runsOfArm(const std::string& experiment, const std::string& arm);
    // Every (experiment, arm) pair that has runs, in order of first run.
    std::vector<std::pair<std::string, std::string>> arms();
    std::vector<StoredRequest> requests(std::int64_t runId);

    // Every committed sample of the metric with t in [t0, t1], sorted by time.
    std::vector<Sample> readRaw(std::int64_t metricId, std::int64_t t0Ns, std::int64_t t1Ns);
    // At most maxPoints/2 buckets (min and max each), so at most maxPoints plotted points.
    // Long ranges, where rollups replace at least kRollupCostRatio samples per rollup row, are
    // served from rollups; shorter ones decode the packed chunks, which is cheaper there.
    std::vector<Bucket> readDecimated(std::int64_t metricId, std::int64_t t0Ns, std::int64_t t1Ns,
                                      int maxPoints);
    // min/max/sum/count over the whole metric; count 0 when nothing was recorded.
    Bucket summarize(std::int64_t metricId);
    std::int64_t sampleCount(std::int64_t sessionId);

    // Registers this process as one writer of the workspace. The id owns the staging rows and
    // the runs it creates; nobody else seals or finishes them while the process lives.
    std::int64_t registerWriter();
    // Forgets a writer that has nothing left in staging (after its last seal).
    void unregisterWriter(std::int64_t writerId);

    struct Recovery {
        std::int64_t samples = 0; // staged samples sealed on behalf of a gone writer
        std::int64_t runs = 0;    // runs left "running" by one, now "interrupted"
        std::int64_t writers = 0; // gone writers forgotten
    };
    // Cleans up after writers that are provably gone (SIGKILL, OOM, a reboot): folds their
    // staging rows into chunks and rollups, deleting exactly the rows it moved, marks their
    // unfinished runs "interrupted", and forgets them. Rows and runs of live writers, in this
    // process or another, are left alone.
    Recovery recoverAbandoned();

    static constexpr std::int64_t kRollupCostRatio = 20;

  private:
    std::int64_t chunkedSampleCount(std::int64_t metricId, std::int64_t t0Ns, std::int64_t t1Ns);
    void readStaging(std::int64_t metricId, std::int64_t t0Ns, std::int64_t t1Ns,
                     std::vector<Sample>& out);
    std::vector<Bucket> readFromRollups(std::int64_t metricId, std::int64_t t0Ns, std::int64_t t1Ns,
                                        int slots, std::int64_t levelS);

    std::int64_t runOwner();

    SqliteDb m_db;
    std::optional<std::int64_t> m_runOwner;
};

} // namespace tierscope
