#include "TestSupport.h"
#include "collectors/engine/PrometheusTextParser.h"

#include <cmath>

using namespace tierscope;

class TestPrometheusTextParser : public QObject {
    Q_OBJECT
  private:
    static const PromSample& find(const PrometheusTextParser::Result& r, const std::string& name,
                                  const std::string& labelKey = {},
                                  const std::string& labelValue = {}) {
        for (const auto& s : r.samples)
            if (s.name == name &&
                (labelKey.empty() || (s.label(labelKey) && *s.label(labelKey) == labelValue)))
                return s;
        qFatal("no sample %s", name.c_str());
    }

  private slots:
    void vllmV0() {
        const auto r = PrometheusTextParser::parse(test::fixture("engine/vllm-0.6-v0.txt"));
        QCOMPARE(r.malformedLines, 0);
        QCOMPARE(r.samples.size(), std::size_t(65)); // grep -vc "^#" on the fixture
        QCOMPARE(find(r, "vllm:prompt_tokens_total").value, 5453083.0);
        QCOMPARE(find(r, "vllm:request_success_total", "finished_reason", "abort").value, 28.0);
        QCOMPARE(find(r, "vllm:cache_config_info").labels.size(), std::size_t(11));
        QCOMPARE(*find(r, "vllm:cache_config_info").label("cache_dtype"), std::string("fp8_e5m2"));
        QCOMPARE(find(r, "vllm:gpu_prefix_cache_hit_rate").value, -1.0);
        QCOMPARE(r.typeOf("vllm:time_to_first_token_seconds_bucket"), std::string("histogram"));
        QCOMPARE(r.familyOf("vllm:time_to_first_token_seconds_count"),
                 std::string("vllm:time_to_first_token_seconds"));
        QCOMPARE(r.typeOf("vllm:num_preemptions_total"), std::string("counter"));
        QCOMPARE(r.help.at("vllm:num_requests_waiting"),
                 std::string("Number of requests waiting to be processed."));
        QVERIFY(
            std::isinf(find(r, "vllm:time_to_first_token_seconds_bucket", "le", "+Inf").value) ==
            false);
        QCOMPARE(find(r, "vllm:time_to_first_token_seconds_bucket", "le", "+Inf").value, 8499.0);
    }

    void vllmV1TwoEngines() {
        const auto r = PrometheusTextParser::parse(test::fixture("engine/vllm-0.10-v1.txt"));
        QCOMPARE(r.malformedLines, 0);
        QCOMPARE(find(r, "vllm:kv_cache_usage_perc", "engine", "0").value, 0.8125);
        QCOMPARE(find(r, "vllm:num_requests_running", "engine", "1").value, 9.0);
        QCOMPARE(*find(r, "vllm:prefix_cache_hits_total").label("model_name"),
                 std::string("Qwen/Qwen3-Coder-480B-A35B-Instruct"));
        QCOMPARE(r.typeOf("vllm:inter_token_latency_seconds_sum"), std::string("histogram"));
    }

    void sglang() {
        const auto r = PrometheusTextParser::parse(test::fixture("engine/sglang-0.4.txt"));
        QCOMPARE(r.malformedLines, 0);
        QCOMPARE(find(r, "sglang:num_queue_reqs").value, 2826.0);
        QCOMPARE(find(r, "sglang:generation_tokens_total").value, 7557572.0);
        QCOMPARE(find(r, "sglang:func_latency_seconds_bucket", "le", "0.07500000000000001").value,
                 14006.0);
        QCOMPARE(r.typeOf("sglang:token_usage"), std::string("gauge"));
    }

    void lmcacheCountersWithTotal() {
        const auto r = PrometheusTextParser::parse(test::fixture("engine/lmcache-0.3.txt"));
        QCOMPARE(r.malformedLines, 0);
        QCOMPARE(find(r, "lmcache:num_hit_tokens_total").value, 2.4e6);
        QCOMPARE(r.typeOf("lmcache:num_hit_tokens_total"), std::string("counter"));
        QCOMPARE(r.typeOf("lmcache:time_to_retrieve_bucket"), std::string("histogram"));
        QCOMPARE(*find(r, "lmcache:retrieve_hit_rate").label("worker_id"), std::string("0"));
    }

    void escapesSpecialValuesAndMalformedLines() {
        const auto r = PrometheusTextParser::parse(test::fixture("engine/malformed.txt"));
        const auto& escaped = r.samples.at(0);
        QCOMPARE(*escaped.label("path"), std::string("C:\\temp"));
        QCOMPARE(*escaped.label("quote"), std::string("say \"hi\""));
        QCOMPARE(*escaped.label("nl"), std::string("a\nb"));
        QCOMPARE(*escaped.timestamp, 1700000000000.0);
        QCOMPARE(r.help.at("ok_metric"),
                 std::string("A fine metric with an escaped \"quote\" in help \\ and \n newline"));
        QVERIFY(std::isinf(r.samples.at(1).value) &&
                r.samples.at(1).value > 0); // trailing comma ok
        QVERIFY(std::isinf(find(r, "neg_metric").value) && find(r, "neg_metric").value < 0);
        QVERIFY(std::isnan(find(r, "nan_metric").value));
        QCOMPARE(find(r, "spaces_after").value, 42.0);
        // OpenMetrics counter: TYPE names the family, samples carry _total and _created.
        QCOMPARE(r.familyOf("om_counter_total"), std::string("om_counter"));
        QCOMPARE(r.typeOf("om_counter_created"), std::string("counter"));
        QVERIFY(r.sawEof);
        for (const auto& s : r.samples)
            QVERIFY2(s.name != "after_eof", "parsing must stop at # EOF");
        QCOMPARE(r.malformedLines, 5);
        QCOMPARE(r.errors.size(), std::size_t(5));
        QVERIFY(r.errors[0].starts_with("line 7: "));
    }

    // No # TYPE line (copied excerpts, some exporters): _bucket samples with an le label make
    // a histogram, and its _sum and _count belong to it. Names alone decide nothing else.
    void histogramRecognisedWithoutTypeLine() {
        const auto r = PrometheusTextParser::parse("lat_seconds_bucket{le=\"0.5\"} 1\n"
                                                   "lat_seconds_bucket{le=\"+Inf\"} 2\n"
                                                   "lat_seconds_sum 1.5\n"
                                                   "lat_seconds_count 2\n"
                                                   "s3_bucket{name=\"a\"} 7\n"
                                                   "plain_count 3\n");
        QCOMPARE(r.typeOf("lat_seconds_bucket"), std::string("histogram"));
        QCOMPARE(r.familyOf("lat_seconds_count"), std::string("lat_seconds"));
        QCOMPARE(r.typeOf("lat_seconds_sum"), std::string("histogram"));
        QCOMPARE(r.typeOf("s3_bucket"), std::string("untyped")); // no le: not a bucket
        QCOMPARE(r.familyOf("plain_count"), std::string("plain_count"));
        // "untyped" says no more than a missing line; a declared type is never overridden.
        const auto u =
            PrometheusTextParser::parse("# TYPE lat untyped\nlat_bucket{le=\"+Inf\"} 1\n");
        QCOMPARE(u.typeOf("lat_bucket"), std::string("histogram"));
        const auto g = PrometheusTextParser::parse("# TYPE odd gauge\nodd_bucket{le=\"1\"} 1\n");
        QCOMPARE(g.typeOf("odd"), std::string("gauge"));
    }

    void limitsStopTheParseEarly() {
        std::string text;
        for (int i = 0; i < 10000; ++i)
            text += "x{i=\"" + std::to_string(i) + "\"} 1\n";
        const auto capped = PrometheusTextParser::parse(text, {5, nullptr});
        QVERIFY(capped.tooManySamples);
        QVERIFY(!capped.cancelled);
        QCOMPARE(capped.samples.size(), std::size_t(5));
        const auto exact = PrometheusTextParser::parse(text, {10000, nullptr});
        QVERIFY(!exact.tooManySamples); // the cap is a count allowed, not a count refused
        QCOMPARE(exact.samples.size(), std::size_t(10000));

        const std::atomic<bool> stop{true};
        const auto cancelled = PrometheusTextParser::parse(text, {1'000'000, &stop});
        QVERIFY(cancelled.cancelled);
        QVERIFY(cancelled.samples.empty());
        const std::atomic<bool> go{false};
        QCOMPARE(PrometheusTextParser::parse(text, {1'000'000, &go}).samples.size(),
                 std::size_t(10000));
    }

    void hostileInputNeverThrows() {
        for (const std::string input :
             {std::string("{"), std::string("a{b=\""), std::string("a{b=\"\\"),
              std::string(5000, '{'), std::string("x 1 2 3"), std::string("\0\0\0", 3),
              std::string("# TYPE"), std::string("# HELP x \\")}) {
            const auto r = PrometheusTextParser::parse(input);
            QVERIFY(r.samples.size() <= 1);
        }
    }
};

QTEST_GUILESS_MAIN(TestPrometheusTextParser)
#include "tst_prometheustextparser.moc"
