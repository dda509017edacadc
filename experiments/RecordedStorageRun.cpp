#include "experiments/RecordedStorageRun.h"

#include "core/model/Reading.h"

#include <filesystem>

namespace tierscope {

RecordedStorageRun::RecordedStorageRun(const std::string& dbPath, const std::string& workload,
                                       const std::string& path, const std::string& label,
                                       const std::string& storageProfile,
                                       const nlohmann::json& params)
    : m_db(dbPath), m_labels({{"workload", workload}, {"path", path}}) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(m_db).parent_path(), ec);
    Recorder::Options ro;
    ro.dbPath = m_db;
    ro.label = label;
    ro.storageProfile = storageProfile;
    ro.interval = std::chrono::milliseconds(100);
    m_recorder = std::make_unique<Recorder>(ro);
    m_store = std::make_unique<Store>(m_db, Store::Mode::ReadWrite);
    m_recorder->start();
    m_run = m_store->createRun(m_recorder->sessionId(), "storage/" + workload, params.dump(),
                               m_recorder->clock().nowNs());
}

RecordedStorageRun::RatesCallback RecordedStorageRun::sampler(bool write) {
    return [this, write](const BandwidthSampler::Rates& r) {
        const Reading reading{{write ? "workload/write_bytes_per_s" : "workload/read_bytes_per_s",
                               "bytes/s", "rate", m_labels.dump()},
                              write ? r.writeBytesPerS : r.readBytesPerS};
        m_recorder->sink().write(m_recorder->clock().toWallNs(r.at), {&reading, 1});
    };
}

std::optional<StoreError> RecordedStorageRun::finish(std::string status, nlohmann::json summary) {
    const std::int64_t end = m_recorder->clock().nowNs();
    m_recorder->stop();
    auto failure = m_recorder->failure();
    if (failure) {
        status = "failed";
        summary["recording_error"] = failure->what();
    }
    try {
        m_store->finishRun(m_run, end, status, summary.dump());
    } catch (const StoreError& e) {
        if (!failure)
            failure = e;
    }
    return failure;
}

std::int64_t RecordedStorageRun::session() const {
    return m_recorder->sessionId();
}

} // namespace tierscope
