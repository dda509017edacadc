#include "app/commands/LoadRecording.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/RecorderOptions.h"
#include "collectors/engine/EngineMetricsMapper.h"
#include "core/model/SampleSink.h"
#include "core/store/Store.h"
#include "core/util/Redaction.h"
#include "core/util/UnitFormat.h"
#include "core/util/Version.h"
#include "experiments/EngineIdentity.h"

#include <algorithm>
#include <condition_variable>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <unistd.h>

namespace tierscope {

// Sees each engine endpoint's scrape_ok as the recording writes it: when each was last scraped
// and whether a scrape failed. The scheduler calls write() from each collector's thread.
class LoadRecording::Scrapes : public SampleSink {
  public:
    explicit Scrapes(const std::vector<std::string>& ids) {
        for (const auto& id : ids)
            m_endpoints[id];
    }

    void write(std::int64_t tNs, std::span<const Reading> readings) override {
        static constexpr std::string_view kPrefix = "engine/", kSuffix = "/scrape_ok";
        for (const auto& r : readings) {
            const std::string& path = r.metric.path;
            if (!path.starts_with(kPrefix) || !path.ends_with(kSuffix))
                continue;
            const std::string id =
                path.substr(kPrefix.size(), path.size() - kPrefix.size() - kSuffix.size());
            std::lock_guard lock(m_mutex);
            const auto it = m_endpoints.find(id);
            if (it == m_endpoints.end())
                continue;
            it->second.lastNs = std::max(it->second.lastNs, tNs);
            it->second.failed = it->second.failed || r.value == 0;
            m_scraped.notify_all();
        }
    }

    // Until every endpoint was scraped at or after markNs (its scrape began then, so it holds
    // everything observed before), the deadline or a cancel.
    void waitAll(std::int64_t markNs, std::chrono::steady_clock::time_point deadline) {
        std::unique_lock lock(m_mutex);
        auto done = [&] {
            return std::all_of(m_endpoints.begin(), m_endpoints.end(),
                               [&](const auto& e) { return e.second.lastNs >= markNs; });
        };
        while (!done() && !CancelOnSignal::flag() && std::chrono::steady_clock::now() < deadline)
            m_scraped.wait_for(lock, std::chrono::milliseconds(50));
    }

    // The endpoints with a failed scrape not reported before; they are reported now.
    std::vector<std::string> newlyFailed() {
        std::lock_guard lock(m_mutex);
        std::vector<std::string> out;
        for (auto& [id, e] : m_endpoints)
            if (e.failed && !e.reported) {
                e.reported = true;
                out.push_back(id);
            }
        return out;
    }

  private:
    struct Endpoint {
        std::int64_t lastNs = -1;
        bool failed = false;
        bool reported = false;
    };
    std::mutex m_mutex;
    std::condition_variable m_scraped;
    std::map<std::string, Endpoint> m_endpoints;
};

namespace {

// The engine's own /metrics first (it gets the load's bearer token, as the same server), then
// each --metrics-url.
RecorderOptions::Input recorderInput(const LoadRecording::Options& o,
                                     const LoadRecording::Target& t) {
    RecorderOptions::Input in;
    in.dbPath = t.dbPath;
    in.label = t.label;
    in.storageProfile = t.storageProfile;
    in.tags = "load";
    in.interval = o.interval;
    in.engineInterval = o.interval;
    in.engineOption = "--metrics-url";
    in.insecure = t.insecure;
    // Once per endpoint id: two spellings of one endpoint would write the same series.
    std::set<std::string> seen;
    if (!o.noEngineMetrics && !t.engineUrl.empty()) {
        const std::string url = EngineIdentity::baseUrl(t.engineUrl) + "/metrics";
        seen.insert(EngineMetricsMapper::endpointIdFromUrl(url));
        in.engines.push_back({url, t.tokenEnv});
    }
    for (const auto& url : o.metricsUrls)
        if (seen.insert(EngineMetricsMapper::endpointIdFromUrl(url)).second)
            in.engines.push_back({url, ""});
    return in;
}

} // namespace

void LoadRecording::attach(CLI::App& cmd, Options& o) {
    auto* off = cmd.add_flag("--no-record", o.off,
                             "Record only the requests: not this machine (GPU, storage, host) "
                             "and the engine's /metrics, which the load's session otherwise "
                             "holds for the length of the load");
    cmd.add_option("--interval", o.interval,
                   std::string(RecorderOptions::kIntervalHelp) +
                       ", of the machine and of the engines' /metrics")
        ->capture_default_str();
    cmd.add_option("--metrics-url", o.metricsUrls,
                   "Also record this /metrics endpoint (e.g. an LMCache server's); repeatable. "
                   "The engine's own, at --url's scheme://host:port/metrics, is recorded "
                   "without it")
        ->excludes(off);
    cmd.add_flag("--no-engine-metrics", o.noEngineMetrics,
                 "Record this machine but not the /metrics at --url's host");
}

std::optional<std::string> LoadRecording::check(const Options& o) {
    if (o.off)
        return std::nullopt;
    const auto built = RecorderOptions::build(recorderInput(o, {}));
    if (const auto* error = std::get_if<std::string>(&built))
        return *error;
    return std::nullopt;
}

LoadRecording::LoadRecording(const Options& o, const Target& t, Store& store) : m_store(store) {
    if (o.off) {
        char host[256] = {};
        gethostname(host, sizeof host - 1);
        m_session = store.createSession({0, t.label, t.storageProfile, host, m_clock.nowNs(),
                                         std::nullopt, "", "load", kToolVersion});
        return;
    }
    auto built = RecorderOptions::build(recorderInput(o, t));
    if (const auto* error = std::get_if<std::string>(&built))
        throw std::invalid_argument(*error); // check() said so before
    auto& options = std::get<Recorder::Options>(built);
    m_engines = options.engines;
    m_interval = options.interval;
    m_engineInterval = options.engineInterval;
    std::vector<std::string> ids;
    for (const auto& e : m_engines)
        ids.push_back(EngineMetricsMapper::endpointIdFromUrl(e.url));
    m_scrapes = std::make_unique<Scrapes>(ids);
    options.observer = m_scrapes.get();
    m_recorder = std::make_unique<Recorder>(std::move(options));
    m_session = m_recorder->sessionId();
    m_recorder->start();
}

LoadRecording::~LoadRecording() {
    try {
        finish();
    } catch (const std::exception& e) {
        std::cerr << "tierscope load: cannot record the session's end: " << e.what() << "\n";
    }
}

void LoadRecording::settle() {
    if (!m_recorder || m_engines.empty() || m_finished)
        return;
    // A scrape that began now ends within its timeout; the next one begins within an interval.
    const auto timeout = std::max_element(m_engines.begin(), m_engines.end(), [](auto& a, auto& b) {
                             return a.timeout < b.timeout;
                         })->timeout;
    m_scrapes->waitAll(m_recorder->clock().nowNs(), std::chrono::steady_clock::now() +
                                                        m_engineInterval + timeout +
                                                        std::chrono::seconds(1));
    reportFailures();
}

void LoadRecording::reportFailures() {
    for (const auto& id : m_scrapes->newlyFailed())
        for (const auto& e : m_engines) {
            if (EngineMetricsMapper::endpointIdFromUrl(e.url) != id)
                continue;
            // Asked once more for the reason: the recording's scrapes keep theirs to the log.
            EngineMetricsCollector probe(e);
            probe.sample(m_recorder->clock().nowNs());
            std::cerr << "tierscope load: " << Redaction::url(e.url);
            if (probe.lastError().empty())
                std::cerr << " did not answer a scrape (it answers now)";
            else
                std::cerr << " does not answer (" << probe.lastError()
                          << "): its engine figures are absent from session " << m_session;
            std::cerr << "; engine/" << id << "/scrape_ok shows when; the load goes on\n";
        }
}

bool LoadRecording::finish() {
    if (m_finished)
        return true;
    m_finished = true;
    if (!m_recorder) {
        m_store.finishSession(m_session, m_clock.nowNs());
        return true;
    }
    m_recorder->stop();
    reportFailures();
    if (const auto error = m_recorder->error()) {
        std::cerr << "tierscope load: recording the machine stopped early: " << *error
                  << " (what was committed before is kept in session " << m_session << ")\n";
        return false;
    }
    return true;
}

std::string LoadRecording::summary() const {
    if (!m_recorder)
        return {};
    return "recorded " + std::to_string(m_recorder->metricCount()) +
           " series of this machine and " + std::to_string(m_engines.size()) +
           " engine /metrics endpoint" + (m_engines.size() == 1 ? "" : "s") + " every " +
           UnitFormat::seconds(std::chrono::duration<double>(m_interval).count()) +
           " in the same session";
}

} // namespace tierscope
