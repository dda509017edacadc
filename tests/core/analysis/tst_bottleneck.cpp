#include "core/analysis/AnalysisText.h"
#include "core/analysis/BottleneckClassifier.h"
#include "core/analysis/SessionAnalysis.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"

#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

using namespace tierscope;
using Class = BottleneckClassifier::Class;
using Window = BottleneckClassifier::Window;
using Storage = BottleneckClassifier::Storage;

namespace {

constexpr std::int64_t kSecond = 1000000000LL, kStart = 1'790'000'000LL * kSecond;

bool contains(const std::string& text, const char* part) {
    return text.find(part) != std::string::npos;
}

Storage device(double bytesPerS, std::optional<double> ceiling) {
    Storage s;
    s.name = "nvme0n1";
    s.bytesPerS = bytesPerS;
    s.bandwidthCeiling = ceiling;
    return s;
}

// A window of an engine serving requests: none waiting, one GPU, one drive far from its ceiling.
Window serving() {
    Window w;
    w.storage = {device(1e9, 6e9)};
    w.gpuBusy = {{"0", 50}};
    w.requestsRunning = 4;
    w.requestsWaiting = 0;
    w.ttftS = 0.4;
    return w;
}

// A session of 60 s with samples every 100 ms: each metric's value at tenth i.
struct Metric {
    MetricDescriptor descriptor;
    std::function<std::optional<double>(int)> value;
};

std::int64_t writeSession(const std::string& db, std::int64_t start, const std::string& host,
                          const std::vector<Metric>& metrics, int tenths = 600) {
    std::int64_t id = 0;
    {
        Store store(db, Store::Mode::ReadWrite);
        SessionInfo info;
        info.startNs = start;
        info.host = host;
        id = store.createSession(info);
        store.finishSession(id, start + tenths * kSecond / 10);
    }
    StoreWriter writer(db, {});
    std::vector<int> ids;
    for (const auto& m : metrics)
        ids.push_back(writer.defineMetric(id, m.descriptor));
    for (int i = 0; i < tenths; ++i)
        for (std::size_t k = 0; k < metrics.size(); ++k)
            if (const auto v = metrics[k].value(i))
                writer.append(ids[k], start + i * kSecond / 10, *v);
    writer.stop();
    return id;
}

Metric constant(const char* path, const char* unit, double v) {
    return {{path, unit, "gauge", "{}"}, [v](int) { return v; }};
}

} // namespace

class TestBottleneck : public QObject {
    Q_OBJECT
  private slots:
    void kvCapacityBound() {
        Window w = serving();
        w.kvUsage = 0.97;
        w.requestsWaiting = 12;
        w.gpuBusy = {{"0", 90}};
        const auto v = BottleneckClassifier::classify(w);
        QCOMPARE(v.cls, Class::KvCapacityBound);
        QCOMPARE(v.rule, std::string("kv-full"));
        QVERIFY2(contains(v.evidence, "12 waiting, KV cache 97 %"), v.evidence.c_str());
        w.requestsWaiting = 0; // full, but nobody waits and nothing is preempted
        QVERIFY(BottleneckClassifier::classify(w).cls != Class::KvCapacityBound);
        w.preemptionsPerS = 0.5;
        QCOMPARE(BottleneckClassifier::classify(w).cls, Class::KvCapacityBound);
    }

    // Where the runs name their KV tier's directory, only a device under it can make the window
    // storage-bound: a saturated disk that holds no KV beside a tier with headroom is not what
    // the requests wait on. The tier's own saturation is, and the evidence says it is the tier.
    void onlyTheKvTiersDeviceMakesItStorageBound() {
        Window w;
        Storage busy = device(5.9e9, 6.5e9); // nvme0n1: saturated, holds the model, not the KV
        Storage tier = device(0.5e9, 6.5e9);
        tier.name = "nvme1n1";
        tier.kvTier = true;
        w.storage = {busy, tier};
        w.gpuBusy = {{"0", 35}};
        w.requestsRunning = 16;
        w.ttftS = 9.3;
        w.retrieveS = 4.8;
        QVERIFY(BottleneckClassifier::classify(w).cls != Class::StorageBound);
        w.storage[1].bytesPerS = 6.0e9;
        const auto v = BottleneckClassifier::classify(w);
        QCOMPARE(v.cls, Class::StorageBound);
        QVERIFY2(contains(v.evidence, "nvme1n1 (KV tier) 6.0 GB/s"), v.evidence.c_str());
        // Without a named tier any saturated device still counts, as before.
        w.storage = {busy, device(0.5e9, 6.5e9)};
        w.storage[1].name = "nvme1n1";
        QCOMPARE(BottleneckClassifier::classify(w).cls, Class::StorageBound);
    }

    void storageBoundByBandwidthAgainstAHistoryCeiling() {
        Window w;
        w.storage = {device(5.9e9, 6.5e9)};
        w.gpuBusy = {{"0", 35}};
        w.requestsRunning = 16;
        w.ttftS = 9.3;
        w.retrieveS = 4.8;
        auto v = BottleneckClassifier::classify(w);
        QCOMPARE(v.cls, Class::StorageBound);
        QCOMPARE(v.rule, std::string("storage-bandwidth"));
        QVERIFY2(contains(v.evidence, "nvme0n1 5.9 GB/s = 91 % of its 6.5 GB/s ceiling (ceiling "
                                      "from history, not probed)"),
                 v.evidence.c_str());
        QVERIFY2(contains(v.evidence, "GPU 0 busy 35 %"), v.evidence.c_str());
        QVERIFY2(contains(v.evidence, "KV retrieve p50 4.80 s (52 %)"), v.evidence.c_str());
        // The engine says TTFT is neither KV retrieval nor prefill: storage is busy, but the
        // requests are not waiting on it.
        w.retrieveS = 0.3;
        w.prefillS = 1.0;
        QVERIFY(BottleneckClassifier::classify(w).cls != Class::StorageBound);
        // Where the engine reports no TTFT parts, a busy device beside idle GPUs is no
        // evidence that work waits on it: requests waiting are.
        w.retrieveS.reset();
        w.prefillS.reset();
        v = BottleneckClassifier::classify(w);
        QCOMPARE(v.cls, Class::Unknown);
        QCOMPARE(v.rule, std::string("no-engine-evidence"));
        w.requestsWaiting = 3;
        QCOMPARE(BottleneckClassifier::classify(w).cls, Class::StorageBound);
        // Requests deferred for their KV (vLLM's waiting reason) are the engine saying work
        // waits on storage, even where its TTFT parts put retrieval below half.
        w.requestsWaiting.reset();
        w.retrieveS = 0.3;
        w.prefillS = 1.0;
        QVERIFY(BottleneckClassifier::classify(w).cls != Class::StorageBound);
        w.requestsDeferred = 2;
        v = BottleneckClassifier::classify(w);
        QCOMPARE(v.cls, Class::StorageBound);
        QVERIFY2(contains(v.evidence, "2 deferred for KV"), v.evidence.c_str());
    }

    // The shares of TTFT come from the histograms' means where the window has them: p50s are
    // only as fine as the buckets. vLLM's queue and prefill buckets start at 0.3 s, so a
    // 1 ms phase has p50 0.15 s; judged on p50s, a 0.2 s TTFT would be 75 % KV retrieve and
    // 75 % queueing, and the window storage-bound.
    void theSharesOfTtftAreJudgedOnMeansNotOnCoarseP50s() {
        Window w;
        w.storage = {device(5.9e9, 6.5e9)};
        w.gpuBusy = {{"0", 35}};
        w.requestsRunning = 16;
        w.requestsWaiting = 0;
        w.ttftS = 0.2;
        w.queueS = 0.15;
        w.retrieveS = 0.15;
        w.prefillS = 0.15;
        QCOMPARE(BottleneckClassifier::classify(w).cls, Class::StorageBound); // p50s only
        w.means.ttft = TtftBreakdown::Observed{20.0, 100};                    // mean 200 ms
        w.means.queue = TtftBreakdown::Observed{0.1, 100};                    // 1 ms
        w.means.prefill = TtftBreakdown::Observed{2.0, 100};                  // 20 ms
        w.means.retrieve = TtftBreakdown::Observed{0.1, 100};
        const auto v = BottleneckClassifier::classify(w);
        QVERIFY2(v.cls != Class::StorageBound, v.evidence.c_str());
        QVERIFY2(v.cls != Class::EngineQueueing, v.evidence.c_str());
        QVERIFY2(contains(v.evidence, w.means.text().c_str()), v.evidence.c_str());
        QVERIFY2(contains(v.evidence, "queue p50 150.00 ms") &&
                     !contains(v.evidence, "queue p50 150.00 ms ("),
                 v.evidence.c_str()); // listed, without a share it cannot give
        // Where the means say KV retrieval is most of TTFT, storage is the bottleneck.
        w.means.retrieve = TtftBreakdown::Observed{14.0, 100}; // 70 %
        QCOMPARE(BottleneckClassifier::classify(w).cls, Class::StorageBound);
        // And where they say queueing is, with storage and GPUs idle, the engine queues.
        Window q = w;
        q.storage = {device(0.5e9, 6.5e9)};
        q.means.retrieve = TtftBreakdown::Observed{0.1, 100};
        q.means.queue = TtftBreakdown::Observed{15.0, 100}; // 75 %
        QCOMPARE(BottleneckClassifier::classify(q).cls, Class::EngineQueueing);
    }

    void storageBoundByProbedIopsOrLatency() {
        Window w = serving();
        Storage s = device(2e9, 7e9); // 4 KiB reads: far from the bandwidth ceiling
        s.iops = 480000;
        s.iopsCeiling = 500000;
        s.probed = true;
        w.storage = {s};
        w.gpuBusy = {{"0", 20}};
        w.requestsWaiting = 2; // the engine's evidence that work waits
        auto v = BottleneckClassifier::classify(w);
        QCOMPARE(v.cls, Class::StorageBound);
        QCOMPARE(v.rule, std::string("storage-iops"));
        QVERIFY2(contains(v.evidence, "480000 IOPS = 96 % of its probed ceiling"),
                 v.evidence.c_str());

        s.iops = 200000;
        s.awaitS = 0.0031;
        s.unloadedAwaitS = 0.00008;
        s.queueDepth = 64;
        w.storage = {s};
        v = BottleneckClassifier::classify(w);
        QCOMPARE(v.cls, Class::StorageBound);
        QCOMPARE(v.rule, std::string("storage-latency"));
        QVERIFY2(contains(v.evidence, "await 3.10 ms at QD 64.0 (unloaded 80 us)"),
                 v.evidence.c_str());
        w.storage[0].queueDepth = 2; // slow at a low queue depth is not saturation
        QVERIFY(BottleneckClassifier::classify(w).cls != Class::StorageBound);
    }

    // 100 % util means one request in flight all the time, not a saturated drive.
    void qd1StreamAtFullUtilFarBelowTheCeilingIsNotStorageBound() {
        Window w = serving();
        Storage s = device(60e6, 7e9);
        s.iops = 14650;
        s.utilPct = 100;
        s.queueDepth = 1;
        s.awaitS = 0.000068;
        w.storage = {s};
        w.gpuBusy = {{"0", 30}};
        w.ttftS = 3.0;
        const auto v = BottleneckClassifier::classify(w);
        QVERIFY2(v.cls != Class::StorageBound, v.evidence.c_str());
        QCOMPARE(v.cls, Class::Idle);
        QCOMPARE(v.rule, std::string("client-bound"));
        QVERIFY2(contains(v.evidence, "= 1 % of its 7.0 GB/s ceiling"), v.evidence.c_str());
        QVERIFY2(contains(v.evidence, "util 100 %"), v.evidence.c_str());
    }

    // One saturated GPU of two is saturation; the mean (51 %) would hide it.
    void gpusArePerGpuNotAveraged() {
        Window w = serving();
        w.storage = {device(6e9, 6.2e9)};
        w.gpuBusy = {{"0", 97}, {"1", 5}};
        const auto v = BottleneckClassifier::classify(w);
        QCOMPARE(v.cls, Class::GpuComputeBound);
        QCOMPARE(v.rule, std::string("gpu-busy"));
        QVERIFY2(contains(v.evidence, "GPU 0 busy 97 % (busiest of 2 GPUs)"), v.evidence.c_str());
    }

    void gpuComputeBoundNeedsRequests() {
        Window w = serving();
        w.gpuBusy = {{"0", 97}};
        QCOMPARE(BottleneckClassifier::classify(w).cls, Class::GpuComputeBound);
        Window noEngine;
        noEngine.gpuBusy = {{"0", 97}};
        noEngine.storage = {device(1e9, 6e9)};
        const auto v = BottleneckClassifier::classify(noEngine);
        QCOMPARE(v.cls, Class::Unknown);
        QCOMPARE(v.rule, std::string("no-engine-data"));
    }

    void engineQueueing() {
        Window w = serving();
        w.requestsWaiting = 4;
        w.gpuBusy = {{"0", 70}};
        auto v = BottleneckClassifier::classify(w);
        QCOMPARE(v.cls, Class::EngineQueueing);
        QCOMPARE(v.rule, std::string("queueing"));
        QVERIFY2(contains(v.evidence, "4 running, 4 waiting"), v.evidence.c_str());
        // Queue time as the larger part of TTFT is queueing too.
        w.requestsWaiting = 0;
        w.ttftS = 2.0;
        w.queueS = 1.2;
        QCOMPARE(BottleneckClassifier::classify(w).cls, Class::EngineQueueing);
        // Headroom must be measured: without GPU data there is no verdict.
        w.gpuBusy.clear();
        v = BottleneckClassifier::classify(w);
        QCOMPARE(v.cls, Class::Unknown);
        QCOMPARE(v.rule, std::string("no-gpu-data"));
    }

    void idleAndClientBound() {
        Window idle;
        idle.storage = {device(2e4, 6e9)};
        idle.gpuBusy = {{"0", 0}};
        idle.requestsRunning = 0;
        idle.requestsWaiting = 0;
        auto v = BottleneckClassifier::classify(idle);
        QCOMPARE(v.cls, Class::Idle);
        QCOMPARE(v.rule, std::string("idle"));
        idle.storage = {device(2e9, 6e9)}; // no requests, but I/O: not idle
        QVERIFY(BottleneckClassifier::classify(idle).rule != "idle");

        v = BottleneckClassifier::classify(serving());
        QCOMPARE(v.cls, Class::Idle);
        QCOMPARE(v.rule, std::string("client-bound"));
        QCOMPARE(std::string(BottleneckClassifier::name(Class::Idle)),
                 std::string("idle/client-bound"));
    }

    // Missing evidence never wins a class by elimination.
    void unknownWhereEvidenceIsMissing() {
        // A storage workload alone: a drive at its ceiling, no GPU, no engine.
        Window alone;
        alone.storage = {device(6.4e9, 6.5e9)};
        alone.storage[0].utilPct = 100;
        auto v = BottleneckClassifier::classify(alone);
        QCOMPARE(v.cls, Class::Unknown);
        QCOMPARE(v.rule, std::string("no-gpu-data"));
        QVERIFY2(contains(v.evidence, "no GPU data"), v.evidence.c_str());

        // No engine data: no TTFT is not "TTFT high", and idle GPUs are not starved.
        Window noEngine;
        noEngine.storage = {device(1e9, 6e9)};
        noEngine.gpuBusy = {{"0", 20}};
        v = BottleneckClassifier::classify(noEngine);
        QCOMPARE(v.cls, Class::Unknown);
        QCOMPARE(v.rule, std::string("no-engine-data"));

        // No ceiling: a busy drive cannot be called near or far from its limit.
        Window noCeiling = serving();
        noCeiling.storage = {device(2e9, std::nullopt)};
        v = BottleneckClassifier::classify(noCeiling);
        QCOMPARE(v.cls, Class::Unknown);
        QCOMPARE(v.rule, std::string("no-ceiling"));
        QVERIFY2(contains(v.evidence, "nvme0n1 2.0 GB/s (no ceiling)"), v.evidence.c_str());

        // No GPU data with an engine that serves: no client-bound by elimination either.
        Window noGpu = serving();
        noGpu.gpuBusy.clear();
        QCOMPARE(BottleneckClassifier::classify(noGpu).rule, std::string("no-gpu-data"));

        v = BottleneckClassifier::classify(Window());
        QCOMPARE(v.cls, Class::Unknown);
        QCOMPARE(v.rule, std::string("no-data"));
        QCOMPARE(std::string(BottleneckClassifier::name(Class::Unknown)), std::string("unknown"));
        const auto& all = BottleneckClassifier::all();
        QVERIFY(std::find(all.begin(), all.end(), Class::Unknown) != all.end());
        QVERIFY(std::string(BottleneckClassifier::color(Class::Unknown)) !=
                BottleneckClassifier::color(Class::Idle));
    }

    void thresholdsAreConfigurable() {
        Window w = serving();
        w.gpuBusy = {{"0", 80}};
        QCOMPARE(BottleneckClassifier::classify(w).cls, Class::Idle);
        BottleneckClassifier::Thresholds t;
        t.gpuBusy = 75;
        QCOMPARE(BottleneckClassifier::classify(w, t).cls, Class::GpuComputeBound);
    }

    void rulesTextNamesEveryClass() {
        const std::string text = BottleneckClassifier::kRulesText;
        for (const auto c : BottleneckClassifier::all())
            QVERIFY2(contains(text, BottleneckClassifier::name(c)), BottleneckClassifier::name(c));
        QVERIFY(contains(text, "ceiling from history, not probed"));
    }

    // 60 s: a drive at its ceiling with idle GPUs for 30 s, then busy GPUs.
    void analysesAStoredSession() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("a.db").toStdString();
        // The drive's history: an earlier session of this host (never the analysed one's own).
        writeSession(db, kStart - 1000 * kSecond, "node-1",
                     {constant("block/nvme0n1/read_bytes_per_s", "bytes/s", 5e9)}, 100);
        const auto id = writeSession(db, kStart, "node-1",
                                     {{{"block/nvme0n1/read_bytes_per_s", "bytes/s", "rate", "{}"},
                                       [](int i) { return i < 300 ? 5e9 : 1e9; }},
                                      {{"gpu/0/busy_pct", "percent", "gauge", "{}"},
                                       [](int i) { return i < 300 ? 20.0 : 95.0; }},
                                      {{"engine/e/requests_waiting", "1", "gauge", "{}"},
                                       [](int i) { return i < 300 ? 6.0 : 0.0; }},
                                      {{"engine/e/ttft_p50_s", "s", "gauge", "{}"},
                                       [](int i) { return i < 300 ? 4.0 : 0.3; }}});
        Store store(db, Store::Mode::ReadOnly);
        const auto r = SessionAnalysis::analyze(store, id, 10 * kSecond);
        QCOMPARE(r.windows.size(), std::size_t(6));
        QCOMPARE(r.windows[0].verdict.cls, Class::StorageBound);
        QVERIFY2(contains(r.windows[0].verdict.evidence,
                          "= 100 % of its 5.0 GB/s ceiling (ceiling from history, not probed)"),
                 r.windows[0].verdict.evidence.c_str());
        QCOMPARE(r.windows[5].verdict.cls, Class::GpuComputeBound);
        QCOMPARE(r.shares.at(Class::StorageBound), 0.5);
        QCOMPARE(r.shares.at(Class::GpuComputeBound), 0.5);
        QVERIFY(r.ceilings.at("nvme0n1").bytesPerS);
        QVERIFY(!r.ceilings.at("nvme0n1").probed);
    }

    // A recorded session whose engine defers requests for their KV (the mapper's
    // requests_waiting{reason=deferred}): storage-bound where, without it, nothing says work
    // waits on the saturated drive.
    void deferredRequestsAreStorageEvidenceInAStoredSession() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("d.db").toStdString();
        writeSession(db, kStart - 1000 * kSecond, "node-1",
                     {constant("block/nvme0n1/read_bytes_per_s", "bytes/s", 5e9)}, 100);
        std::vector<Metric> metrics = {
            constant("block/nvme0n1/read_bytes_per_s", "bytes/s", 5e9),
            constant("gpu/0/busy_pct", "percent", 20.0),
            constant("engine/e/requests_running", "1", 4.0),
            {{"engine/e/requests_waiting{reason=deferred}", "1", "gauge", "{}"},
             [](int i) { return i < 100 ? 2.0 : 0.0; }}};
        const auto id = writeSession(db, kStart, "node-1", metrics, 200);
        Store store(db, Store::Mode::ReadOnly);
        const auto r = SessionAnalysis::analyze(store, id, 10 * kSecond);
        QCOMPARE(r.windows.size(), std::size_t(2));
        QCOMPARE(r.windows[0].verdict.cls, Class::StorageBound);
        QVERIFY2(contains(r.windows[0].verdict.evidence, "2 deferred for KV"),
                 r.windows[0].verdict.evidence.c_str());
        QCOMPARE(r.windows[1].verdict.rule, std::string("no-engine-evidence"));
    }

    // The ceiling is the best ever recorded on the device in the workspace, on the same host,
    // not the session's own busiest window: a steady 1 GB/s is 20 % of a 5 GB/s drive.
    void ceilingFromHistoryAcrossSessions() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("h.db").toStdString();
        const Metric earlier{{"block/nvme0n1/read_bytes_per_s", "bytes/s", "rate", "{}"},
                             [](int i) { return i < 100 ? 5e9 : 1e8; }};
        writeSession(db, kStart, "node-1", {earlier}, 200);
        // Another machine's nvme0n1 is another drive.
        writeSession(db, kStart + 100 * kSecond, "node-2",
                     {constant("block/nvme0n1/read_bytes_per_s", "bytes/s", 40e9)}, 100);
        const auto id = writeSession(db, kStart + 200 * kSecond, "node-1",
                                     {constant("block/nvme0n1/read_bytes_per_s", "bytes/s", 0.5e9),
                                      constant("block/nvme0n1/write_bytes_per_s", "bytes/s", 0.5e9),
                                      constant("gpu/0/busy_pct", "percent", 20),
                                      constant("engine/e/ttft_p50_s", "s", 4.0),
                                      constant("engine/e/requests_running", "1", 8),
                                      constant("engine/e/requests_waiting", "1", 0)});
        Store store(db, Store::Mode::ReadOnly);
        const auto ceilings = SessionAnalysis::ceilings(store, id);
        QCOMPARE(ceilings.size(), std::size_t(1));
        QCOMPARE(*ceilings.at("nvme0n1").bytesPerS, 5e9);
        const auto r = SessionAnalysis::analyze(store, id, 10 * kSecond);
        QCOMPARE(r.windows.size(), std::size_t(6));
        for (const auto& w : r.windows) {
            QCOMPARE(w.verdict.rule, std::string("client-bound"));
            QVERIFY2(
                contains(w.verdict.evidence, "nvme0n1 1.0 GB/s = 20 % of its 5.0 GB/s ceiling"),
                w.verdict.evidence.c_str());
        }
    }

    // A QD1 stream keeps the drive 100 % busy at a fraction of what it did before.
    void storedQd1StreamIsNotStorageBound() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("q.db").toStdString();
        writeSession(db, kStart, "", {constant("block/nvme0n1/read_bytes_per_s", "bytes/s", 7e9)},
                     50);
        const auto id = writeSession(db, kStart + 100 * kSecond, "",
                                     {constant("block/nvme0n1/read_bytes_per_s", "bytes/s", 60e6),
                                      constant("block/nvme0n1/read_iops", "1/s", 14650),
                                      constant("block/nvme0n1/util_pct", "percent", 100),
                                      constant("block/nvme0n1/queue_depth", "1", 1),
                                      constant("gpu/0/busy_pct", "percent", 30),
                                      constant("engine/e/ttft_p50_s", "s", 3),
                                      constant("engine/e/requests_running", "1", 1),
                                      constant("engine/e/requests_waiting", "1", 0)});
        Store store(db, Store::Mode::ReadOnly);
        const auto r = SessionAnalysis::analyze(store, id, 10 * kSecond);
        QVERIFY(!r.shares.count(Class::StorageBound));
        QCOMPARE(r.shares.at(Class::Idle), 1.0);
        QVERIFY2(contains(r.windows[0].verdict.evidence, "util 100 %"),
                 r.windows[0].verdict.evidence.c_str());
    }

    // A storage workload alone, no GPU and no engine, the drive at its ceiling: unknown.
    void storageWorkloadAloneIsUnknown() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("w.db").toStdString();
        const auto id = writeSession(
            db, kStart, "",
            {{{"workload/read_bytes_per_s", "bytes/s", "rate", R"({"path":"/mnt/kv"})"},
              [](int) { return 2e9; }},
             constant("block/sda/read_bytes_per_s", "bytes/s", 2e9),
             constant("block/sda/util_pct", "percent", 100)});
        Store store(db, Store::Mode::ReadOnly);
        const auto r = SessionAnalysis::analyze(store, id, 10 * kSecond);
        QCOMPARE(r.shares.size(), std::size_t(1));
        QCOMPARE(r.shares.at(Class::Unknown), 1.0);
        QCOMPARE(r.windows[0].verdict.rule, std::string("no-gpu-data"));
        // Block bandwidth stays beside the workload's own: both are storage targets.
        const auto& storage = r.windows[0].input.storage;
        QCOMPARE(storage.size(), std::size_t(2));
        QCOMPARE(storage[0].name, std::string("sda"));
        QCOMPARE(storage[1].name, std::string("workload /mnt/kv"));
        QCOMPARE(*storage[0].bytesPerS, 2e9);
        // Its own bandwidth is no ceiling of the device under it.
        QVERIFY(!r.ceilings.count("workload /mnt/kv"));
    }

    // A storage workload's target is judged against the probe of its directory (or one
    // above it): the device under its path, as probed. Unprobed, it has no ceiling.
    void aWorkloadIsJudgedAgainstTheProbeOfItsDirectory() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("p.db").toStdString();
        {
            Store store(db, Store::Mode::ReadWrite);
            SessionInfo info;
            info.startNs = kStart - 1000 * kSecond;
            const auto probe = store.createSession(info);
            const nlohmann::json attrs = {{"dir", "/mnt"}, {"read_bytes_per_s", 4e9}};
            store.addDevices(probe, {{"storage-probe", "vdb", attrs.dump()}});
            store.finishSession(probe, info.startNs + kSecond);
        }
        const auto id = writeSession(
            db, kStart, "",
            {{{"workload/read_bytes_per_s", "bytes/s", "rate", R"({"path":"/mnt/kv"})"},
              [](int) { return 1.5e9; }},
             {{"workload/read_bytes_per_s", "bytes/s", "rate", R"({"path":"/mntx/kv"})"},
              [](int) { return 1.5e9; }}},
            100);
        Store store(db, Store::Mode::ReadOnly);
        const auto ceilings = SessionAnalysis::ceilings(store, id);
        QCOMPARE(ceilings.size(), std::size_t(1));
        QCOMPARE(*ceilings.at("workload /mnt/kv").bytesPerS, 4e9);
        QVERIFY(ceilings.at("workload /mnt/kv").probed);
    }

    // A workload series without its target path may span arms on different drives: it is
    // shown, but it gets no ceiling.
    void unnamedWorkloadHasNoCeiling() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("u.db").toStdString();
        const auto id = writeSession(db, kStart, "",
                                     {constant("workload/read_bytes_per_s", "bytes/s", 2e9)}, 100);
        Store store(db, Store::Mode::ReadOnly);
        QVERIFY(SessionAnalysis::ceilings(store, id).empty());
        const auto r = SessionAnalysis::analyze(store, id, 10 * kSecond);
        QCOMPARE(r.windows.size(), std::size_t(1));
        QVERIFY2(contains(r.windows[0].verdict.evidence, "workload 2.0 GB/s (no ceiling)"),
                 r.windows[0].verdict.evidence.c_str());
    }

    // A `storage probe` record beats history: 6.3 GB/s is this session's best, but the probe
    // says the drive does 7 GB/s and 1 M IOPS at 80 us unloaded; the latest probe counts.
    void probedCeilingsFromTheWorkspace() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("p.db").toStdString();
        {
            Store store(db, Store::Mode::ReadWrite);
            for (const double read : {3e9, 7e9}) { // an older probe, then the latest
                SessionInfo info;
                info.host = "node-1";
                info.startNs = kStart - (read < 5e9 ? 2000 : 1000) * kSecond;
                const auto probe = store.createSession(info);
                nlohmann::json attrs = {{"read_bytes_per_s", read},
                                        {"write_bytes_per_s", 5e9},
                                        {"random_read_iops", 1e6},
                                        {"unloaded_read_s", 80e-6}};
                store.addDevices(probe, {{"storage-probe", "nvme0n1", attrs.dump()}});
                store.finishSession(probe, info.startNs + kSecond);
            }
        }
        const auto id = writeSession(
            db, kStart, "node-1",
            {{{"block/nvme0n1/read_bytes_per_s", "bytes/s", "rate", "{}"},
              [](int i) { return i < 300 ? 6.3e9 : 60e6; }},
             {{"block/nvme0n1/util_pct", "percent", "gauge", "{}"}, [](int) { return 100.0; }},
             constant("gpu/0/busy_pct", "percent", 25),
             constant("engine/e/ttft_p50_s", "s", 5),
             constant("engine/e/requests_running", "1", 4),
             {{"engine/e/requests_waiting", "1", "gauge", "{}"},
              [](int i) { return i < 300 ? 3.0 : 0.0; }}});
        Store store(db, Store::Mode::ReadOnly);
        const auto c = SessionAnalysis::ceilings(store, id).at("nvme0n1");
        QVERIFY(c.probed);
        QCOMPARE(*c.bytesPerS, 7e9);
        QCOMPARE(*c.iops, 1e6);
        QCOMPARE(*c.unloadedAwaitS, 80e-6);
        const auto r = SessionAnalysis::analyze(store, id, 10 * kSecond);
        QCOMPARE(r.windows[0].verdict.cls, Class::StorageBound);
        QVERIFY2(contains(r.windows[0].verdict.evidence, "= 90 % of its 7.0 GB/s ceiling (probed)"),
                 r.windows[0].verdict.evidence.c_str());
        // The QD 1 stream at 100 % util, far below the probed ceiling, is not storage-bound.
        QCOMPARE(r.windows[5].verdict.cls, Class::Idle);
        QCOMPARE(r.windows[5].verdict.rule, std::string("client-bound"));
    }

    // The engine histograms' per-interval sums and counts (one request per 100 ms scrape: TTFT
    // 0.4 s = queue 0.1 s + prefill 0.28 s, KV retrieve 0.2 s of it) add up per window and over
    // the session. LMCache appears only after 15 s: absent before, not zero.
    void ttftBreakdownFromHistogramSums() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("t.db").toStdString();
        auto from10s = [](double v) {
            return [v](int i) { return i >= 150 ? std::optional<double>(v) : std::nullopt; };
        };
        const auto id =
            writeSession(db, kStart, "",
                         {constant("engine/e/ttft_sum_s", "s", 0.4),
                          constant("engine/e/ttft_count", "1", 1),
                          constant("engine/e/queue_time_sum_s", "s", 0.1),
                          constant("engine/e/queue_time_count", "1", 1),
                          constant("engine/e/prefill_time_sum_s", "s", 0.28),
                          constant("engine/e/prefill_time_count", "1", 1),
                          {{"engine/e/lmcache_retrieve_sum_s", "s", "gauge", "{}"}, from10s(0.2)},
                          {{"engine/e/lmcache_retrieve_count", "1", "gauge", "{}"}, from10s(1)}});
        Store store(db, Store::Mode::ReadOnly);
        const auto r = SessionAnalysis::analyze(store, id, 10 * kSecond);
        QCOMPARE(r.windows.size(), std::size_t(6));
        auto near = [](std::optional<double> a, double b) { return a && std::abs(*a - b) < 1e-9; };
        const auto& first = r.windows[0].ttft;
        // A scrape on a window's edge lands in one of the two windows, never in both.
        QVERIFY(first.requests() && std::abs(*first.requests() - 100) <= 1);
        QVERIFY(near(first.meanTtftS(), 0.4));
        QVERIFY(near(first.meanQueueS(), 0.1));
        QVERIFY(near(first.meanPrefillS(), 0.28));
        QVERIFY(near(first.otherS(), 0.02));
        QVERIFY(!first.storageShare());
        QVERIFY2(contains(first.text(), "absent: storage wait"), first.text().c_str());
        const auto& later = r.windows[3].ttft;
        QVERIFY(near(later.retrievePerRequestS(), 0.2));
        QVERIFY(near(later.storageShare(), 0.5));
        QVERIFY2(contains(later.text(), "mean TTFT 400.0 ms over 10") &&
                     contains(later.text(), " requests = queue 100.0 ms + storage wait 200.0 ms "
                                            "(50 %) + prefill compute 80.0 ms + residual 20.0 "
                                            "ms; storage wait: KV retrieve 200.0 ms (in "
                                            "prefill)"),
                 later.text().c_str());
        QVERIFY(near(r.ttft.requests(), 600));
        QVERIFY(near(r.ttft.storageShare(), (450 * 0.2) / (600 * 0.4)));
    }

    // Each part's p50 and p99 over a window or the session come from its buckets' stored
    // interval increases, summed: one request per 100 ms scrape, alternately 0.1 s (bucket
    // 0.25) and 0.9 s (bucket 1). Over the session, p50 is the top of the fast bucket and p99
    // interpolates in the slow one. The queue's buckets were stored only from 30 s on: its
    // windows from then have quantiles, the session's queue has none (the buckets do not hold
    // every observation).
    void eachPartsQuantilesFromItsBuckets() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("t.db").toStdString();
        auto alternating = [](double even, double odd) {
            return [=](int i) { return std::optional<double>(i % 2 ? odd : even); };
        };
        auto fromHalf = [](double v) {
            return [v](int i) { return i >= 300 ? std::optional<double>(v) : std::nullopt; };
        };
        auto series = [](const char* path, std::function<std::optional<double>(int)> f) {
            return Metric{{path, "1", "gauge", "{}"}, std::move(f)};
        };
        const auto id = writeSession(db, kStart, "",
                                     {series("engine/e/ttft_sum_s", alternating(0.1, 0.9)),
                                      constant("engine/e/ttft_count", "1", 1),
                                      series("engine/e/ttft_bucket{le=0.25}", alternating(1, 0)),
                                      constant("engine/e/ttft_bucket{le=1}", "1", 1),
                                      constant("engine/e/ttft_bucket{le=+Inf}", "1", 1),
                                      constant("engine/e/queue_time_sum_s", "s", 0.05),
                                      constant("engine/e/queue_time_count", "1", 1),
                                      series("engine/e/queue_time_bucket{le=0.1}", fromHalf(1)),
                                      series("engine/e/queue_time_bucket{le=+Inf}", fromHalf(1))});
        Store store(db, Store::Mode::ReadOnly);
        const auto r = SessionAnalysis::analyze(store, id, 10 * kSecond);
        QCOMPARE(r.windows.size(), std::size_t(6));
        QCOMPARE(*r.ttft.ttft->quantile(0.5), 0.25);
        // Rank 594 of 600, 300 of them at or under 0.25 s: 0.25 + 0.75 * 294 / 300.
        QVERIFY(std::abs(*r.ttft.ttft->quantile(0.99) - 0.985) < 1e-9);
        const auto& window = r.windows[2].ttft;
        QVERIFY(window.ttft->quantile(0.5) && std::abs(*window.ttft->quantile(0.5) - 0.25) < 0.01);
        QVERIFY(!r.windows[1].ttft.queue->quantile(0.5));
        QVERIFY(r.windows[4].ttft.queue->quantile(0.5));
        QVERIFY(!r.ttft.queue->quantile(0.5));
        QVERIFY2(contains(r.ttft.quantileText(), "p50 / p99: TTFT <= 250.0 ms / 985.0 ms"),
                 r.ttft.quantileText().c_str());
        QVERIFY2(!contains(r.ttft.quantileText(), "queue"), r.ttft.quantileText().c_str());
    }

    // An NVMe-oF namespace probed as nvme3n1 is nvme5n1 after a reconnect: its subsystem NQN
    // and namespace id say it is the same array, so the probe applies. The old name now belongs
    // to another array (another NQN): the probe of nvme3n1 does not apply to it.
    void probeFollowsTheNvmeIdentityNotTheName() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("nqn.db").toStdString();
        const std::string array = "nqn.2014-08.org.example:fx100-array";
        {
            Store store(db, Store::Mode::ReadWrite);
            SessionInfo info;
            info.host = "node-1";
            info.startNs = kStart - 1000 * kSecond;
            const auto probe = store.createSession(info);
            const nlohmann::json attrs = {{"read_bytes_per_s", 10e9}, {"write_bytes_per_s", 8e9},
                                          {"random_read_iops", 2e6},  {"unloaded_read_s", 90e-6},
                                          {"subsysnqn", array},       {"nsid", "1"},
                                          {"transport", "rdma"}};
            store.addDevices(probe, {{"storage-probe", "nvme3n1", attrs.dump()}});
            store.finishSession(probe, info.startNs + kSecond);
        }
        // An earlier session read 1 GB/s from the other array's namespace under the old name.
        writeSession(db, kStart - 500 * kSecond, "node-1",
                     {constant("block/nvme3n1/read_bytes_per_s", "bytes/s", 1e9)}, 100);
        const auto id = writeSession(db, kStart, "node-1",
                                     {constant("block/nvme5n1/read_bytes_per_s", "bytes/s", 9e9),
                                      constant("block/nvme3n1/read_bytes_per_s", "bytes/s", 3e9)},
                                     100);
        {
            Store store(db, Store::Mode::ReadWrite);
            store.addDevices(
                id,
                {{"block", "nvme5n1", nlohmann::json{{"subsysnqn", array}, {"nsid", "1"}}.dump()},
                 {"block", "nvme3n1",
                  nlohmann::json{{"subsysnqn", "nqn.2014-08.org.example:other"}, {"nsid", "1"}}
                      .dump()}});
        }
        Store store(db, Store::Mode::ReadOnly);
        const auto c = SessionAnalysis::ceilings(store, id);
        QVERIFY(c.at("nvme5n1").probed);
        QCOMPARE(*c.at("nvme5n1").bytesPerS, 10e9);
        QCOMPARE(*c.at("nvme5n1").iops, 2e6);
        // History only (another array under the old name), and only other sessions': this
        // session's own 3 GB/s is no ceiling of itself.
        QVERIFY(!c.at("nvme3n1").probed);
        QCOMPARE(*c.at("nvme3n1").bytesPerS, 1e9);
    }

    // Three storage-bound windows print as one span; its evidence is the window nearest its
    // ceiling, named as such, not the first window's standing for the whole span.
    void aMergedSpanShowsItsHottestWindowsEvidence() {
        SessionAnalysis::Result result;
        result.windowNs = 10'000'000'000LL;
        for (int i = 0; i < 3; ++i) {
            SessionAnalysis::Window w;
            w.t0Ns = i * result.windowNs;
            BottleneckClassifier::Storage disk;
            disk.name = "nvme0n1";
            disk.bytesPerS = std::vector<double>{1.7e9, 1.9e9, 1.8e9}[i];
            disk.bandwidthCeiling = 2e9;
            w.input.storage = {disk};
            w.verdict = {BottleneckClassifier::Class::StorageBound, "storage-bandwidth",
                         "window " + std::to_string(i)};
            result.windows.push_back(w);
        }
        const std::string text = AnalysisText::of(result);
        QVERIFY2(text.find("storage-bound      [storage-bandwidth] window 1\n") !=
                     std::string::npos,
                 text.c_str());
        QVERIFY2(text.find("(evidence of window 10-20 s, the hottest of the span's 3)") !=
                     std::string::npos,
                 text.c_str());
        QVERIFY2(text.find("window 0") == std::string::npos, text.c_str());
        // One window alone needs no note.
        result.windows.resize(1);
        QVERIFY(AnalysisText::of(result).find("evidence of window") == std::string::npos);
    }

    void windowsWithoutDataSayNoData() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("n.db").toStdString();
        const auto id = writeSession(
            db, kStart, "",
            {{{"gpu/0/busy_pct", "percent", "gauge", "{}"}, [](int i) -> std::optional<double> {
                  return i >= 300 ? std::optional<double>(10) : std::nullopt;
              }}});
        Store store(db, Store::Mode::ReadOnly);
        const auto r = SessionAnalysis::analyze(store, id, 10 * kSecond);
        QCOMPARE(r.windows.size(), std::size_t(6));
        QCOMPARE(r.windows[0].verdict.rule, std::string("no-data"));
        QCOMPARE(r.windows[5].verdict.rule, std::string("no-engine-data"));
    }
};

QTEST_GUILESS_MAIN(TestBottleneck)
#include "tst_bottleneck.moc"
