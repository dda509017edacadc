#pragma once

#include "collectors/Scheduler.h"
#include "collectors/base/SystemPaths.h"
#include "collectors/engine/EngineMetricsCollector.h"
#include "core/store/RecordingSession.h"
#include "core/util/WallClock.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace tierscope {

// One recording of this machine into a workspace: discovers devices, creates the session,
// runs the collectors into the writer, and closes the session cleanly on stop().
class Recorder {
  public:
    struct Options {
        std::string dbPath;
        std::string label;
        std::string storageProfile;
        std::string tags; // the session's, e.g. "load" for a load's recording
        std::chrono::nanoseconds interval = std::chrono::seconds(1);
        SystemPaths paths;
        StoreWriter::Options writer;
        std::vector<EngineMetricsCollector::Options> engines; // /metrics endpoints to scrape
        std::chrono::nanoseconds engineInterval = std::chrono::seconds(1);
        SampleSink* observer = nullptr;      // also gets every reading (the GUI's live buffer)
        const ClockSource* clocks = nullptr; // the machine's, unless a test steps its own
    };

    // Throws StoreError when the workspace cannot be opened or written.
    explicit Recorder(Options options);
    ~Recorder();

    void start();
    void stop(); // idempotent

    std::int64_t sessionId() const { return m_session->id(); }
    std::size_t metricCount() const { return m_session->metricCount(); }
    // For series that are not collectors (a storage workload's bandwidth) in the same session,
    // and for the observer too.
    SampleSink& sink() { return m_session->sink(); }
    const WallClock& clock() const { return m_clock; }
    StoreWriter::Stats stats() const { return m_session->stats(); }
    std::optional<std::string> error() const { return m_session->error(); }
    std::optional<StoreError> failure() const { return m_session->failure(); }
    const std::vector<DeviceRecord>& devices() const { return m_devices; }

  private:
    // A "clock-step" event with the old and new offset, so a reader sees why a series jumps.
    void recordClockStep(const WallClock::Step& step);

    Options m_options;
    WallClock m_clock;
    std::vector<DeviceRecord> m_devices;
    std::unique_ptr<RecordingSession> m_session;
    std::unique_ptr<Scheduler> m_scheduler;
    bool m_running = false;
};

} // namespace tierscope
