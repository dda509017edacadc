#include "TestSupport.h"
#include "collectors/engine/EngineMetricsMapper.h"
#include "core/engine/EngineMetricCatalog.h"
#include "core/stats/TtftBreakdown.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

using namespace tierscope;

namespace {

std::map<std::string, double> byPath(const std::vector<Reading>& readings) {
    std::map<std::string, double> out;
    for (const auto& r : readings)
        out[r.metric.path] = r.value;
    return out;
}

// A vLLM V1 scrape with two engines; histogram counts are cumulative per engine.
std::string v1Scrape(const int ttft0[4], const int ttft1[4], double prompt, double generation,
                     double queries, double hits) {
    std::string text = "# TYPE vllm:time_to_first_token_seconds histogram\n";
    const char* bounds[] = {"0.1", "0.5", "1.0", "+Inf"};
    for (int engine = 0; engine < 2; ++engine)
        for (int b = 0; b < 4; ++b)
            text += "vllm:time_to_first_token_seconds_bucket{engine=\"" + std::to_string(engine) +
                    "\",le=\"" + bounds[b] + "\",model_name=\"m\"} " +
                    std::to_string((engine ? ttft1 : ttft0)[b]) + "\n";
    text += "# TYPE vllm:prompt_tokens counter\nvllm:prompt_tokens_total{engine=\"0\"} " +
            std::to_string(prompt) + "\n";
    text += "# TYPE vllm:generation_tokens counter\nvllm:generation_tokens_total{engine=\"0\"} " +
            std::to_string(generation) + "\n";
    text +=
        "# TYPE vllm:prefix_cache_queries counter\nvllm:prefix_cache_queries_total{engine=\"0\"} " +
        std::to_string(queries) + "\n";
    text += "# TYPE vllm:prefix_cache_hits counter\nvllm:prefix_cache_hits_total{engine=\"0\"} " +
            std::to_string(hits) + "\n";
    return text;
}

} // namespace

class TestEngineMetricsMapper : public QObject {
    Q_OBJECT
  private slots:
    void vllmV1Gauges() {
        EngineMetricsMapper mapper("127.0.0.1:8000", false);
        const auto r = byPath(mapper.update(
            PrometheusTextParser::parse(test::fixture("engine/vllm-0.10-v1.txt")), 1));
        QCOMPARE(r.at("engine/127.0.0.1:8000/requests_running"), 21.0); // summed over both engines
        QCOMPARE(r.at("engine/127.0.0.1:8000/requests_waiting"), 4.0);
        QCOMPARE(r.at("engine/127.0.0.1:8000/kv_cache_usage_ratio"), 0.8125); // the fullest engine
        // Interval figures need a second scrape: absent, not zero.
        QVERIFY(r.count("engine/127.0.0.1:8000/ttft_p50_s") == 0);
        QVERIFY(r.count("engine/127.0.0.1:8000/prefix_cache_hit_rate") == 0);
        QVERIFY(r.count("engine/127.0.0.1:8000/prompt_tokens_per_s") == 0);
    }

    void ttftQuantilesFromBucketDeltasSummedAcrossEngines() {
        EngineMetricsMapper mapper("e", false);
        const int a0[4] = {10, 60, 90, 100}, b0[4] = {0, 0, 0, 0};
        // Interval: engine 0 adds 4 / 8 / 6 / 2 per bucket, engine 1 adds 0 / 2 / 0 / 0.
        const int a1[4] = {14, 72, 108, 120}, b1[4] = {0, 2, 2, 2};
        mapper.update(PrometheusTextParser::parse(v1Scrape(a0, b0, 1000, 500, 4000, 1000)),
                      1'000'000'000);
        const auto r = byPath(mapper.update(
            PrometheusTextParser::parse(v1Scrape(a1, b1, 3000, 1000, 5000, 1250)), 3'000'000'000));
        // Summed deltas, cumulative: 4, 14, 20, 22.
        QCOMPARE(r.at("engine/e/ttft_p50_s"), 0.1 + 0.4 * (7.0 / 10.0)); // rank 11
        QCOMPARE(r.at("engine/e/ttft_p90_s"), 0.5 + 0.5 * (5.8 / 6.0));  // rank 19.8
        QCOMPARE(r.at("engine/e/ttft_p99_s"), 1.0);                      // rank 21.78 in +Inf
        QCOMPARE(r.at("engine/e/prompt_tokens_per_s"), 1000.0);          // +2000 in 2 s
        QCOMPARE(r.at("engine/e/generation_tokens_per_s"), 250.0);
        QCOMPARE(r.at("engine/e/prefix_cache_hit_rate"), 0.25); // +250 hits / +1000 queries

        // An idle interval: no hit rate, and the token rates are a true zero; the quantiles
        // are over the last 30 s, which still hold the requests of the interval before.
        const auto idle = byPath(mapper.update(
            PrometheusTextParser::parse(v1Scrape(a1, b1, 3000, 1000, 5000, 1250)), 4'000'000'000));
        QCOMPARE(idle.at("engine/e/ttft_p50_s"), 0.1 + 0.4 * (7.0 / 10.0));
        QVERIFY(idle.count("engine/e/prefix_cache_hit_rate") == 0);
        QCOMPARE(idle.at("engine/e/prompt_tokens_per_s"), 0.0);
        // 30 s after those requests the span holds none: no quantile, not a zero.
        const auto quiet = byPath(mapper.update(
            PrometheusTextParser::parse(v1Scrape(a1, b1, 3000, 1000, 5000, 1250)), 33'000'000'000));
        QVERIFY(quiet.count("engine/e/ttft_p50_s") == 0);

        // A restarted engine (counters went down) counts from zero again, as Prometheus' rate
        // does: what it reports now is what it did since the restart. No request finished.
        const int z[4] = {0, 0, 0, 0};
        const auto reset = byPath(mapper.update(
            PrometheusTextParser::parse(v1Scrape(z, z, 10, 5, 10, 1)), 34'000'000'000));
        QCOMPARE(reset.at("engine/e/prompt_tokens_per_s"), 10.0);
        QCOMPARE(reset.at("engine/e/prefix_cache_hit_rate"), 0.1);
        QVERIFY(reset.count("engine/e/ttft_p50_s") == 0);
    }

    // The quantiles pool the bucket increases of the intervals that ended in the last 30 s:
    // with a few requests a second, one interval's p99 is a bucket edge, the span's is not.
    void quantilesPoolTheLastThirtySeconds() {
        EngineMetricsMapper mapper("e", false);
        const int z[4] = {0, 0, 0, 0};
        int a[4] = {0, 0, 0, 0};
        mapper.update(PrometheusTextParser::parse(v1Scrape(a, z, 0, 0, 0, 0)), 0);
        // Each second one request: under 0.1 s in the even seconds, in (0.5, 1] in the odd ones.
        std::map<std::string, double> r;
        for (int second = 1; second <= 40; ++second) {
            const bool slow = second % 2 == 1;
            for (int b = slow ? 2 : 0; b < 4; ++b)
                ++a[b];
            r = byPath(mapper.update(PrometheusTextParser::parse(v1Scrape(a, z, 0, 0, 0, 0)),
                                     std::int64_t(second) * 1'000'000'000));
            // One interval alone would give 0.05 or 0.75: the span gives the mixture.
            if (second >= 30) {
                // 30 requests (seconds - 29 .. seconds), 15 fast and 15 slow. p50: rank 15 in
                // (0, 0.1] at its top; p99: rank 29.7 in (0.5, 1.0].
                QCOMPARE(r.at("engine/e/ttft_p50_s"), 0.1);
                QVERIFY(std::abs(r.at("engine/e/ttft_p99_s") - (0.5 + 0.5 * 14.7 / 15.0)) < 1e-12);
            }
        }
    }

    // A series missing from one scrape (an exporter glitch) and back in the next must not bring
    // its whole history into that interval: as in Prometheus, a series needs two samples.
    void seriesMissingFromOneScrapeAddsNothing() {
        auto withoutEngine1 = [](const std::string& text) {
            std::string out;
            std::size_t at = 0;
            while (at < text.size()) {
                const auto end = text.find('\n', at);
                const auto line = text.substr(at, end - at);
                if (line.find("engine=\"1\"") == std::string::npos)
                    out += line + "\n";
                at = end == std::string::npos ? text.size() : end + 1;
            }
            return out;
        };
        EngineMetricsMapper mapper("gap", false);
        const int a0[4] = {10, 60, 90, 100}, a1[4] = {14, 72, 108, 120};
        const int history[4] = {0, 500, 900, 1000}; // engine 1, unchanged throughout
        mapper.update(PrometheusTextParser::parse(v1Scrape(a0, history, 1000, 500, 4000, 1000)),
                      1'000'000'000);
        mapper.update(PrometheusTextParser::parse(
                          withoutEngine1(v1Scrape(a0, history, 1000, 500, 4000, 1000))),
                      2'000'000'000);
        const auto r = byPath(mapper.update(
            PrometheusTextParser::parse(v1Scrape(a1, history, 3000, 1000, 5000, 1250)),
            3'000'000'000));
        // Engine 0's 20 requests only: 4 / 8 / 6 / 2, rank 10 in (0.1, 0.5] with 4 below.
        QCOMPARE(r.at("engine/gap/ttft_p50_s"), 0.1 + 0.4 * (6.0 / 8.0));
    }

    // Two data-parallel engines in vLLM 0.10's exposition; engine 1 restarted between the
    // scrapes. Interval (10 s): engine 0 served 60 requests, the restarted engine 1 served 20.
    // Summing the buckets before the delta turns engine 0's whole history into this interval
    // (TTFT p50 0.692 s); per-series deltas summed by le, as Prometheus' sum by (le) (rate())
    // does, give the interval's own 0.25 s.
    void dataParallelEngineRestartIsThatSeriesReset() {
        EngineMetricsMapper mapper("dp", false);
        const std::int64_t t0 = 1'764'590'400'000'000'000, t1 = t0 + 10'000'000'000;
        const auto first = byPath(mapper.update(
            PrometheusTextParser::parse(test::fixture("engine/vllm-0.10-v1-dp2-t0.txt")), t0));
        QCOMPARE(first.at("engine/dp/requests_running"), 8.0);
        const auto r = byPath(mapper.update(
            PrometheusTextParser::parse(test::fixture("engine/vllm-0.10-v1-dp2-t1.txt")), t1));
        // TTFT: 40 in (0.1, 0.25], 40 in (0.25, 0.5].
        QCOMPARE(r.at("engine/dp/ttft_p50_s"), 0.25);
        QCOMPARE(r.at("engine/dp/ttft_p90_s"), 0.25 + 0.25 * (32.0 / 40.0));
        QCOMPARE(r.at("engine/dp/ttft_p99_s"), 0.25 + 0.25 * (39.2 / 40.0));
        // Counters the same way: +30,000 prompt tokens on engine 0 and 10,000 on the restarted
        // engine 1 (Prometheus' rate counts a decrease as a reset), over 10 s.
        QCOMPARE(r.at("engine/dp/prompt_tokens_per_s"), 4000.0);
        QCOMPARE(r.at("engine/dp/generation_tokens_per_s"), 800.0);
        QCOMPARE(r.at("engine/dp/prefix_cache_hit_rate"), (15000.0 + 1000.0) / 40000.0);
    }

    // vLLM V1's request-phase histograms, over the same interval, split TTFT and latency.
    void requestPhaseHistograms() {
        EngineMetricsMapper mapper("dp", false);
        const std::int64_t t0 = 1'764'590'400'000'000'000, t1 = t0 + 10'000'000'000;
        mapper.update(PrometheusTextParser::parse(test::fixture("engine/vllm-0.10-v1-dp2-t0.txt")),
                      t0);
        const auto r = byPath(mapper.update(
            PrometheusTextParser::parse(test::fixture("engine/vllm-0.10-v1-dp2-t1.txt")), t1));
        // Queue: 60 in (0, 0.3], 20 in (0.3, 0.5].
        QCOMPARE(r.at("engine/dp/queue_time_p50_s"), 0.3 * (40.0 / 60.0));
        QCOMPARE(r.at("engine/dp/queue_time_p90_s"), 0.3 + 0.2 * (12.0 / 20.0));
        QCOMPARE(r.at("engine/dp/queue_time_p99_s"), 0.3 + 0.2 * (19.2 / 20.0));
        // Prefill: all 80 in (0, 0.3].
        QCOMPARE(r.at("engine/dp/prefill_time_p50_s"), 0.15);
        QCOMPARE(r.at("engine/dp/prefill_time_p90_s"), 0.3 * 0.9);
        // Decode: 40 in (1.5, 2], 20 in (5, 10], 20 in (10, 15].
        QCOMPARE(r.at("engine/dp/decode_time_p50_s"), 2.0);
        QCOMPARE(r.at("engine/dp/decode_time_p90_s"), 10.0 + 5.0 * (12.0 / 20.0));
        QCOMPARE(r.at("engine/dp/decode_time_p99_s"), 10.0 + 5.0 * (19.2 / 20.0));
        // Inference (running phase): 40 in (2, 2.5], 20 in (5, 10], 20 in (10, 15].
        QCOMPARE(r.at("engine/dp/inference_time_p50_s"), 2.5);
        QCOMPARE(r.at("engine/dp/inference_time_p90_s"), 13.0);
        // End to end: 40 in (2.5, 5], 20 in (5, 10], 20 in (10, 15].
        QCOMPARE(r.at("engine/dp/e2e_latency_p50_s"), 5.0);
        QCOMPARE(r.at("engine/dp/e2e_latency_p99_s"), 14.8);
        // V1 has no swapping and no CPU KV cache: absent, not zero.
        QVERIFY(r.count("engine/dp/requests_swapped") == 0);
        QVERIFY(r.count("engine/dp/cpu_kv_cache_usage_ratio") == 0);
    }

    // The TTFT parts' bucket increases over the interval, summed over both engines, so that a
    // span of any length has its own histogram: queue has 60 in (0, 0.3] and 20 in (0.3, 0.5].
    // Their quantile is the interval's own. Decode is not a part of TTFT: no buckets stored.
    void ttftPartsBucketIncreases() {
        EngineMetricsMapper mapper("dp", false);
        const std::int64_t t0 = 1'764'590'400'000'000'000, t1 = t0 + 10'000'000'000;
        const auto first = byPath(mapper.update(
            PrometheusTextParser::parse(test::fixture("engine/vllm-0.10-v1-dp2-t0.txt")), t0));
        QVERIFY(first.count("engine/dp/queue_time_bucket{le=0.3}") == 0);
        const auto r = byPath(mapper.update(
            PrometheusTextParser::parse(test::fixture("engine/vllm-0.10-v1-dp2-t1.txt")), t1));
        QCOMPARE(r.at("engine/dp/queue_time_bucket{le=0.3}"), 60.0);
        QCOMPARE(r.at("engine/dp/queue_time_bucket{le=0.5}"), 80.0);
        QCOMPARE(r.at("engine/dp/queue_time_bucket{le=30}"), 80.0);
        QCOMPARE(r.at("engine/dp/queue_time_bucket{le=+Inf}"), 80.0);
        QCOMPARE(r.at("engine/dp/prefill_time_bucket{le=+Inf}"), 80.0);
        QCOMPARE(r.at("engine/dp/ttft_bucket{le=+Inf}"), 80.0);
        QVERIFY(r.count("engine/dp/lmcache_retrieve_bucket{le=+Inf}") == 0); // no LMCache here
        for (const auto& [path, value] : r)
            QVERIFY2(path.find("decode_time_bucket") == std::string::npos, path.c_str());
        HistogramQuantile::Buckets queue;
        const std::string head = "engine/dp/queue_time_bucket{le=";
        for (const auto& [path, value] : r)
            if (path.rfind(head, 0) == 0)
                queue.emplace_back(std::strtod(path.c_str() + head.size(), nullptr), value);
        std::sort(queue.begin(), queue.end());
        QCOMPARE(HistogramQuantile::compute(0.5, queue), r.at("engine/dp/queue_time_p50_s"));
        QCOMPARE(HistogramQuantile::compute(0.99, queue), r.at("engine/dp/queue_time_p99_s"));
    }

    // Means from each series' _sum and _count deltas over the same interval: engine 0 served
    // 60 requests (TTFT +16 s, queue +6 s, prefill +9 s), the restarted engine 1 served 20
    // (TTFT 8 s, queue 7 s, prefill 1 s), so mean TTFT 24 s / 80 = 0.3 s = queue 0.1625 s +
    // prefill 0.125 s + 0.0125 s the engine core does not see.
    void requestPhaseMeansFromSumAndCountDeltas() {
        EngineMetricsMapper mapper("dp", false);
        const std::int64_t t0 = 1'764'590'400'000'000'000, t1 = t0 + 10'000'000'000;
        const auto first = byPath(mapper.update(
            PrometheusTextParser::parse(test::fixture("engine/vllm-0.10-v1-dp2-t0.txt")), t0));
        QVERIFY(first.count("engine/dp/ttft_count") == 0); // one scrape: no interval yet
        const auto r = byPath(mapper.update(
            PrometheusTextParser::parse(test::fixture("engine/vllm-0.10-v1-dp2-t1.txt")), t1));
        auto near = [](double a, double b) { return std::abs(a - b) < 1e-9; };
        QCOMPARE(r.at("engine/dp/ttft_count"), 80.0);
        QVERIFY(near(r.at("engine/dp/ttft_sum_s"), 24.0));
        QVERIFY(near(r.at("engine/dp/ttft_mean_s"), 0.3));
        QCOMPARE(r.at("engine/dp/queue_time_count"), 80.0);
        QVERIFY(near(r.at("engine/dp/queue_time_mean_s"), 13.0 / 80));
        QVERIFY(near(r.at("engine/dp/prefill_time_mean_s"), 10.0 / 80));
        QVERIFY(near(r.at("engine/dp/decode_time_mean_s"), (220.0 + 220.0) / 80));
        QVERIFY(near(r.at("engine/dp/e2e_latency_mean_s"), (252.0 + 228.0) / 80));
        // No LMCache on this engine: its retrieve time is absent, not zero.
        QVERIFY(r.count("engine/dp/lmcache_retrieve_sum_s") == 0);
        QVERIFY(r.count("engine/dp/storage_wait_per_request_s") == 0);

        // Nothing finished in the next interval: zero observations, so no mean.
        const auto idle = byPath(mapper.update(
            PrometheusTextParser::parse(test::fixture("engine/vllm-0.10-v1-dp2-t1.txt")),
            t1 + 10'000'000'000));
        QCOMPARE(idle.at("engine/dp/ttft_count"), 0.0);
        QCOMPARE(idle.at("engine/dp/ttft_sum_s"), 0.0);
        QVERIFY(idle.count("engine/dp/ttft_mean_s") == 0);
    }

    // LMCache's retrieve time beside vLLM's TTFT: spread over every request, it is the part of
    // the mean TTFT spent reading KV (here 2 of 4 requests read, 1.5 s in all).
    void kvRetrievePerRequest() {
        auto scrape = [](double ttftSum, int ttftCount, double retrieveSum, int retrieveCount) {
            std::string t = "# TYPE vllm:time_to_first_token_seconds histogram\n";
            t += "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\"} " +
                 std::to_string(ttftCount) + "\n";
            t += "vllm:time_to_first_token_seconds_sum " + std::to_string(ttftSum) + "\n";
            t += "vllm:time_to_first_token_seconds_count " + std::to_string(ttftCount) + "\n";
            t += "# TYPE lmcache:time_to_retrieve histogram\n";
            t += "lmcache:time_to_retrieve_bucket{le=\"+Inf\",worker_id=\"0\"} " +
                 std::to_string(retrieveCount) + "\n";
            t += "lmcache:time_to_retrieve_sum{worker_id=\"0\"} " + std::to_string(retrieveSum) +
                 "\n";
            t += "lmcache:time_to_retrieve_count{worker_id=\"0\"} " +
                 std::to_string(retrieveCount) + "\n";
            return t;
        };
        EngineMetricsMapper mapper("lm", false);
        mapper.update(PrometheusTextParser::parse(scrape(10, 10, 2, 5)), 1'000'000'000);
        const auto r = byPath(
            mapper.update(PrometheusTextParser::parse(scrape(14, 14, 3.5, 7)), 2'000'000'000));
        QCOMPARE(r.at("engine/lm/ttft_mean_s"), 1.0);
        QCOMPARE(r.at("engine/lm/lmcache_retrieve_count"), 2.0);
        QCOMPARE(r.at("engine/lm/lmcache_retrieve_mean_s"), 0.75);    // per retrieval
        QCOMPARE(r.at("engine/lm/storage_wait_per_request_s"), 0.375); // per request
        // A restarted worker counts from zero: what it did since.
        const auto reset = byPath(
            mapper.update(PrometheusTextParser::parse(scrape(18, 18, 0.5, 1)), 3'000'000'000));
        QCOMPARE(reset.at("engine/lm/lmcache_retrieve_sum_s"), 0.5);
        QCOMPARE(reset.at("engine/lm/lmcache_retrieve_count"), 1.0);
    }

    // Every part of the TTFT breakdown is recorded with its buckets, for its own p50 and p99,
    // and the storage waits among them add up per request: one histogram per part's role in
    // one scrape, from the first family the catalog names for it.
    void everyTtftPartHasBuckets() {
        const auto& catalog = EngineMetricCatalog::active();
        for (const auto& part : TtftBreakdown::parts())
            QVERIFY2(catalog.role(part.role) && !catalog.role(part.role)->families.empty(),
                     part.role);
        auto scrape = [&](int n) {
            std::string t;
            for (const auto& part : TtftBreakdown::parts()) {
                const std::string name = catalog.role(part.role)->families.front().text;
                t += "# TYPE " + name + " histogram\n";
                t += name + "_bucket{le=\"0.5\"} " + std::to_string(n) + "\n";
                t += name + "_bucket{le=\"+Inf\"} " + std::to_string(n) + "\n";
                t += name + "_sum " + std::to_string(0.1 * n) + "\n";
                t += name + "_count " + std::to_string(n) + "\n";
            }
            return t;
        };
        EngineMetricsMapper mapper("all", false);
        mapper.update(PrometheusTextParser::parse(scrape(10)), 1'000'000'000);
        const auto r =
            byPath(mapper.update(PrometheusTextParser::parse(scrape(20)), 2'000'000'000));
        for (const auto& part : TtftBreakdown::parts()) {
            const std::string path = "engine/all/" + std::string(part.role) + "_bucket{le=0.5}";
            QVERIFY2(r.count(path) == 1, path.c_str());
            QCOMPARE(r.at(path), 10.0);
        }
        // Three storage waits of 1.0 s each over 10 TTFT observations.
        QVERIFY(std::abs(r.at("engine/all/storage_wait_per_request_s") - 0.3) < 1e-9);
        // The interval's parts for the stacked chart, as TtftBreakdown gives them: every phase
        // 0.1 s a request; the lookup wait fills the queue, retrieve and load back (0.2 s) do
        // not fit in the prefill (0.1 s) and stay whole, and the residual shows the overlap.
        auto part = [&](const char* name) {
            return r.at(std::string("engine/all/ttft_part_s{part=") + name + "}");
        };
        QVERIFY(std::abs(part("queue")) < 1e-9);
        QVERIFY(std::abs(part("storage_wait") - 0.3) < 1e-9);
        QVERIFY(std::abs(part("prefill_compute") - 0.1) < 1e-9);
        QVERIFY(std::abs(part("residual") + 0.3) < 1e-9);
    }

    // Copied excerpts and some exporters drop the # TYPE lines: the _bucket samples with an le
    // label still make a histogram.
    void histogramWithoutTypeLine() {
        auto untyped = [](const std::string& text) {
            std::string out;
            std::size_t at = 0;
            while (at < text.size()) {
                const auto end = text.find('\n', at);
                const auto line = text.substr(at, end - at);
                if (line.rfind("# TYPE", 0) != 0 && line.rfind("# HELP", 0) != 0)
                    out += line + "\n";
                at = end == std::string::npos ? text.size() : end + 1;
            }
            return out;
        };
        EngineMetricsMapper mapper("u", false);
        const std::int64_t t0 = 1'764'590'400'000'000'000, t1 = t0 + 10'000'000'000;
        mapper.update(
            PrometheusTextParser::parse(untyped(test::fixture("engine/vllm-0.10-v1-dp2-t0.txt"))),
            t0);
        const auto r = byPath(mapper.update(
            PrometheusTextParser::parse(untyped(test::fixture("engine/vllm-0.10-v1-dp2-t1.txt"))),
            t1));
        QCOMPARE(r.at("engine/u/ttft_p50_s"), 0.25);
        QCOMPARE(r.at("engine/u/queue_time_p50_s"), 0.2);
        QCOMPARE(r.at("engine/u/prompt_tokens_per_s"), 4000.0);
    }

    // SGLang's queueing histogram (its first bucket is le="0.0") and end-to-end latency.
    void sglangQueueAndLatency() {
        auto scrape = [](int zero, int small, int e2e) {
            const std::string l = "model_name=\"meta-llama/Llama-3.1-8B-Instruct\"";
            std::string t = "# TYPE sglang:queue_time_seconds histogram\n";
            for (const auto& [le, n] : std::vector<std::pair<std::string, int>>{
                     {"0.0", zero}, {"0.1", zero}, {"0.2", zero + small}, {"+Inf", zero + small}})
                t += "sglang:queue_time_seconds_bucket{le=\"" + le + "\"," + l + "} " +
                     std::to_string(n) + ".0\n";
            t += "# TYPE sglang:e2e_request_latency_seconds histogram\n";
            for (const auto& [le, n] :
                 std::vector<std::pair<std::string, int>>{{"0.5", 0}, {"1.0", e2e}, {"+Inf", e2e}})
                t += "sglang:e2e_request_latency_seconds_bucket{le=\"" + le + "\"," + l + "} " +
                     std::to_string(n) + ".0\n";
            return t;
        };
        EngineMetricsMapper mapper("sg", false);
        mapper.update(PrometheusTextParser::parse(scrape(100, 50, 150)), 1'000'000'000);
        const auto r =
            byPath(mapper.update(PrometheusTextParser::parse(scrape(110, 60, 170)), 2'000'000'000));
        QCOMPARE(r.at("engine/sg/queue_time_p50_s"), 0.0); // rank 10 of 20 in the le="0.0" bucket
        QCOMPARE(r.at("engine/sg/queue_time_p90_s"), 0.1 + 0.1 * (8.0 / 10.0));
        QCOMPARE(r.at("engine/sg/e2e_latency_p50_s"), 0.75);
    }

    void vllmV0AndSglangNames() {
        EngineMetricsMapper v0("v0", false);
        const auto a = byPath(
            v0.update(PrometheusTextParser::parse(test::fixture("engine/vllm-0.6-v0.txt")), 1));
        QCOMPARE(a.at("engine/v0/requests_running"), 3.0);
        QCOMPARE(a.at("engine/v0/requests_waiting"), 2.0);
        QCOMPARE(a.at("engine/v0/kv_cache_usage_ratio"), 0.0);    // reported as 0.0: a real zero
        QVERIFY(a.count("engine/v0/prefix_cache_hit_rate") == 0); // -1: prefix caching off
        QCOMPARE(a.at("engine/v0/requests_swapped"), 0.0);        // V0 only
        QCOMPARE(a.at("engine/v0/cpu_kv_cache_usage_ratio"), 0.0);

        EngineMetricsMapper sg("sg", false);
        const auto b = byPath(
            sg.update(PrometheusTextParser::parse(test::fixture("engine/sglang-0.4.txt")), 1));
        QCOMPARE(b.at("engine/sg/requests_running"), 162.0);
        QCOMPARE(b.at("engine/sg/requests_waiting"), 2826.0);
        QCOMPARE(b.at("engine/sg/kv_cache_usage_ratio"), 0.28);
        QCOMPARE(b.at("engine/sg/prefix_cache_hit_rate"), 0.007507552643049313);
    }

    void lmcache() {
        EngineMetricsMapper mapper("lm", false);
        const std::string t0 = test::fixture("engine/lmcache-0.3.txt");
        const auto first = byPath(mapper.update(PrometheusTextParser::parse(t0), 1'000'000'000));
        QCOMPARE(first.at("engine/lm/lmcache_hit_rate"),
                 0.75); // LMCache's own gauge on the first scrape
        QCOMPARE(first.at("engine/lm/lmcache_local_cache_usage_bytes"), 4.294967296e10);
        QCOMPARE(first.at("engine/lm/lmcache_remote_cache_usage_bytes"), 1.099511627776e12);
        // One second later: +1e6 requested tokens, +0.9e6 hits, +1 GB read from the remote tier,
        // and 100 more retrievals, all in the (0.01, 0.1] bucket.
        std::string t1 = t0;
        auto bump = [&](const std::string& from, const std::string& to) {
            const auto at = t1.find(from);
            QVERIFY(at != std::string::npos);
            t1.replace(at, from.size(), to);
        };
        bump("lmcache:num_requested_tokens_total{model_name=\"Qwen/"
             "Qwen3-235B-A22B\",role=\"worker\",worker_id=\"0\"} 3.2e+06",
             "lmcache:num_requested_tokens_total{model_name=\"Qwen/"
             "Qwen3-235B-A22B\",role=\"worker\",worker_id=\"0\"} 4.2e+06");
        bump("lmcache:num_hit_tokens_total{model_name=\"Qwen/"
             "Qwen3-235B-A22B\",role=\"worker\",worker_id=\"0\"} 2.4e+06",
             "lmcache:num_hit_tokens_total{model_name=\"Qwen/"
             "Qwen3-235B-A22B\",role=\"worker\",worker_id=\"0\"} 3.3e+06");
        bump("worker_id=\"0\"} 5.24288e+11", "worker_id=\"0\"} 5.25288e+11");
        for (const char* le : {"0.1", "1.0", "+Inf"})
            bump(std::string("lmcache:time_to_retrieve_bucket{le=\"") + le + "\"",
                 std::string("lmcache:time_to_retrieve_bucket{le=\"") + le + "\"");
        bump(
            "le=\"0.1\",model_name=\"Qwen/Qwen3-235B-A22B\",role=\"worker\",worker_id=\"0\"} 300.0",
            "le=\"0.1\",model_name=\"Qwen/Qwen3-235B-A22B\",role=\"worker\",worker_id=\"0\"} "
            "400.0");
        bump("lmcache:time_to_retrieve_bucket{le=\"1.0\",model_name=\"Qwen/"
             "Qwen3-235B-A22B\",role=\"worker\",worker_id=\"0\"} 390.0",
             "lmcache:time_to_retrieve_bucket{le=\"1.0\",model_name=\"Qwen/"
             "Qwen3-235B-A22B\",role=\"worker\",worker_id=\"0\"} 490.0");
        bump("lmcache:time_to_retrieve_bucket{le=\"+Inf\",model_name=\"Qwen/"
             "Qwen3-235B-A22B\",role=\"worker\",worker_id=\"0\"} 400.0",
             "lmcache:time_to_retrieve_bucket{le=\"+Inf\",model_name=\"Qwen/"
             "Qwen3-235B-A22B\",role=\"worker\",worker_id=\"0\"} 500.0");
        const auto second = byPath(mapper.update(PrometheusTextParser::parse(t1), 2'000'000'000));
        QCOMPARE(second.at("engine/lm/lmcache_hit_rate"), 0.9);
        QCOMPARE(second.at("engine/lm/lmcache_remote_read_bytes_per_s"), 1e9);
        // 100 retrievals in (0.01, 0.1]: the median is that bucket's midpoint.
        QCOMPARE(second.at("engine/lm/lmcache_retrieve_p50_s"), 0.01 + 0.09 * 0.5);
    }

    void rawSeriesAndEndpointIds() {
        EngineMetricsMapper mapper("raw", true);
        const auto parsed = PrometheusTextParser::parse(test::fixture("engine/sglang-0.4.txt"));
        std::size_t raw = 0;
        for (const auto& r : mapper.update(parsed, 1))
            raw += r.metric.path.starts_with("engine/raw/raw/") ? 1 : 0;
        QCOMPARE(raw, parsed.samples.size());
        QCOMPARE(EngineMetricsMapper::endpointIdFromUrl("http://user:secret@10.0.0.5:8000/metrics"),
                 std::string("10.0.0.5:8000"));
        QCOMPARE(EngineMetricsMapper::endpointIdFromUrl("https://engine.example/metrics"),
                 std::string("engine.example"));
        // Two engines behind one gateway port, told apart by their paths; a query string may
        // carry a token and is no part of the id.
        QCOMPARE(EngineMetricsMapper::endpointIdFromUrl("http://gw:8000/llama/metrics?token=s3"),
                 std::string("gw:8000_llama"));
        QCOMPARE(EngineMetricsMapper::endpointIdFromUrl("http://gw:8000/qwen/v2/metrics/"),
                 std::string("gw:8000_qwen_v2"));
        QCOMPARE(EngineMetricsMapper::endpointIdFromUrl("http://gw:8000/?x=1"),
                 std::string("gw:8000"));
    }
    // A label per request would make a series each: at most 2,000 new series a scrape and
    // 10,000 in all, and the left-out samples counted beside them. A scrape that repeats a
    // series is dropped whole, as Prometheus rejects it.
    void rawSeriesAreCappedAndCounted() {
        EngineMetricsMapper mapper("cap", true);
        std::string text = "# TYPE req_bytes gauge\n";
        for (int i = 0; i < 12000; ++i)
            text += "req_bytes{request=\"r" + std::to_string(i) + "\"} " + std::to_string(i) + "\n";
        const auto scrape = PrometheusTextParser::parse(text);
        auto count = [](const std::vector<Reading>& out, std::size_t& raw) {
            raw = 0;
            double dropped = -1;
            for (const auto& r : out) {
                raw += r.metric.path.starts_with("engine/cap/raw/") ? 1 : 0;
                if (r.metric.path == "engine/cap/raw_samples_dropped")
                    dropped = r.value;
            }
            return dropped;
        };
        std::size_t raw = 0;
        const double expectedDropped[] = {10000, 18000, 24000, 28000, 30000, 32000};
        for (int scrapeNo = 0; scrapeNo < 6; ++scrapeNo) {
            const double dropped = count(mapper.update(scrape, scrapeNo + 1), raw);
            QCOMPARE(raw, std::min<std::size_t>(2000 * (scrapeNo + 1), 10000));
            QCOMPARE(dropped, expectedDropped[scrapeNo]);
        }
        EngineMetricsMapper twice("cap", true);
        const auto repeated = PrometheusTextParser::parse("a_total 1\nb 2\na_total 3\n");
        QCOMPARE(count(twice.update(repeated, 1), raw), 3.0);
        QCOMPARE(raw, std::size_t(0));
        QCOMPARE(count(twice.update(PrometheusTextParser::parse("a_total 4\nb 5\n"), 2), raw), 3.0);
        QCOMPARE(raw, std::size_t(2));
    }
};

QTEST_GUILESS_MAIN(TestEngineMetricsMapper)
#include "tst_enginemetricsmapper.moc"
