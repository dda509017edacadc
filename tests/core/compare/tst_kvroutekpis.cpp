#include "core/analysis/RunTimeline.h"
#include "core/compare/RunKpis.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000LL;
constexpr std::int64_t kStart = 1'700'000'000LL * kSecond;

} // namespace

// A run's KV route from its own engine's recorded series: where its prompt tokens came from,
// what its offload tiers read per second of the run, how many requests waited for their KV.
class TestKvRouteKpis : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_db;
    std::int64_t m_run = 0;

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath("w.db").toStdString();
        std::int64_t session = 0;
        {
            Store store(m_db, Store::Mode::ReadWrite);
            SessionInfo s;
            s.startNs = kStart;
            session = store.createSession(s);
            m_run = store.createRun(session, "load", "{}", kStart, "e", "array");
            store.finishRun(m_run, kStart + 10 * kSecond, "completed",
                            R"({"engine_endpoints": ["gpu:8000"]})");
            store.finishSession(session, kStart + 20 * kSecond);
        }
        StoreWriter writer(m_db, {});
        auto metric = [&](const std::string& endpoint, const std::string& what) {
            return writer.defineMetric(session,
                                       {"engine/" + endpoint + "/" + what, "1", "gauge", "{}"});
        };
        const auto external = metric("gpu:8000", "prompt_tokens{source=external_kv_transfer}");
        const auto computed = metric("gpu:8000", "prompt_tokens{source=local_compute}");
        const auto tier = metric("gpu:8000", "kv_tier_read_bytes{tier=1:fs}");
        const auto deferred = metric("gpu:8000", "requests_waiting{reason=deferred}");
        // The other arm's engine, recorded in the same session: not this run's.
        const auto other = metric("cpu:8000", "prompt_tokens{source=local_compute}");
        writer.append(external, kStart + 2 * kSecond, 300);
        writer.append(external, kStart + 4 * kSecond, 100);
        writer.append(computed, kStart + 2 * kSecond, 100);
        writer.append(other, kStart + 2 * kSecond, 1e6);
        writer.append(tier, kStart + 3 * kSecond, 5e9);
        writer.append(tier, kStart + 6 * kSecond, 5e9);
        writer.append(tier, kStart + 15 * kSecond, 7e9); // after the run
        writer.append(deferred, kStart + 3 * kSecond, 2);
        writer.append(deferred, kStart + 6 * kSecond, 4);
        writer.stop();
    }

    void theRunsKvRouteIsAKpiOfIt() {
        Store store(m_db, Store::Mode::ReadOnly);
        const auto run = *store.run(m_run);
        const auto timeline = RunTimeline::read(store, run);
        QCOMPARE(timeline.promptTokensBySource.at("external_kv_transfer"), 400.0);
        QCOMPARE(timeline.promptTokensBySource.size(), std::size_t(2));
        const auto k = RunKpis::of(run, {}, &timeline);
        QCOMPARE(k.at("kv_transfer_token_share"), 80.0);
        QCOMPARE(k.at("prefix_cache_token_share"), 0.0); // served sources, none from the cache
        QCOMPARE(k.at("kv_tier_read_gb_per_s"), 1.0);    // 10 GB in a 10 s run
        QCOMPARE(k.at("requests_deferred_mean"), 3.0);
        QVERIFY(!k.count("kv_offload_load_gb_per_s")); // not served: absent, not zero
        for (const char* name : {"kv_transfer_token_share", "prefix_cache_token_share",
                                 "kv_tier_read_gb_per_s", "requests_deferred_mean"})
            QVERIFY2(RunKpis::find(name), name);
    }
};

QTEST_MAIN(TestKvRouteKpis)
#include "tst_kvroutekpis.moc"
