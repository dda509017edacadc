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

    // A few hit tokens are not a restore (a recompute arm once passed on 0.8 %): below the
    // plan's min_hit_share of the tokens looked up, the check fails and says the share.
    void cacheEvidenceWeighsTheHitShare() {
        using Counters = std::map<std::string, double>;
        const Counters few = {{"prefix_cache_hits", 48}, {"prefix_cache_queries", 6000}};
        const auto low = ValidityChecks::cacheEvidence(few, std::nullopt, std::nullopt);
        QCOMPARE(status(low), std::string("fail"));
        QCOMPARE(low["hit_share"].get<double>(), 0.008);
        QVERIFY(low["detail"].get<std::string>().find("0.8 %") != std::string::npos);
        ValidityChecks::CacheExpectation lenient;
        lenient.minHitShare = 0.005;
        QCOMPARE(status(ValidityChecks::cacheEvidence(few, std::nullopt, std::nullopt, lenient)),
                 std::string("pass"));
        const Counters most = {{"lmcache_hit_tokens", 3584}, {"lmcache_requested_tokens", 4000}};
        const auto good = ValidityChecks::cacheEvidence(most, std::nullopt, std::nullopt);
        QCOMPARE(status(good), std::string("pass"));
        QCOMPARE(good["hit_share"].get<double>(), 0.896);
        QCOMPARE(good["min_hit_share"].get<double>(), 0.5);
    }

    // A declared recompute baseline: its evidence is that no KV tier served a token. The GPU's
    // own prefix cache (a second question on a document) is not a tier and does not fail it.
    void aRecomputeBaselinePassesOnNoTierHits() {
        using Counters = std::map<std::string, double>;
        ValidityChecks::CacheExpectation recompute;
        recompute.recompute = true;
        const Counters off = {{"prefix_cache_hits", 0}, {"prefix_cache_queries", 0}};
        const auto pass = ValidityChecks::cacheEvidence(off, 0, 128 * kMiB, recompute);
        QCOMPARE(status(pass), std::string("pass"));
        QCOMPARE(pass["expected"].get<std::string>(), std::string("recompute"));
        // The same counters without the declaration: no hit, so the restore failed.
        QCOMPARE(status(ValidityChecks::cacheEvidence(off, 0, 128 * kMiB)), std::string("fail"));
        const Counters gpu = {{"prefix_cache_hits", 2048}, {"prefix_cache_queries", 4096}};
        QCOMPARE(status(ValidityChecks::cacheEvidence(gpu, 0, 128 * kMiB, recompute)),
                 std::string("pass"));
        for (const auto& [role, v] : {std::pair{"lmcache_hit_tokens", 256.0},
                                      {"external_prefix_cache_hits", 16.0},
                                      {"kv_tier_read_bytes", 4096.0},
                                      {"lmcache_remote_read_bytes", 1.0}}) {
            Counters tier = gpu;
            tier[role] = v;
            const auto c = ValidityChecks::cacheEvidence(tier, 0, 128 * kMiB, recompute);
            QVERIFY2(status(c) == "fail", role);
            QVERIFY(c["detail"].get<std::string>().find("it restored") != std::string::npos);
        }
        QCOMPARE(status(ValidityChecks::cacheEvidence(std::nullopt, 0, 1, recompute)),
                 std::string("warn"));
    }

    // The engine's own reads are the evidence where known: a drop_caches makes every process
    // on the machine read again, so the device's bytes were once 44,518 % of the KV.
    void storageEvidenceJudgesTheEnginesOwnReads() {
        ValidityChecks::Reads reads;
        reads.device = "vda";
        reads.deviceBytes = 7000 * kMiB;
        reads.engineBytes = 14 * kMiB;
        reads.engineProcesses = 2;
        const ValidityChecks::CacheExpectation restore;
        const auto c = ValidityChecks::storageEvidence(reads, 16 * kMiB, restore);
        QCOMPARE(status(c), std::string("pass"));
        QCOMPARE(c["measured_by"].get<std::string>(), std::string("engine"));
        QCOMPARE(c["share"].get<double>(), 14.0 / 16.0);
        QCOMPARE(c["device_read_bytes"].get<double>(), 7000 * kMiB);
        const std::string detail = c["detail"].get<std::string>();
        QVERIFY(detail.find("the engine's 2 processes read") != std::string::npos);
        QVERIFY(detail.find("machine-wide, vda read") != std::string::npos);
        // The device read plenty, the engine nothing: the KV did not come from storage.
        reads.engineBytes = 0;
        QCOMPARE(status(ValidityChecks::storageEvidence(reads, 16 * kMiB, restore)),
                 std::string("fail"));
        // Without the engine's figure, the device's, labelled as the whole machine's.
        reads.engineBytes.reset();
        const auto device = ValidityChecks::storageEvidence(reads, 16 * kMiB, restore);
        QCOMPARE(device["measured_by"].get<std::string>(), std::string("device"));
        QVERIFY(device["detail"].get<std::string>().find("machine-wide: every process") !=
                std::string::npos);
        // A recompute baseline passes on reading next to nothing, and says more is odd.
        ValidityChecks::CacheExpectation recompute;
        recompute.recompute = true;
        reads.engineBytes = 0.5 * kMiB;
        QCOMPARE(status(ValidityChecks::storageEvidence(reads, 16 * kMiB, recompute)),
                 std::string("pass"));
        reads.engineBytes = 12 * kMiB;
        QCOMPARE(status(ValidityChecks::storageEvidence(reads, 16 * kMiB, recompute)),
                 std::string("warn"));
        // A recompute baseline needs no path: its engine's reads alone say it read no KV.
        ValidityChecks::Reads noPath;
        noPath.deviceWhy = "the arm has no path";
        noPath.engineBytes = 0;
        noPath.engineProcesses = 1;
        const auto baseline = ValidityChecks::storageEvidence(noPath, 16 * kMiB, recompute);
        QCOMPARE(status(baseline), std::string("pass"));
        QVERIFY(!baseline.contains("device"));
        // Not on a block device: not checked, whatever the engine read.
        ValidityChecks::Reads tmpfs;
        tmpfs.deviceWhy = "/dev/shm is tmpfs";
        tmpfs.engineBytes = 0;
        const auto t = ValidityChecks::storageEvidence(tmpfs, 16 * kMiB, restore);
        QCOMPARE(status(t), std::string("warn"));
        QCOMPARE(t["engine_read_bytes"].get<double>(), 0.0);
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
