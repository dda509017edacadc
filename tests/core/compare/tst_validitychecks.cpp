#include "core/compare/ValidityChecks.h"

#include <QtTest>

using namespace tierscope;

// The checks' verdicts and numbers, from the numbers a run's snapshots give.
class TestValidityChecks : public QObject {
    Q_OBJECT
  private:
    static std::string status(const nlohmann::json& c) { return c.value("status", ""); }
    static constexpr double kMiB = 1024 * 1024;

  private slots:
    void storageEvidenceWeighsDeviceReadsAgainstTheKv() {
        QCOMPARE(status(ValidityChecks::storageEvidence("vda", "", 100 * kMiB, 128 * kMiB)),
                 std::string("pass"));
        QCOMPARE(status(ValidityChecks::storageEvidence("vda", "", 30 * kMiB, 128 * kMiB)),
                 std::string("warn"));
        const auto low = ValidityChecks::storageEvidence("vda", "", 1 * kMiB, 128 * kMiB);
        QCOMPARE(status(low), std::string("fail"));
        QCOMPARE(low["device_read_bytes"].get<double>(), 1 * kMiB);
        QCOMPARE(low["implied_kv_bytes"].get<double>(), 128 * kMiB);
        QVERIFY(low["detail"].get<std::string>().find("did not come from this storage") !=
                std::string::npos);
        // No block device (tmpfs) or no KV size: not checked, said so, never a pass.
        const auto tmpfs = ValidityChecks::storageEvidence(std::nullopt, "/dev/shm is tmpfs",
                                                           std::nullopt, 128 * kMiB);
        QCOMPARE(status(tmpfs), std::string("warn"));
        QVERIFY(tmpfs["detail"].get<std::string>().find("/dev/shm is tmpfs") != std::string::npos);
        QCOMPARE(status(ValidityChecks::storageEvidence("vda", "", 5 * kMiB, std::nullopt)),
                 std::string("warn"));
    }

    void cacheEvidenceFlagsRecomputeAndMissingHits() {
        using Counters = std::map<std::string, double>;
        const Counters good = {{"lmcache_hit_tokens", 4096},
                               {"lmcache_requested_tokens", 4200},
                               {"lmcache_retrieve_requests", 8},
                               {"lmcache_remote_read_bytes", 256 * kMiB}};
        QCOMPARE(status(ValidityChecks::cacheEvidence(good, 256 * kMiB, 128 * kMiB)),
                 std::string("pass"));
        auto recompute = good;
        recompute["kv_recomputed_tokens"] = 3072;
        const auto r = ValidityChecks::cacheEvidence(recompute, 256 * kMiB, 128 * kMiB);
        QCOMPARE(status(r), std::string("fail"));
        QCOMPARE(r["recompute_fallback"].get<bool>(), true);
        QCOMPARE(r["recomputed_tokens"].get<double>(), 3072.0);
        auto none = good;
        none["lmcache_hit_tokens"] = 0;
        QCOMPARE(status(ValidityChecks::cacheEvidence(none, 256 * kMiB, 128 * kMiB)),
                 std::string("fail"));
        // Hits, but neither the device nor LMCache read anything: from memory, or recomputed.
        auto memory = good;
        memory["lmcache_remote_read_bytes"] = 0;
        QCOMPARE(status(ValidityChecks::cacheEvidence(memory, 0, 128 * kMiB)), std::string("warn"));
        // vLLM's own prefix-cache counters when there is no LMCache.
        const Counters vllm = {{"prefix_cache_hits", 512}, {"prefix_cache_queries", 600}};
        QCOMPARE(ValidityChecks::cacheEvidence(vllm, std::nullopt, std::nullopt)["hit_tokens"]
                     .get<double>(),
                 512.0);
        QCOMPARE(status(ValidityChecks::cacheEvidence(Counters{}, 0, 1)), std::string("warn"));
        QCOMPARE(status(ValidityChecks::cacheEvidence(std::nullopt, 0, 1)), std::string("warn"));
    }

    void pageCacheBlamesRamOnlyWhenTheStoreReadButTheDeviceDidNot() {
        // The store read its files, the device did not, the page cache held them.
        QCOMPARE(status(ValidityChecks::pageCache(130 * kMiB, 0, 128 * kMiB, 128 * kMiB)),
                 std::string("fail"));
        QCOMPARE(status(ValidityChecks::pageCache(130 * kMiB, 0, 128 * kMiB, std::nullopt)),
                 std::string("fail"));
        // The store read nothing: not the page cache (a CPU tier; storage_evidence says it).
        QCOMPARE(status(ValidityChecks::pageCache(130 * kMiB, 0, 128 * kMiB, 0.0)),
                 std::string("pass"));
        QCOMPARE(status(ValidityChecks::pageCache(130 * kMiB, 120 * kMiB, 128 * kMiB, 128 * kMiB)),
                 std::string("pass"));
        QCOMPARE(status(ValidityChecks::pageCache(std::nullopt, 0, 128 * kMiB, 0.0)),
                 std::string("warn"));
    }

    void errorsAgainstThePlansLimit() {
        QCOMPARE(status(ValidityChecks::errors(0, 100, std::nullopt)), std::string("pass"));
        QCOMPARE(status(ValidityChecks::errors(1, 100, std::nullopt)), std::string("warn"));
        QCOMPARE(status(ValidityChecks::errors(1, 100, 0.01)), std::string("pass"));
        const auto over = ValidityChecks::errors(2, 100, 0.01);
        QCOMPARE(status(over), std::string("fail"));
        QCOMPARE(over["failure_rate"].get<double>(), 0.02);
        QCOMPARE(status(ValidityChecks::errors(0, 0, 0.01)), std::string("fail"));
    }
};

QTEST_GUILESS_MAIN(TestValidityChecks)
#include "tst_validitychecks.moc"
