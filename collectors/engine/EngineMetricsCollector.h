#pragma once

#include "collectors/base/Collector.h"
#include "collectors/engine/EngineMetricsMapper.h"

#include <atomic>
#include <chrono>
#include <string>

namespace tierscope {

// Scrapes an inference engine's Prometheus /metrics over HTTP(S) with libcurl and maps it
// with EngineMetricsMapper. TLS verification stays on unless the user turns it off. An
// optional bearer token is read from an environment variable named by the user; it is sent in
// the Authorization header only, and never stored, logged or placed in a metric path.
// Each scrape also reports engine/<id>/scrape_ok (1 or 0), scrape_duration_s and
// malformed_lines, so a failing endpoint is visible on the timeline.
class EngineMetricsCollector : public Collector {
  public:
    struct Options {
        std::string url;
        std::string tokenEnvVar; // empty: no Authorization header
        std::chrono::milliseconds timeout{2000};
        bool recordRaw = false;
        bool insecureTls = false;
        // vLLM's /metrics is tens of KiB; 16 MiB is some 400,000 series, and a body past it
        // is refused before it is parsed.
        std::size_t maxBodyBytes = 16u << 20;
        // And a body of more samples than this is refused as it is parsed: vLLM exposes a few
        // thousand, and the raw recorder keeps at most 10,000 series anyway.
        std::size_t maxSamples = 100'000;
    };

    explicit EngineMetricsCollector(Options options);
    ~EngineMetricsCollector() override;

    std::string name() const override { return "engine:" + m_id; }
    std::vector<Reading> sample(std::int64_t tNs) override;
    std::vector<DeviceRecord> devices() override;
    // Aborts a transfer or a parse in progress; that cycle reports nothing, and so does every
    // later one, since a collector is interrupted only when its sampling ends.
    void interrupt() override { m_interrupted = true; }

    const std::string& lastError() const { return m_lastError; }

  private:
    bool fetch(std::string& body);

    Options m_options;
    std::string m_id;
    EngineMetricsMapper m_mapper;
    void* m_curl = nullptr;
    std::string m_authorization;
    std::string m_lastError;
    std::atomic<bool> m_interrupted{false};
};

} // namespace tierscope
