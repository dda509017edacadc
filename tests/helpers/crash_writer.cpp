// Test helper for tst_storecrash: records a known stream (value i for the i-th tick of every
// metric, stamped with the wall clock at enqueue) through the real StoreWriter until killed.
#include "core/util/Logging.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"
#include "core/util/WallClock.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using namespace tierscope;

int main(int argc, char** argv) {
    Logging::toStderr("warn");
    if (argc != 4) {
        std::fprintf(stderr, "usage: crash_writer DB METRICS RATE_HZ\n");
        return 2;
    }
    const std::string db = argv[1];
    const int metrics = std::atoi(argv[2]);
    const int rate = std::atoi(argv[3]);
    std::int64_t session = 0;
    {
        Store store(db, Store::Mode::ReadWrite);
        session = store.createSession(
            {0, "crash", "", "h", WallClock::systemNowNs(), std::nullopt, "", "", "0"});
    }
    StoreWriter writer(db);
    std::vector<int> handles;
    for (int m = 0; m < metrics; ++m)
        handles.push_back(writer.defineMetric(session, {"crash/m" + std::to_string(m), "1"}));
    std::printf("session %lld\n", static_cast<long long>(session));
    std::fflush(stdout);
    const auto period = std::chrono::nanoseconds(1'000'000'000 / rate);
    auto next = std::chrono::steady_clock::now();
    std::vector<StoreWriter::PendingSample> batch(handles.size());
    for (std::int64_t i = 0;; ++i) {
        const std::int64_t t = WallClock::systemNowNs();
        for (std::size_t m = 0; m < handles.size(); ++m)
            batch[m] = {handles[m], t, static_cast<double>(i)};
        writer.append(batch);
        next += period;
        std::this_thread::sleep_until(next);
    }
}
