#pragma once

#include "collectors/Recorder.h"
#include "collectors/engine/EngineMetricsCollector.h"
#include "core/util/WallClock.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

class Store;

// What `tierscope load` records besides its requests, into the same session: this machine
// (the collectors `record` runs: GPU, storage, host) and the engine's /metrics at --url's
// scheme://host:port (and any --metrics-url beside it), for the length of the load. So
// `analyze` and the GUI find the session's whole timeline, its engine series and the TTFT
// breakdown. With --no-record the session holds the requests only.
class LoadRecording {
  public:
    struct Options {
        bool off = false;                     // --no-record
        std::string interval = "1s";          // the machine's and the engines' interval
        std::vector<std::string> metricsUrls; // more /metrics endpoints, e.g. an LMCache server
        bool noEngineMetrics = false;         // the machine only (and --metrics-url)
    };
    // What the session is of: its name, and the engine the load drives.
    struct Target {
        std::string dbPath;
        std::string label;
        std::string storageProfile;
        std::string engineUrl; // --url
        std::string tokenEnv;  // the engine's bearer token, for its own /metrics only
        bool insecure = false;
    };

    static void attach(CLI::App& command, Options& options);
    // The usage error of the recording's options, or nothing.
    static std::optional<std::string> check(const Options& options);

    // Creates the session and starts recording. Throws StoreError where the workspace refuses.
    LoadRecording(const Options& options, const Target& target, Store& store);
    ~LoadRecording(); // finishes the session unless finish() did
    LoadRecording(const LoadRecording&) = delete;
    LoadRecording& operator=(const LoadRecording&) = delete;

    std::int64_t sessionId() const { return m_session; }
    // The clock of the requests: the recording's, so that both share one time line.
    const WallClock& clock() const { return m_recorder ? m_recorder->clock() : m_clock; }
    // Returns once every engine endpoint has been scraped since the call (or a scrape's
    // timeout has passed, or Ctrl-C came). A run's engine figures are the increases scraped
    // within its span: settled before it starts, no earlier observation falls inside it;
    // settled before it ends, all of its own do. Says once on stderr of each endpoint whose
    // /metrics does not answer; the load goes on without its figures.
    void settle();
    // Stops recording and closes the session at the clock's now. False, said on stderr, when
    // the workspace refused the recording's samples (those committed stay). Throws StoreError
    // where the session's end cannot be stored.
    bool finish();
    // One line on what was recorded, empty when nothing was.
    std::string summary() const;

  private:
    class Scrapes;
    // Each endpoint whose scrape failed, once: what it answered.
    void reportFailures();

    Store& m_store;
    WallClock m_clock; // without a recording
    std::int64_t m_session = 0;
    std::vector<EngineMetricsCollector::Options> m_engines;
    std::chrono::nanoseconds m_interval{0};
    std::chrono::nanoseconds m_engineInterval{0};
    std::unique_ptr<Scrapes> m_scrapes; // outlives the recorder, which writes to it
    std::unique_ptr<Recorder> m_recorder;
    bool m_finished = false;
};

} // namespace tierscope
