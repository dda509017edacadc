// Range reads: one metric, 1 hour at 10 Hz, decimated to 2,000 points, and an overview of a
// whole session of 100 such metrics. Baseline in the same run: the same reads through the raw
// path (decode every chunk, then min/max-decimate in memory), which is what a store without
// rollups has to do.
#include "BenchSupport.h"
#include "core/store/Decimator.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"

#include <cmath>
#include <filesystem>

using namespace tierscope;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kMetrics = 100;
constexpr int kTicks = 36'000; // 1 h at 10 Hz
constexpr std::int64_t kT0 = 1'790'000'000'000'000'000;
constexpr std::int64_t kStep = 100'000'000;
constexpr std::int64_t kT1 = kT0 + kTicks * kStep - 1;
constexpr int kPoints = 2000;

std::int64_t build(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm"})
        std::filesystem::remove(path + suffix);
    std::int64_t session = 0;
    {
        Store store(path, Store::Mode::ReadWrite);
        session = store.createSession({0, "hour", "", "h", kT0, kT0 + kTicks * kStep, "", "", "0"});
    }
    StoreWriter writer(path);
    std::vector<int> handles;
    for (int m = 0; m < kMetrics; ++m)
        handles.push_back(writer.defineMetric(session, {"bench/m" + std::to_string(m), "1"}));
    std::vector<StoreWriter::PendingSample> batch(kMetrics);
    for (int i = 0; i < kTicks; ++i) {
        for (int m = 0; m < kMetrics; ++m)
            batch[static_cast<std::size_t>(m)] = {handles[static_cast<std::size_t>(m)],
                                                  kT0 + i * kStep,
                                                  std::sin(i * 0.001 * (m + 1)) * 100.0};
        writer.append(batch);
    }
    writer.stop();
    return session;
}

constexpr int kDayTicks = 864'000;

std::int64_t buildDay(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm"})
        std::filesystem::remove(path + suffix);
    std::int64_t session = 0;
    {
        Store store(path, Store::Mode::ReadWrite);
        session = store.createSession({0, "day", "", "h", kT0, std::nullopt, "", "", "0"});
    }
    StoreWriter writer(path);
    const int h = writer.defineMetric(session, {"bench/day", "1"});
    std::vector<StoreWriter::PendingSample> batch;
    for (int i = 0; i < kDayTicks; ++i)
        batch.push_back({h, kT0 + i * kStep, std::sin(i * 0.0001) * 100.0});
    writer.append(batch);
    writer.stop();
    return session;
}

template <typename F> double medianMs(int runs, F&& f) {
    std::vector<double> ms;
    for (int r = 0; r < runs; ++r) {
        const auto start = Clock::now();
        f(r);
        ms.push_back(bench::seconds(start) * 1e3);
    }
    return bench::median(ms);
}

} // namespace

int main(int argc, char** argv) {
    const std::string dir = argc > 1 ? argv[1] : std::filesystem::temp_directory_path().string();
    const std::string path = dir + "/bench-rangeread.db";
    const auto buildStart = Clock::now();
    const auto session = build(path);
    std::printf("bench_rangeread: built %d metrics x 1 h x 10 Hz (%.1f M samples) in %.1f s, file "
                "%.0f MB\n",
                kMetrics, kMetrics * double(kTicks) / 1e6, bench::seconds(buildStart),
                std::filesystem::file_size(path) / 1e6);

    Store store(path, Store::Mode::ReadOnly);
    const auto metrics = store.metrics(session);
    std::size_t points = 0;
    auto rollupOne = [&](int r) {
        points = store
                     .readDecimated(metrics[static_cast<std::size_t>(r % kMetrics)].id, kT0, kT1,
                                    kPoints)
                     .size() *
                 2;
    };
    auto rawOne = [&](int r) {
        const auto raw =
            store.readRaw(metrics[static_cast<std::size_t>(r % kMetrics)].id, kT0, kT1);
        Decimator::decimate(raw, kT0, kT1, kPoints / 2);
    };
    auto rollupAll = [&](int) {
        for (const auto& m : metrics)
            store.readDecimated(m.id, kT0, kT1, kPoints);
    };
    auto rawAll = [&](int) {
        for (const auto& m : metrics)
            Decimator::decimate(store.readRaw(m.id, kT0, kT1), kT0, kT1, kPoints / 2);
    };
    rollupAll(0); // warm the page cache for both paths alike
    const double oneRollup = medianMs(101, rollupOne);
    const double oneRaw = medianMs(21, rawOne);
    const double allRollup = medianMs(7, rollupAll);
    const double allRaw = medianMs(3, rawAll);
    std::printf("  one metric, 1 h -> %zu points: %.2f ms (baseline raw decode + decimate: %.2f "
                "ms, ratio %.3f)\n",
                points, oneRollup, oneRaw, oneRollup / oneRaw);
    std::printf("  overview, %d metrics x 1 h -> %d points each: %.1f ms (baseline raw: %.1f ms, "
                "ratio %.3f)\n",
                kMetrics, kPoints, allRollup, allRaw, allRollup / allRaw);
    for (const char* suffix : {"", "-wal", "-shm"})
        std::filesystem::remove(path + suffix);

    // One metric over a day: here the rollups (60 s buckets) replace 600 samples per row.
    const std::string dayPath = dir + "/bench-rangeread-day.db";
    const std::int64_t day = buildDay(dayPath);
    Store dayStore(dayPath, Store::Mode::ReadOnly);
    const auto dayId = dayStore.metrics(day)[0].id;
    const std::int64_t dayEnd = kT0 + kDayTicks * kStep - 1;
    const double dayRollup =
        medianMs(21, [&](int) { dayStore.readDecimated(dayId, kT0, dayEnd, kPoints); });
    const double dayRaw = medianMs(5, [&](int) {
        Decimator::decimate(dayStore.readRaw(dayId, kT0, dayEnd), kT0, kT0 + kDayTicks * kStep - 1,
                            kPoints / 2);
    });
    std::printf(
        "  one metric, 24 h at 10 Hz -> %d points: %.2f ms (baseline raw: %.2f ms, ratio %.3f)\n",
        kPoints, dayRollup, dayRaw, dayRollup / dayRaw);
    for (const char* suffix : {"", "-wal", "-shm"})
        std::filesystem::remove(dayPath + suffix);
    return 0;
}
