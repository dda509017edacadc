// Test helper for tst_storecrash: records a known stream (value i for the i-th tick of every
// metric, stamped with the wall clock at enqueue) through the real StoreWriter until killed.
// With a SIGTERM it stops cleanly instead, finishes its run and prints how many ticks it
// appended, so a test can check that exactly those were stored once.
#include "core/util/Logging.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"
#include "core/util/WallClock.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using namespace tierscope;

namespace {

std::atomic<bool> g_stop{false};

void onTerm(int) {
    g_stop = true;
}

} // namespace

int main(int argc, char** argv) {
    Logging::toStderr("warn");
    if (argc != 4 && argc != 6) {
        std::fprintf(stderr, "usage: crash_writer DB METRICS RATE_HZ [COMMIT_MS SEAL_MS]\n");
        return 2;
    }
    std::signal(SIGTERM, onTerm);
    const std::string db = argv[1];
    const int metrics = std::atoi(argv[2]);
    const int rate = std::atoi(argv[3]);
    StoreWriter::Options options;
    if (argc == 6) {
        options.commitInterval = std::chrono::milliseconds(std::atoi(argv[4]));
        options.sealInterval = std::chrono::milliseconds(std::atoi(argv[5]));
    }
    std::int64_t session = 0;
    std::int64_t run = 0;
    Store store(db, Store::Mode::ReadWrite);
    session = store.createSession(
        {0, "crash", "", "h", WallClock::systemNowNs(), std::nullopt, "", "", "0"});
    run = store.createRun(session, "crash", "{}", WallClock::systemNowNs());
    StoreWriter writer(db, options);
    std::vector<int> handles;
    for (int m = 0; m < metrics; ++m)
        handles.push_back(writer.defineMetric(session, {"crash/m" + std::to_string(m), "1"}));
    std::printf("session %lld run %lld\n", static_cast<long long>(session),
                static_cast<long long>(run));
    std::fflush(stdout);
    const auto period = std::chrono::nanoseconds(1'000'000'000 / rate);
    auto next = std::chrono::steady_clock::now();
    std::vector<StoreWriter::PendingSample> batch(handles.size());
    std::int64_t ticks = 0;
    for (; !g_stop; ++ticks) {
        const std::int64_t t = WallClock::systemNowNs();
        for (std::size_t m = 0; m < handles.size(); ++m)
            batch[m] = {handles[m], t, static_cast<double>(ticks)};
        writer.append(batch);
        next += period;
        std::this_thread::sleep_until(next);
    }
    writer.stop();
    if (const auto error = writer.error()) {
        std::fprintf(stderr, "crash_writer: %s\n", error->c_str());
        return 1;
    }
    store.finishRun(run, WallClock::systemNowNs(), "done", "{}");
    std::printf("appended %lld\n", static_cast<long long>(ticks));
    return 0;
}
