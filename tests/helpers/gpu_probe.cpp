// Test and benchmark helper: opens the real GPU backends (rocm-smi-lib reads whatever is
// mounted at /sys/class) and prints what they report as JSON.
//   gpu_probe [--wait-stdin] --cycles N        N sample() cycles of every GPU collector
//   gpu_probe [--wait-stdin] --schedule SECS   run the real Scheduler (100 ms; PCIe at 1 s)
// --wait-stdin: after discovery, print "ready" and wait for a line on stdin before sampling,
// so a test can start watching the sysfs files only for the sampling phase.
// --step-stdin: after each cycle but the last, print "cycle N" and wait for a line on stdin,
// so a test can change the planted values between cycles.
// --cycle-ms MS: cycle N samples at N * MS ms (default: N ns), for readings judged by time.
#include "collectors/gpu/GpuBackends.h"
#include "collectors/Scheduler.h"
#include "core/util/Logging.h"

#include <chrono>
#include <cstring>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

using namespace tierscope;

namespace {

class JsonSink : public SampleSink {
  public:
    void write(std::int64_t tNs, std::span<const Reading> readings) override {
        std::lock_guard lock(m_mutex);
        for (const auto& r : readings)
            m_samples.push_back({{"path", r.metric.path}, {"t", tNs}, {"value", r.value}});
    }
    nlohmann::json take() {
        std::lock_guard lock(m_mutex);
        return m_samples;
    }

  private:
    std::mutex m_mutex;
    nlohmann::json m_samples = nlohmann::json::array();
};

nlohmann::json toJson(const std::vector<Reading>& readings) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : readings)
        out.push_back({{"path", r.metric.path},
                       {"unit", r.metric.unit},
                       {"value", r.value},
                       {"labels", nlohmann::json::parse(r.metric.labels)}});
    return out;
}

} // namespace

int main(int argc, char** argv) {
    Logging::toStderr("info");
    int cycles = 0;
    double scheduleSeconds = 0;
    bool waitStdin = false, stepStdin = false;
    std::int64_t cycleNs = 1;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--cycles") && i + 1 < argc)
            cycles = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--schedule") && i + 1 < argc)
            scheduleSeconds = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--wait-stdin"))
            waitStdin = true;
        else if (!std::strcmp(argv[i], "--step-stdin"))
            stepStdin = true;
        else if (!std::strcmp(argv[i], "--cycle-ms") && i + 1 < argc)
            cycleNs = std::atoll(argv[++i]) * 1'000'000;
    }
    auto gpus = GpuBackends::open({}, GpuBackends::Libraries::fromEnvironment());
    nlohmann::json out;
    out["statuses"] = nlohmann::json::array();
    for (const auto& s : gpus.statuses)
        out["statuses"].push_back({{"backend", s.backend},
                                   {"available", s.available},
                                   {"reason", s.reason},
                                   {"summary", s.summary()}});
    out["devices"] = nlohmann::json::array();
    for (const auto& d : gpus.devices())
        out["devices"].push_back(
            {{"kind", d.kind}, {"name", d.name}, {"attrs", nlohmann::json::parse(d.attrs)}});
    if (waitStdin) {
        std::cout << "ready" << std::endl;
        std::string line;
        std::getline(std::cin, line);
    }
    out["cycles"] = nlohmann::json::array();
    for (int c = 0; c < cycles; ++c) {
        std::vector<Reading> all;
        for (auto* group : {&gpus.collectors, &gpus.slowCollectors})
            for (auto& collector : *group)
                for (auto& r : collector->sample(c * cycleNs))
                    all.push_back(std::move(r));
        out["cycles"].push_back(toJson(all));
        if (stepStdin && c + 1 < cycles) {
            std::cout << "cycle " << c << std::endl;
            std::string line;
            std::getline(std::cin, line);
        }
    }
    if (scheduleSeconds > 0) {
        WallClock clock;
        JsonSink sink;
        Scheduler scheduler(sink, clock);
        for (auto& c : gpus.collectors)
            scheduler.add(std::move(c), std::chrono::milliseconds(100));
        for (auto& c : gpus.slowCollectors)
            scheduler.add(std::move(c), std::chrono::seconds(1));
        scheduler.start();
        std::this_thread::sleep_for(std::chrono::duration<double>(scheduleSeconds));
        scheduler.stop();
        out["scheduled"] = sink.take();
    }
    std::cout << out.dump() << std::endl;
    return 0;
}
