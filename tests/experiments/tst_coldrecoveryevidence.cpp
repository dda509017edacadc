#include "experiments/ColdRecoveryEvidence.h"

#include <QtTest>

using namespace tierscope;

// The evidence of a cold-recovery measured phase, shared by the runner and `load`.
class TestColdRecoveryEvidence : public QObject {
    Q_OBJECT
  private:
    static EvidenceSnapshot snapshot(std::uint64_t pageCache, std::uint64_t deviceRead) {
        EvidenceSnapshot s;
        s.device = "vda";
        s.deviceReadBytes = deviceRead;
        s.pageCacheBytes = pageCache;
        return s;
    }

  private slots:
    // The populate phase's KV writes fill the page cache; the measured phase then reads from
    // RAM with no growth of its own. Growth counts from before the populate phase, so the
    // check still sees it.
    void pageCacheGrowthCountsFromBeforeThePopulatePhase() {
        const auto atStart = snapshot(1'000'000'000, 0);
        const auto before = snapshot(3'000'000'000, 0);
        const auto after = snapshot(3'010'000'000, 1'000'000);
        const ColdRecoveryEvidence evidence(atStart, before, after, ImpliedKv{2e9});
        const auto json = evidence.toJson();
        QCOMPARE(json["page_cache_growth_bytes"].get<double>(), 2.01e9);
        QCOMPARE(json["device_read_bytes"].get<double>(), 1e6);
        QCOMPARE(json["device"].get<std::string>(), std::string("vda"));
        QVERIFY(json["engine_counters"].is_null());
        QVERIFY(evidence.hasDevice());
        QVERIFY(!evidence.hasCounters());
        QCOMPARE(evidence.pageCacheCheck()["status"].get<std::string>(), std::string("fail"));
        QCOMPARE(evidence.storageCheck()["status"].get<std::string>(), std::string("fail"));
        // Measured from the measured phase alone, the same run would have passed.
        const ColdRecoveryEvidence late(before, before, after, ImpliedKv{2e9});
        QCOMPARE(late.pageCacheCheck()["status"].get<std::string>(), std::string("pass"));
    }

    void absentValuesStayAbsent() {
        EvidenceSnapshot none;
        none.deviceWhy = "the arm has no path";
        const ColdRecoveryEvidence evidence(none, none, none, std::nullopt);
        const auto json = evidence.toJson();
        for (const char* key : {"device", "device_read_bytes", "page_cache_growth_bytes",
                                "implied_kv_bytes", "engine_counters"})
            QVERIFY2(json[key].is_null(), key);
        QVERIFY(!evidence.hasDevice());
        QVERIFY(evidence.storageCheck()["detail"].get<std::string>().find("the arm has no path") !=
                std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestColdRecoveryEvidence)
#include "tst_coldrecoveryevidence.moc"
