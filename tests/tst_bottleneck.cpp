#include "core/BottleneckClassifier.h"
#include "core/SessionAnalysis.h"
#include "core/Store.h"
#include "core/StoreWriter.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tierscope;
using Class = BottleneckClassifier::Class;

class TestBottleneck : public QObject {
    Q_OBJECT
  private slots:
    void eachClassWithItsEvidence() {
        BottleneckClassifier::Window kv;
        kv.kvUsage = 0.97;
        kv.requestsWaiting = 12;
        kv.gpuBusyPct = 90;
        auto v = BottleneckClassifier::classify(kv);
        QCOMPARE(v.cls, Class::KvCapacityBound);
        QCOMPARE(v.evidence, std::string("KV cache 97 % full, 12 waiting, 0.00 preemptions/s"));

        BottleneckClassifier::Window storage;
        storage.storageShare = 0.95;
        storage.gpuBusyPct = 35;
        storage.ttftS = 9.3;
        v = BottleneckClassifier::classify(storage);
        QCOMPARE(v.cls, Class::StorageBound);
        QCOMPARE(v.evidence,
                 std::string("storage at 95 % of its ceiling, GPU busy 35 %, TTFT 9.30 s"));
        storage.ttftS = 0.2; // storage is busy, but requests are not waiting on it
        QCOMPARE(BottleneckClassifier::classify(storage).cls, Class::Idle);

        BottleneckClassifier::Window gpu;
        gpu.gpuBusyPct = 97;
        gpu.storageShare = 0.9; // busy storage does not matter while GPUs are saturated
        QCOMPARE(BottleneckClassifier::classify(gpu).cls, Class::GpuComputeBound);
        QCOMPARE(BottleneckClassifier::classify(gpu).evidence, std::string("GPU busy 97 %"));

        BottleneckClassifier::Window queue;
        queue.requestsWaiting = 4;
        queue.gpuBusyPct = 70;
        QCOMPARE(BottleneckClassifier::classify(queue).cls, Class::EngineQueueing);

        BottleneckClassifier::Window idle;
        QCOMPARE(BottleneckClassifier::classify(idle).cls, Class::Idle);
        QCOMPARE(BottleneckClassifier::classify(idle).evidence, std::string("no GPU data"));
        QCOMPARE(std::string(BottleneckClassifier::name(Class::Idle)),
                 std::string("idle/client-bound"));
    }

    void thresholdsAreConfigurable() {
        BottleneckClassifier::Window w;
        w.gpuBusyPct = 80;
        QCOMPARE(BottleneckClassifier::classify(w).cls, Class::Idle);
        BottleneckClassifier::Thresholds t;
        t.gpuBusy = 75;
        QCOMPARE(BottleneckClassifier::classify(w, t).cls, Class::GpuComputeBound);
    }

    // 60 s: storage at its ceiling with idle GPUs for 30 s, then busy GPUs.
    void analysesAStoredSession() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("a.db").toStdString();
        constexpr std::int64_t second = 1000000000LL, start = 1'790'000'000LL * second;
        std::int64_t id = 0;
        {
            Store store(db, Store::Mode::ReadWrite);
            SessionInfo info;
            info.startNs = start;
            id = store.createSession(info);
            store.finishSession(id, start + 60 * second);
        }
        StoreWriter writer(db, {});
        const int bw =
            writer.defineMetric(id, {"block/total/read_bytes_per_s", "bytes/s", "rate", "{}"});
        const int gpu = writer.defineMetric(id, {"gpu/0/busy_pct", "percent", "gauge", "{}"});
        for (int i = 0; i < 600; ++i) {
            const std::int64_t t = start + i * second / 10;
            writer.append(bw, t, i < 300 ? 5e9 : 1e9);
            writer.append(gpu, t, i < 300 ? 20 : 95);
        }
        writer.stop();
        Store store(db, Store::Mode::ReadOnly);
        const auto r = SessionAnalysis::analyze(store, id, 10 * second);
        QCOMPARE(r.windows.size(), std::size_t(6));
        QCOMPARE(r.windows[0].verdict.cls, Class::StorageBound);
        QVERIFY(r.windows[0].verdict.evidence.find("storage at 100 %") != std::string::npos);
        QCOMPARE(r.windows[5].verdict.cls, Class::GpuComputeBound);
        QCOMPARE(r.shares.at(Class::StorageBound), 0.5);
        QCOMPARE(r.shares.at(Class::GpuComputeBound), 0.5);
    }
};

QTEST_APPLESS_MAIN(TestBottleneck)
#include "tst_bottleneck.moc"
