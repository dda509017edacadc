#include "TestSupport.h"
#include "collectors/engine/EngineMetricsMapper.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

using namespace tierscope;

namespace {

constexpr std::int64_t kTenSeconds = 10'000'000'000LL;

std::string tiers(const std::string& name) {
    return test::fixture(QString::fromStdString("engine-tiers/" + name));
}

// Two scrapes 10 s apart through the shipped catalog: engine/e/<what> -> value.
std::map<std::string, double> interval(const std::string& t0, const std::string& t1,
                                       EngineMetricsMapper* keep = nullptr) {
    EngineMetricsMapper own("e", false, EngineMetricCatalog::shipped());
    EngineMetricsMapper& mapper = keep ? *keep : own;
    mapper.update(PrometheusTextParser::parse(t0), kTenSeconds);
    std::map<std::string, double> out;
    for (const auto& r : mapper.update(PrometheusTextParser::parse(t1), 2 * kTenSeconds))
        out[r.metric.path.substr(std::string("engine/e/").size())] = r.value;
    return out;
}

std::string without(const std::string& text, const std::string& family) {
    std::string out;
    std::size_t at = 0;
    while (at < text.size()) {
        const auto end = std::min(text.find('\n', at), text.size());
        const std::string line = text.substr(at, end - at);
        if (line.find(family) == std::string::npos)
            out += line + "\n";
        at = end + 1;
    }
    return out;
}

} // namespace

// vLLM's KV offload tiers and prompt-token sources, read through the engine metric catalog from
// expositions in vLLM's own format (tests/fixtures/engine-tiers/README.md: the values injected
// between the two scrapes).
class TestEngineTierMetrics : public QObject {
    Q_OBJECT
  private slots:
    void promptTokensBySourceAreSharesOfTheInterval() {
        const auto r = interval(tiers("vllm-main-0078e9d-tiering-t0.txt"),
                                tiers("vllm-main-0078e9d-tiering-t1.txt"));
        const double total = 8192 + 4096 + 16384;
        QCOMPARE(r.at("prompt_tokens_share{source=local_compute}"), 8192 / total);
        QCOMPARE(r.at("prompt_tokens_share{source=local_cache_hit}"), 4096 / total);
        QCOMPARE(r.at("prompt_tokens_share{source=external_kv_transfer}"), 16384 / total);
        QCOMPARE(r.at("prompt_tokens_per_s{source=external_kv_transfer}"), 1638.4);
        QCOMPARE(r.at("prompt_tokens_per_s"), total / 10);
        QCOMPARE(r.at("requests_waiting{reason=deferred}"), 3.0);
        QCOMPARE(r.at("requests_waiting{reason=capacity}"), 1.0);
        QCOMPARE(r.at("requests_waiting"), 4.0);
        QCOMPARE(r.at("ttft_count"), 8.0);
        QCOMPARE(r.at("ttft_mean_s"), 0.5);
    }

    // Bytes over tierscope's own interval (wall clock), per tier; the renamed pair once.
    void tierBytesPerSecondAndTheRenamedFamilyReadOnce() {
        const std::string t0 = tiers("vllm-main-0078e9d-tiering-t0.txt");
        const std::string t1 = tiers("vllm-main-0078e9d-tiering-t1.txt");
        const auto r = interval(t0, t1);
        // 2 GiB moved, served under the new name and the deprecated one: 2 GiB, not 4.
        QCOMPARE(r.at("kv_offload_load_bytes_per_s"), 2147483648.0 / 10);
        QCOMPARE(r.at("kv_offload_store_bytes_per_s"), 1073741824.0 / 10);
        QCOMPARE(r.at("kv_tier_read_bytes_per_s{tier=1:fs}"), 1.5e9 / 10);
        QCOMPARE(r.at("kv_tier_write_bytes_per_s{tier=1:fs}"), 5e8 / 10);
        QCOMPARE(r.at("kv_tier_failures{tier=1:fs}"), 1.0);
        QCOMPARE(r.at("kv_lookup_wait_count"), 20.0);
        QCOMPARE(r.at("kv_lookup_wait_mean_s"), 0.05);
        // An engine that serves only the deprecated family: the same bytes through its label.
        const std::string newName = "kv_offload_load_bytes";
        const auto old = interval(without(without(t0, newName), "kv_offload_store_bytes"),
                                  without(without(t1, newName), "kv_offload_store_bytes"));
        QCOMPARE(old.at("kv_offload_load_bytes_per_s"), 2147483648.0 / 10);
        QCOMPARE(old.at("kv_offload_store_bytes_per_s"), 1073741824.0 / 10);
    }

    // Dynamo KVBM (README: onboard h2d +768, d2d +256, o2d +32 blocks, object bytes +64 MiB;
    // offload d2h +1,024, h2d +512 blocks, object bytes +128 MiB): without a block size only
    // the object tier's own bytes are bytes, and the blocks are recorded as blocks; with the
    // block size the user gives (2 MiB), the disk tier's reads and the host tier's loads
    // become bytes too, each counted once (the object tier's blocks add nothing).
    void kvbmBlocksBecomeBytesOnlyWithTheUsersBlockSize() {
        const std::string t0 = tiers("dynamo-kvbm-main-t0.txt");
        const std::string t1 = tiers("dynamo-kvbm-main-t1.txt");
        constexpr double kMiB = 1024.0 * 1024.0;
        const auto plain = interval(t0, t1);
        QCOMPARE(plain.at("kv_tier_read_bytes{tier=object}"), 64 * kMiB);
        QCOMPARE(plain.at("kv_tier_write_bytes{tier=object}"), 128 * kMiB);
        QCOMPARE(plain.at("kvbm_onboard_disk_blocks"), 256.0);
        QCOMPARE(plain.at("kvbm_onboard_host_blocks"), 768.0);
        QVERIFY(!plain.count("kv_tier_read_bytes{tier=disk}")); // no block size: no bytes
        QVERIFY(!plain.count("kv_offload_load_bytes"));

        std::ifstream in(std::string(TIERSCOPE_FIXTURES) + "/../../resources/engine-metrics.toml");
        std::stringstream text;
        text << in.rdbuf();
        const std::string withSize =
            std::regex_replace(text.str(), std::regex("prefixes = \\[\"kvbm_\"\\]"),
                               "prefixes = [\"kvbm_\"]\nblock_bytes = 2097152");
        QVERIFY(withSize != text.str());
        const auto catalog = EngineMetricCatalog::parse(withSize, "user.toml");
        EngineMetricsMapper mapper("e", false, catalog);
        mapper.update(PrometheusTextParser::parse(t0), kTenSeconds);
        std::map<std::string, double> r;
        for (const auto& reading : mapper.update(PrometheusTextParser::parse(t1), 2 * kTenSeconds))
            r[reading.metric.path.substr(std::string("engine/e/").size())] = reading.value;
        QCOMPARE(r.at("kv_tier_read_bytes{tier=disk}"), 256 * 2 * kMiB);
        QCOMPARE(r.at("kv_tier_read_bytes{tier=object}"), 64 * kMiB);
        QCOMPARE(r.at("kv_tier_read_bytes_per_s{tier=disk}"), 256 * 2 * kMiB / 10);
        QCOMPARE(r.at("kv_offload_load_bytes"), 768 * 2 * kMiB);
        QCOMPARE(r.at("kv_offload_store_bytes_per_s"), 1024 * 2 * kMiB / 10);
        QCOMPARE(r.at("kv_tier_write_bytes{tier=disk}"), 512 * 2 * kMiB);
        // A block size that is no size is refused with its line.
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            EngineMetricCatalog::parse(std::regex_replace(withSize, std::regex("2097152"), "0"),
                                       "user.toml"));
    }

    // A vLLM without prompt_tokens_by_source: its finished requests' prefill-computed tokens
    // are the computed ones, the rest of its prompt tokens cached (from where, unsaid).
    void olderVllmSourcesFromPrefillComputedTokens() {
        auto scrape = [](int prompt, int computedSum, int count) {
            return "# TYPE vllm:prompt_tokens counter\nvllm:prompt_tokens_total " +
                   std::to_string(prompt) +
                   "\n# TYPE vllm:request_prefill_kv_computed_tokens histogram\n"
                   "vllm:request_prefill_kv_computed_tokens_bucket{le=\"+Inf\"} " +
                   std::to_string(count) + "\nvllm:request_prefill_kv_computed_tokens_sum " +
                   std::to_string(computedSum) +
                   "\nvllm:request_prefill_kv_computed_tokens_count " + std::to_string(count) +
                   "\n";
        };
        const auto r = interval(scrape(1000, 300, 2), scrape(1600, 500, 4));
        QCOMPARE(r.at("prompt_tokens{source=local_compute}"), 200.0);
        QCOMPARE(r.at("prompt_tokens{source=cached}"), 400.0);
        // No request finished: no computed tokens to pair with, so no sources (not all cached).
        const auto idle = interval(scrape(1000, 300, 2), scrape(1600, 300, 2));
        QVERIFY(!idle.count("prompt_tokens{source=cached}"));
    }

    // vLLM's NIXL connector (names from NixlPromMetrics, nixl_connector.py): the bytes moved
    // between instances are its bytes histogram's _sum increase, over the interval's seconds;
    // its transfer time is a latency with quantiles, its failures a count.
    void nixlTransfersBetweenInstances() {
        auto scrape = [](double bytes, int transfers, double seconds, int failed) {
            const std::string n = std::to_string(transfers);
            return "# TYPE vllm:nixl_bytes_transferred histogram\n"
                   "vllm:nixl_bytes_transferred_bucket{engine=\"0\",le=\"+Inf\"} " +
                   n + "\nvllm:nixl_bytes_transferred_sum{engine=\"0\"} " + std::to_string(bytes) +
                   "\nvllm:nixl_bytes_transferred_count{engine=\"0\"} " + n +
                   "\n# TYPE vllm:nixl_xfer_time_seconds histogram\n"
                   "vllm:nixl_xfer_time_seconds_bucket{engine=\"0\",le=\"0.1\"} " +
                   n + "\nvllm:nixl_xfer_time_seconds_bucket{engine=\"0\",le=\"+Inf\"} " + n +
                   "\nvllm:nixl_xfer_time_seconds_sum{engine=\"0\"} " + std::to_string(seconds) +
                   "\nvllm:nixl_xfer_time_seconds_count{engine=\"0\"} " + n +
                   "\n# TYPE vllm:nixl_num_failed_transfers counter\n"
                   "vllm:nixl_num_failed_transfers_total{engine=\"0\"} " +
                   std::to_string(failed) + "\n";
        };
        const auto r = interval(scrape(1e9, 10, 0.5, 0), scrape(3e9, 30, 1.5, 2));
        QCOMPARE(r.at("nixl_transfer_bytes"), 2e9);
        QCOMPARE(r.at("nixl_transfer_bytes_per_s"), 2e8); // 10 s between the scrapes
        QCOMPARE(r.at("nixl_transfer_time_count"), 20.0);
        QCOMPARE(r.at("nixl_transfer_time_mean_s"), 0.05);
        QCOMPARE(r.at("nixl_failed_transfers"), 2.0);
        QVERIFY(!r.count("kv_tier_read_bytes{tier=nixl}")); // not a storage tier's reads
    }

    // TensorRT-LLM's prompt tokens by cache tier (README: the per-level series appear only with
    // the first iteration report, so from t0 to t1 the family is absent, never a 12,288-token
    // increase); once both scrapes have them, the tiers are sources like SGLang's.
    void trtllmTokensByCacheTier() {
        const auto first =
            interval(tiers("trtllm-main-050f80d-t0.txt"), tiers("trtllm-main-050f80d-t1.txt"));
        for (const auto& [path, value] : first)
            QVERIFY2(path.rfind("prompt_tokens{source=", 0) != 0, path.c_str());
        auto scrape = [](int prompt, int gpu, int host) {
            const std::string labels = "engine_type=\"trtllm\",model_name=\"m\"";
            return "# TYPE trtllm_prompt_tokens counter\ntrtllm_prompt_tokens_total{" + labels +
                   "} " + std::to_string(prompt) +
                   "\n# TYPE trtllm_prompt_cache_hit_tokens counter\n"
                   "trtllm_prompt_cache_hit_tokens_total{cache_level=\"0\",cache_tier=\"gpu\"," +
                   labels + "} " + std::to_string(gpu) +
                   "\ntrtllm_prompt_cache_hit_tokens_total{cache_level=\"1\",cache_tier=\"host\"," +
                   labels + "} " + std::to_string(host) + "\n";
        };
        const auto r = interval(scrape(1000, 100, 50), scrape(2000, 400, 250));
        QCOMPARE(r.at("prompt_tokens{source=local_cache_hit}"), 300.0);
        QCOMPARE(r.at("prompt_tokens{source=host_tier}"), 200.0);
        QCOMPARE(r.at("prompt_tokens{source=local_compute}"), 500.0);
    }

    // The families recorded as served (record = true in the catalog), from vLLM's and
    // LMCache's server's fixtures (README: the injected values): per tier where the role keeps
    // tiers apart, a counter's increase, a gauge's value; the catalog alone adds them.
    void familiesRecordedAsServed() {
        const auto v = interval(tiers("vllm-main-0078e9d-tiering-t0.txt"),
                                tiers("vllm-main-0078e9d-tiering-t1.txt"));
        QCOMPARE(v.at("kv_tier_chunk_queries{tier=1:fs}"), 24.0);
        QCOMPARE(v.at("kv_tier_chunk_queries{tier=0:primary}"), 64.0);
        QCOMPARE(v.at("kv_tier_chunk_hits{tier=0:primary}"), 40.0);
        QCOMPARE(v.at("kv_offload_allocation_failures"), 2.0);
        QVERIFY(std::abs(v.at("kv_offload_load_time") - 0.1) < 1e-9); // summed over transfers
        QCOMPARE(v.at("kv_lookup_sync_wait_count"), 40.0);
        const auto l = interval(tiers("lmcache-mp-otel-t0.txt"), tiers("lmcache-mp-otel-t1.txt"));
        QCOMPARE(l.at("lmcache_l1_hit_tokens"), 8192.0);
        QCOMPARE(l.at("lmcache_l2_hit_tokens"), 16384.0);
        QCOMPARE(l.at("lmcache_l2_loads{l2_name=fs}"), 12.0);
        QCOMPARE(l.at("lmcache_l2_prefetch_failures{reason=l1_oom}"), 2.0);
        QCOMPARE(l.at("lmcache_l2_prefetch_failures{reason=not_found}"), 0.0);
        QCOMPARE(l.at("lmcache_inflight_l2_loads"), 3.0);
        QCOMPARE(l.at("lmcache_l1_usage"), 0.53125);
        QCOMPARE(l.at("lmcache_transfer_phase_bytes{phase=staging}"), 1610612736.0);
    }

    // The schema canary: what this vLLM served of the catalog's vLLM roles, and what it did not.
    void coverageSaysWhichRolesAnEndpointServed() {
        EngineMetricsMapper mapper("e", false, EngineMetricCatalog::shipped());
        interval(tiers("vllm-main-0078e9d-tiering-t0.txt"),
                 tiers("vllm-main-0078e9d-tiering-t1.txt"), &mapper);
        const auto& coverage = mapper.coverage();
        QCOMPARE(coverage.size(), std::size_t(1));
        QCOMPARE(coverage[0].engine, std::string("vllm"));
        auto has = [](const std::vector<std::string>& v, const char* role) {
            return std::find(v.begin(), v.end(), role) != v.end();
        };
        for (const char* served : {"ttft", "prompt_tokens_by_source", "requests_waiting_by_reason",
                                   "kv_tier_read_bytes", "kv_offload_load_bytes"})
            QVERIFY2(has(coverage[0].served, served), served);
        for (const char* missing : {"requests_swapped", "cpu_kv_cache_usage"})
            QVERIFY2(has(coverage[0].missing, missing), missing);
        // An LMCache server beside it is spoken only when one of its families is there.
        QVERIFY(std::none_of(coverage.begin(), coverage.end(),
                             [](const auto& c) { return c.engine == "lmcache"; }));
    }

    // The canary is recorded at the first scrape, when it changes and once a minute, not at
    // every scrape.
    void coverageIsRecordedWhenItChangesAndOnceAMinute() {
        EngineMetricsMapper mapper("e", false, EngineMetricCatalog::shipped());
        const auto t0 = PrometheusTextParser::parse(tiers("vllm-main-0078e9d-tiering-t0.txt"));
        auto served = [](const std::vector<Reading>& readings) {
            std::map<std::string, double> out;
            for (const auto& r : readings)
                if (r.metric.path.find("/served{role=") != std::string::npos)
                    out[r.metric.path] = r.value;
            return out;
        };
        const auto first = served(mapper.update(t0, kTenSeconds));
        QCOMPARE(first.at("engine/e/served{role=kv_tier_read_bytes}"), 1.0);
        QCOMPARE(first.at("engine/e/served{role=requests_swapped}"), 0.0);
        QVERIFY(served(mapper.update(t0, 2 * kTenSeconds)).empty());
        const auto lost = PrometheusTextParser::parse(
            without(tiers("vllm-main-0078e9d-tiering-t0.txt"), "kv_offload_tiering_read_bytes"));
        const auto changed = served(mapper.update(lost, 3 * kTenSeconds));
        QCOMPARE(changed.at("engine/e/served{role=kv_tier_read_bytes}"), 0.0);
        QVERIFY(served(mapper.update(lost, 8 * kTenSeconds)).empty());
        QCOMPARE(served(mapper.update(lost, 9 * kTenSeconds)).size(), changed.size());
    }

    // LMCache's multi-process server on a port of its own: its lookup counters are the same
    // role as the in-process LMCache's hit and requested tokens.
    void lmcacheServerHitsAreLmcacheHits() {
        EngineMetricsMapper mapper("e", false, EngineMetricCatalog::shipped());
        const auto r =
            interval(tiers("lmcache-mp-otel-t0.txt"), tiers("lmcache-mp-otel-t1.txt"), &mapper);
        QCOMPARE(r.at("lmcache_hit_rate"), 24576.0 / 32768.0);
        QCOMPARE(mapper.coverage().size(), std::size_t(1));
        QCOMPARE(mapper.coverage()[0].engine, std::string("lmcache_mp"));
    }

    // Engines added by the catalog alone: TensorRT-LLM's host KV cache is the offload role,
    // SGLang HiCache's load back a latency with its quantiles and means.
    void engineFamiliesAddedInTheCatalogAlone() {
        const auto trt =
            interval(tiers("trtllm-main-050f80d-t0.txt"), tiers("trtllm-main-050f80d-t1.txt"));
        QCOMPARE(trt.at("kv_offload_load_bytes_per_s"), 805306368.0 / 10);
        QCOMPARE(trt.at("kv_offload_store_bytes_per_s"), 268435456.0 / 10);
        QVERIFY(trt.count("ttft_mean_s"));
        const auto sglang = interval(tiers("sglang-main-00ae9c1-colon-t0.txt"),
                                     tiers("sglang-main-00ae9c1-colon-t1.txt"));
        QCOMPARE(sglang.at("kv_load_back_count"), 4.0);
        QVERIFY(std::abs(sglang.at("kv_load_back_mean_s") - 0.004) < 1e-12);
        QVERIFY(sglang.count("kv_load_back_p50_s"));
    }

    // SGLang served with ':' and, through its router or a Prometheus that escapes names, with
    // '_': the same figures.
    void sglangColonAndUnderscoreReadTheSame() {
        const std::string colon0 = tiers("sglang-main-00ae9c1-colon-t0.txt");
        const auto colon = interval(colon0, tiers("sglang-main-00ae9c1-colon-t1.txt"));
        const auto underscore =
            interval(std::regex_replace(colon0, std::regex("sglang:"), "sglang_"),
                     tiers("sglang-router-underscore-t1.txt"));
        QVERIFY(colon.count("ttft_mean_s"));
        QVERIFY(colon.count("requests_running"));
        QVERIFY(colon.count("prompt_tokens_per_s"));
        QCOMPARE(underscore, colon);
    }

    // SGLang HiCache (README: cached device +8,192, host +4,096, storage +12,288 of 32,768
    // prompt tokens; 4 load backs of 4 ms over 8 requests): its tokens by source in the names
    // vLLM's come in, the rest computed, and its load back a storage wait of the TTFT.
    void sglangHiCacheTokensBySourceAndLoadBack() {
        const auto r = interval(tiers("sglang-main-00ae9c1-colon-t0.txt"),
                                tiers("sglang-main-00ae9c1-colon-t1.txt"));
        QCOMPARE(r.at("prompt_tokens{source=local_cache_hit}"), 8192.0);
        QCOMPARE(r.at("prompt_tokens{source=host_tier}"), 4096.0);
        QCOMPARE(r.at("prompt_tokens{source=storage_tier}"), 12288.0);
        QCOMPARE(r.at("prompt_tokens{source=local_compute}"), 8192.0);
        QCOMPARE(r.at("prompt_tokens_share{source=storage_tier}"), 0.375);
        QCOMPARE(r.at("kv_load_back_count"), 4.0);
        QVERIFY(std::abs(r.at("kv_load_back_sum_s") - 0.016) < 1e-9);
        QVERIFY(std::abs(r.at("storage_wait_per_request_s") - 0.002) < 1e-9);
        // Its request stages, each a latency of its own (8 requests: 0.05 s waiting for the
        // prefill batch, 0.2 s in the forward pass), never summed into one.
        QCOMPARE(r.at("sglang_prefill_waiting_count"), 8.0);
        QVERIFY(std::abs(r.at("sglang_prefill_waiting_mean_s") - 0.05) < 1e-9);
        QVERIFY(std::abs(r.at("sglang_prefill_forward_mean_s") - 0.2) < 1e-9);
    }
};

QTEST_MAIN(TestEngineTierMetrics)
#include "tst_enginetiermetrics.moc"
