#pragma once

#include "collectors/Recorder.h"
#include "core/store/Store.h"
#include "workloads/BandwidthSampler.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace tierscope {

// One `storage run` inside a recorded session of its own: the collectors sample the machine
// while it runs, every 100 ms, and the workload's own bandwidth goes in beside them.
class RecordedStorageRun {
  public:
    using RatesCallback = std::function<void(const BandwidthSampler::Rates&)>;

    // Creates the session and its run (workload "storage/<workload>"); throws StoreError.
    RecordedStorageRun(const std::string& dbPath, const std::string& workload,
                       const std::string& path, const std::string& label,
                       const std::string& storageProfile, const nlohmann::json& params);

    // For BandwidthSampler: the workload's read or write rate into the session.
    RatesCallback sampler(bool write);
    // Ends the recording first, so a failure of its last commit or seal is known, and stores
    // the run as failed then. Returns that failure, or the store's own when the run cannot be
    // finished (a full disk): never throws, so the measured figures are still printed, written
    // and the workload's files removed.
    std::optional<StoreError> finish(std::string status, nlohmann::json summary);

    std::int64_t session() const;
    std::int64_t run() const { return m_run; }
    const std::string& db() const { return m_db; }

  private:
    std::string m_db;
    nlohmann::json m_labels;
    std::unique_ptr<Recorder> m_recorder;
    std::unique_ptr<Store> m_store;
    std::int64_t m_run = 0;
};

} // namespace tierscope
