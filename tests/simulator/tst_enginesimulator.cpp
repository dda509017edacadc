#include "TestSupport.h"
#include "collectors/engine/EngineMetricsMapper.h"
#include "collectors/engine/PrometheusTextParser.h"
#include "core/stats/TtftBreakdown.h"
#include "simulator/EngineSimulator.h"

#include <QDateTime>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdlib>
#include <curl/curl.h>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

using namespace tierscope;

namespace {

struct Reply {
    long status = 0;
    std::string body;
};

std::size_t append(char* data, std::size_t size, std::size_t n, void* out) {
    static_cast<std::string*>(out)->append(data, size * n);
    return size * n;
}

Reply request(const std::string& url, const std::string& body = {}, bool post = false) {
    Reply reply;
    CURL* curl = curl_easy_init();
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    if (!body.empty() || post)
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 20L);
    curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
    curl_easy_cleanup(curl);
    return reply;
}

std::vector<nlohmann::json> events(const std::string& sse) {
    std::vector<nlohmann::json> out;
    std::size_t at = 0;
    while ((at = sse.find("data: ", at)) != std::string::npos) {
        const auto end = sse.find("\n\n", at);
        const auto payload = sse.substr(at + 6, end - at - 6);
        out.push_back(payload == "[DONE]" ? nlohmann::json("[DONE]")
                                          : nlohmann::json::parse(payload));
        at = end;
    }
    return out;
}

// Every sample's value by name (the simulator has one label set per name).
std::map<std::string, double> counters(const std::string& text) {
    std::map<std::string, double> out;
    for (const auto& s : PrometheusTextParser::parse(text).samples)
        out[s.name] = s.value;
    return out;
}

std::string words(const std::string& stem, int n) {
    std::string out;
    for (int i = 0; i < n; ++i)
        out += stem + std::to_string(i) + " ";
    return out;
}

// What the engine's own histograms say about the interval between two scrapes, through the
// mapper, as the recorder stores it.
TtftBreakdown breakdownOf(const std::vector<Reading>& readings) {
    std::map<std::string, double> r;
    for (const auto& reading : readings)
        r[reading.metric.path] = reading.value;
    auto part = [&](const std::string& name) -> std::optional<TtftBreakdown::Observed> {
        const auto sum = r.find("engine/sim/" + name + "_sum_s");
        const auto count = r.find("engine/sim/" + name + "_count");
        if (sum == r.end() || count == r.end())
            return std::nullopt;
        TtftBreakdown::Observed o{sum->second, count->second};
        const std::string head = "engine/sim/" + name + "_bucket{le=";
        HistogramQuantile::Buckets buckets;
        for (const auto& [path, value] : r)
            if (path.rfind(head, 0) == 0)
                buckets.emplace_back(std::strtod(path.c_str() + head.size(), nullptr), value);
        std::sort(buckets.begin(), buckets.end());
        if (!buckets.empty())
            o.buckets = buckets;
        return o;
    };
    TtftBreakdown b;
    for (const auto& p : TtftBreakdown::parts())
        b.*p.member = part(p.role);
    return b;
}

// Whether an estimate lies in the bucket (lower bound, upper bound] that holds the true value.
bool inBucketOf(const TtftBreakdown::Observed& o, double estimate, double truth) {
    double lower = 0;
    for (const auto& [le, count] : *o.buckets) {
        if (truth <= le)
            return estimate >= lower - 1e-12 && estimate <= le + 1e-12;
        lower = le;
    }
    return false;
}

// The k-th smallest (from 0) of the injected values.
double nth(std::vector<double> values, std::size_t k) {
    std::sort(values.begin(), values.end());
    return values.at(k);
}

} // namespace

class TestEngineSimulator : public QObject {
    Q_OBJECT
  private:
    static EngineSimulator::Options small(const std::string& kvDir) {
        EngineSimulator::Options o;
        o.kvDir = kvDir;
        o.chunkTokens = 4;
        o.kvBytesPerToken = 4096;
        o.decodeTokensPerS = 1000;
        return o;
    }

  private slots:
    void streamsCompletionsWithUsageAndReusesKv() {
        QTemporaryDir kv(QDir::currentPath() + "/kv-XXXXXX");
        EngineSimulator sim(small(kv.path().toStdString()));
        const std::string base = "http://127.0.0.1:" + std::to_string(sim.start());
        const std::string body =
            R"({"model":"m","prompt":"a b c d e f g h i","max_tokens":5,"stream":true,"stream_options":{"include_usage":true}})";
        const auto first = request(base + "/v1/completions", body);
        QCOMPARE(first.status, 200L);
        const auto e = events(first.body);
        QCOMPARE(e.size(), std::size_t(7)); // 5 tokens, usage, [DONE]
        QCOMPARE(e[0]["choices"][0]["text"].get<std::string>(), std::string("tok "));
        QCOMPARE(e[4]["choices"][0]["finish_reason"].get<std::string>(), std::string("length"));
        QCOMPARE(e[5]["usage"]["prompt_tokens"].get<int>(), 9);
        QCOMPARE(e[5]["usage"]["completion_tokens"].get<int>(), 5);
        QCOMPARE(e[6].get<std::string>(), std::string("[DONE]"));
        // Two complete 4-token chunks were computed and written to --kv-dir.
        QTRY_COMPARE(QDir(kv.path()).entryList(QDir::Files).size(), 2);
        // A chunk file exists before its bytes are written: wait for both to be whole.
        auto sizes = [&] {
            QList<qint64> out;
            for (const auto& f : QDir(kv.path()).entryInfoList(QDir::Files))
                out << f.size();
            return out;
        };
        QTRY_COMPARE(sizes(), (QList<qint64>{4 * 4096, 4 * 4096}));

        QCOMPARE(request(base + "/v1/completions", body).status, 200L);
        const auto records = sim.records();
        QCOMPARE(records.size(), std::size_t(2));
        QCOMPARE(records[0].cachedTokens, 0);
        QCOMPARE(records[1].cachedTokens, 8);
        QCOMPARE(records[1].kvBytesRead, std::int64_t(2 * 4 * 4096)); // the chunks were really read
        // TTFT is the sum of its parts, plus the handler's own steps: scheduling noise, which
        // a busy machine can stretch to a good part of a second, but never to a missing part.
        QVERIFY(records[1].ttftS >= records[1].kvReadS + records[1].prefillS);
        QVERIFY(records[1].ttftS <
                records[1].kvReadS + records[1].prefillS + records[1].queueS + 1.0);

        const auto metrics = PrometheusTextParser::parse(request(base + "/metrics").body);
        QCOMPARE(metrics.malformedLines, 0);
        double prompt = 0, hits = 0, ttftCount = 0;
        for (const auto& s : metrics.samples) {
            prompt += s.name == "vllm:prompt_tokens_total" ? s.value : 0;
            hits += s.name == "vllm:prefix_cache_hits_total" ? s.value : 0;
            ttftCount += s.name == "vllm:time_to_first_token_seconds_count" ? s.value : 0;
        }
        QCOMPARE(prompt, 18.0);
        QCOMPARE(hits, 8.0);
        QCOMPARE(ttftCount, 2.0);
    }

  private:
    // Five requests whose 64-token prefix is in --kv-dir, each with 20 new tokens to compute,
    // on a KV tier that reads as fast as the disk and on one paced to 1 MB/s (256 KiB of KV per
    // request: at least 0.25 s). The histograms the simulator serves add up to the parts it
    // injected, and the share of TTFT spent reading KV rises on the slow tier.
    struct Arm {
        TtftBreakdown breakdown;
        std::vector<EngineSimulator::RequestRecord> records;
        std::map<std::string, double> readings; // engine/sim/<what> of the measured interval
    };
    void runArm(double kvReadBytesPerS, Arm& arm, const std::string& connector = "lmcache") {
        QTemporaryDir kv(QDir::currentPath() + "/kv-XXXXXX");
        auto options = small(kv.path().toStdString());
        options.kvBytesPerToken = 4096; // a 4-token chunk is 16 KiB
        options.prefillTokensPerS = 1000;
        options.kvReadBytesPerS = kvReadBytesPerS;
        options.kvConnector = connector;
        EngineSimulator sim(options);
        const std::string base = "http://127.0.0.1:" + std::to_string(sim.start());
        const std::string prefix = words("shared", 64);
        auto send = [&](int i) {
            const nlohmann::json body = {
                {"prompt", prefix + words("q" + std::to_string(i) + "-", 20)},
                {"max_tokens", 2},
                {"stream", true}};
            return request(base + "/v1/completions", body.dump()).status;
        };
        // Computes the prefix and writes its 16 chunks to --kv-dir.
        QCOMPARE(send(-1), 200L);
        QTRY_VERIFY(QDir(kv.path()).entryList(QDir::Files).size() >= 16);
        EngineMetricsMapper mapper("sim", false);
        mapper.update(PrometheusTextParser::parse(request(base + "/metrics").body), 1'000'000'000);
        for (int i = 0; i < 5; ++i)
            QCOMPARE(send(i), 200L);
        const auto readings = mapper.update(
            PrometheusTextParser::parse(request(base + "/metrics").body), 2'000'000'000);
        arm.breakdown = breakdownOf(readings);
        for (const auto& r : readings)
            arm.readings[r.metric.path.substr(std::string("engine/sim/").size())] = r.value;
        arm.records = sim.records();
        arm.records.erase(arm.records.begin()); // the warm-up request, before the first scrape
    }

  private slots:
    void ttftBreakdownAddsUpAndFollowsTheKvTier() {
        Arm fast, slow;
        runArm(0, fast);
        runArm(1e6, slow);
        if (QTest::currentTestFailed())
            return;
        for (const Arm* arm : {&fast, &slow}) {
            const auto& b = arm->breakdown;
            QCOMPARE(arm->records.size(), std::size_t(5));
            QVERIFY(b.ttft && b.queue && b.prefill && b.retrieve);
            QCOMPARE(b.ttft->count, 5.0);
            QCOMPARE(b.retrieve->count, 5.0); // every request read its prefix's KV
            double ttft = 0, queue = 0, kvRead = 0, compute = 0;
            for (const auto& r : arm->records) {
                QCOMPARE(r.cachedTokens, 64);
                QCOMPARE(r.kvBytesRead, std::int64_t(64 * 4096));
                ttft += r.ttftS;
                queue += r.queueS;
                kvRead += r.kvReadS;
                compute += r.prefillS;
            }
            // The served sums are the injected parts (written to the nanosecond).
            QVERIFY(std::abs(b.ttft->sumS - ttft) < 1e-6);
            QVERIFY(std::abs(b.queue->sumS - queue) < 1e-6);
            QVERIFY(std::abs(b.retrieve->sumS - kvRead) < 1e-6);
            // Prefill (admission to first token) holds the KV reads and the compute; queue and
            // prefill add up to TTFT but for the front end's parsing.
            QVERIFY(b.prefill->sumS >= kvRead + compute);
            QVERIFY(*b.otherS() >= 0);
            // The front end's share: scheduling noise only, far below the injected parts.
            QVERIFY2(*b.otherS() < 0.1 * b.ttft->sumS, b.text().c_str());
            // Each part's own p50 and p99 from its buckets: with 5 requests, histogram_quantile
            // lands in the bucket of the 3rd smallest and of the largest injected value.
            std::vector<double> ttfts, queues, reads;
            for (const auto& r : arm->records) {
                ttfts.push_back(r.ttftS);
                queues.push_back(r.queueS);
                reads.push_back(r.kvReadS);
            }
            for (const auto& [part, values] :
                 {std::pair{&b.ttft, &ttfts}, {&b.queue, &queues}, {&b.retrieve, &reads}}) {
                QVERIFY(*part && (*part)->buckets);
                const auto p50 = (*part)->quantile(0.5), p99 = (*part)->quantile(0.99);
                QVERIFY(p50 && p99);
                QVERIFY2(inBucketOf(**part, *p50, nth(*values, 2)), b.quantileText().c_str());
                QVERIFY2(inBucketOf(**part, *p99, nth(*values, 4)), b.quantileText().c_str());
            }
        }
        qInfo("fast tier: %s", fast.breakdown.text().c_str());
        qInfo("slow tier: %s", slow.breakdown.text().c_str());
        qInfo("slow tier: %s", slow.breakdown.quantileText().c_str());
        QVERIFY2(*slow.breakdown.retrievePerRequestS() >= 0.25, slow.breakdown.text().c_str());
        QVERIFY2(*slow.breakdown.storageShare() > *fast.breakdown.storageShare(),
                 (slow.breakdown.text() + " vs " + fast.breakdown.text()).c_str());
    }

    // vLLM's OffloadingConnector (--kv-connector offloading): a request waits deferred while
    // its KV is read from the tier, so the read is a lookup wait inside the queue time, not
    // LMCache's retrieve inside the prefill. The wait, the tier's bytes and the prompt tokens
    // by source the simulator injected come back through the mapper, and the breakdown's
    // parts and residual add up to the engine's mean TTFT with the residual the front end's
    // small share.
    void offloadingConnectorWaitsInTheQueue() {
        Arm arm;
        runArm(1e6, arm, "offloading");
        if (QTest::currentTestFailed())
            return;
        const auto& b = arm.breakdown;
        QVERIFY(b.ttft && b.queue && b.prefill && b.lookupWait);
        QVERIFY(!b.retrieve); // no LMCache here
        QCOMPARE(b.lookupWait->count, 5.0);
        double ttft = 0, queue = 0, kvRead = 0, bytes = 0;
        for (const auto& r : arm.records) {
            ttft += r.ttftS;
            queue += r.queueS;
            kvRead += r.kvReadS;
            bytes += static_cast<double>(r.kvBytesRead);
        }
        QVERIFY(std::abs(b.lookupWait->sumS - kvRead) < 1e-6);
        QVERIFY(std::abs(b.queue->sumS - (queue + kvRead)) < 1e-6);
        QVERIFY(std::abs(b.ttft->sumS - ttft) < 1e-6);
        // Each part is the injected one, per request, and they add up to the mean TTFT.
        QVERIFY(std::abs(*b.storageWaitS() - kvRead / 5) < 1e-6);
        QVERIFY(std::abs(*b.queueLessStorageS() - queue / 5) < 1e-6);
        const double sum =
            *b.queueLessStorageS() + *b.storageWaitS() + *b.prefillComputeS() + *b.residualS();
        QVERIFY(std::abs(sum - *b.meanTtftS()) < 1e-9);
        QVERIFY2(std::abs(*b.residualS()) < 0.1 * *b.meanTtftS(), b.text().c_str());
        QVERIFY2(*b.storageWaitS() >= 0.25, b.text().c_str()); // 256 KiB at 1 MB/s a request
        // The stacked chart's parts are the same numbers.
        QVERIFY(std::abs(arm.readings.at("ttft_part_s{part=storage_wait}") - *b.storageWaitS()) <
                1e-9);
        // The tier's bytes over the interval (1 s apart in the mapper's clock) and the tokens
        // the connector brought in.
        QCOMPARE(arm.readings.at("kv_tier_read_bytes{tier=1:fs}"), bytes);
        QCOMPARE(arm.readings.at("kv_tier_read_bytes_per_s{tier=1:fs}"), bytes);
        QCOMPARE(arm.readings.at("prompt_tokens{source=external_kv_transfer}"), 5.0 * 64);
        QCOMPARE(arm.readings.at("requests_waiting{reason=deferred}"), 0.0); // none at rest
        QVERIFY(!arm.readings.count("lmcache_remote_read_bytes"));
        qInfo("offloading: %s", b.text().c_str());
    }

    // SGLang with HiCache (--kv-connector hicache): every family in SGLang's names. The
    // prompt tokens by source come back from cached_tokens{cache_source} (here all from the
    // storage tier, the rest computed), the reads are HiCache's load back, a storage wait of
    // the TTFT, and with no prefill histogram the residual holds the prefill: the parts still
    // add up to the mean TTFT.
    void hicacheInSglangsNames() {
        Arm arm;
        runArm(1e6, arm, "hicache");
        if (QTest::currentTestFailed())
            return;
        const auto& b = arm.breakdown;
        QVERIFY(b.ttft && b.queue && b.loadBack);
        QVERIFY(!b.prefill && !b.retrieve && !b.lookupWait);
        double kvRead = 0, ttft = 0;
        for (const auto& r : arm.records) {
            kvRead += r.kvReadS;
            ttft += r.ttftS;
        }
        QVERIFY(std::abs(b.loadBack->sumS - kvRead) < 1e-6);
        QVERIFY(std::abs(b.ttft->sumS - ttft) < 1e-6);
        const double sum = *b.queueLessStorageS() + *b.storageWaitS() + *b.residualS();
        QVERIFY(std::abs(sum - *b.meanTtftS()) < 1e-9);
        QVERIFY2(*b.residualS() > 0, b.text().c_str()); // the prefill compute, unexposed
        QCOMPARE(arm.readings.at("prompt_tokens{source=storage_tier}"), 5.0 * 64);
        QCOMPARE(arm.readings.at("prompt_tokens{source=host_tier}"), 0.0);
        QCOMPARE(arm.readings.at("prompt_tokens{source=local_compute}"), 5.0 * 20);
        QVERIFY(arm.readings.count("requests_running"));
        qInfo("hicache: %s", b.text().c_str());
    }

    // LMCache's multi-process server (--kv-connector lmcache-mp) answers on a /metrics of its
    // own: the engine's has no LMCache family, the server's has its lookups, and read through
    // the catalog its hit rate is the tokens the requests found over those they asked for.
    // One engine, two endpoints, as a plan arm's metrics_urls names them.
    void lmcacheServerOnItsOwnPort() {
        QTemporaryDir kv(QDir::currentPath() + "/kv-XXXXXX");
        auto options = small(kv.path().toStdString());
        options.kvConnector = "lmcache-mp";
        EngineSimulator sim(options);
        const std::string base = "http://127.0.0.1:" + std::to_string(sim.start());
        QVERIFY(sim.lmcacheMpPort() > 0);
        const std::string mp =
            "http://127.0.0.1:" + std::to_string(sim.lmcacheMpPort()) + "/metrics";
        const std::string prefix = words("shared", 64);
        auto send = [&](int i) {
            const nlohmann::json body = {
                {"prompt", prefix + words("q" + std::to_string(i) + "-", 20)}, {"max_tokens", 2}};
            return request(base + "/v1/completions", body.dump()).status;
        };
        QCOMPARE(send(-1), 200L);
        QTRY_VERIFY(QDir(kv.path()).entryList(QDir::Files).size() >= 16);
        const std::string engineText = request(base + "/metrics").body;
        QVERIFY(engineText.find("lmcache") == std::string::npos);
        EngineMetricsMapper server("mp", false);
        const auto first =
            server.update(PrometheusTextParser::parse(request(mp).body), 1'000'000'000);
        bool served = false;
        for (const auto& r : first)
            served = served ||
                     (r.metric.path == "engine/mp/served{role=lmcache_hit_tokens}" && r.value == 1);
        QVERIFY(served);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(send(i), 200L);
        std::map<std::string, double> r;
        for (const auto& reading :
             server.update(PrometheusTextParser::parse(request(mp).body), 2'000'000'000))
            r[reading.metric.path] = reading.value;
        double hit = 0, asked = 0;
        auto records = sim.records();
        records.erase(records.begin());
        for (const auto& record : records) {
            hit += record.cachedTokens;
            asked += record.promptTokens;
        }
        QCOMPARE(hit, 3.0 * 64);
        QVERIFY2(std::abs(r.at("engine/mp/lmcache_hit_rate") - hit / asked) < 1e-9,
                 std::to_string(r.at("engine/mp/lmcache_hit_rate")).c_str());
    }

    void chatStreamsRoleFirst() {
        EngineSimulator sim(small({}));
        const std::string base = "http://127.0.0.1:" + std::to_string(sim.start());
        const auto reply = request(
            base + "/v1/chat/completions",
            R"({"messages":[{"role":"user","content":"hello there"}],"max_tokens":3,"stream":true})");
        const auto e = events(reply.body);
        QCOMPARE(e.size(), std::size_t(5)); // role, 3 tokens, [DONE] (no usage unless asked)
        QCOMPARE(e[0]["choices"][0]["delta"]["role"].get<std::string>(), std::string("assistant"));
        QCOMPARE(e[0]["choices"][0]["delta"]["content"].get<std::string>(), std::string(""));
        QCOMPARE(e[1]["choices"][0]["delta"]["content"].get<std::string>(), std::string("tok "));
        QCOMPARE(e[0]["object"].get<std::string>(), std::string("chat.completion.chunk"));
        const auto models = nlohmann::json::parse(request(base + "/v1/models").body);
        QCOMPARE(models["data"][0]["id"].get<std::string>(), std::string("tierscope-sim"));
        QCOMPARE(request(base + "/v1/completions", "not json").status, 400L);
    }

    void queueingBehindTheConcurrencyLimit() {
        auto options = small({});
        options.maxConcurrency = 1;
        options.decodeTokensPerS = 5; // 10 tokens: ~1.8 s per request
        EngineSimulator sim(options);
        const std::string url =
            "http://127.0.0.1:" + std::to_string(sim.start()) + "/v1/completions";
        const std::string body = R"({"prompt":"x","max_tokens":10,"stream":true})";
        auto a = std::async(std::launch::async, [&] { return request(url, body); });
        // The second asks once the first is admitted: it queues for the rest of the first.
        auto running = [&] {
            for (const auto& m : PrometheusTextParser::parse(sim.metricsText()).samples)
                if (m.name == "vllm:num_requests_running")
                    return m.value;
            return -1.0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(running() == 1.0, 30000);
        auto b = std::async(std::launch::async, [&] { return request(url, body); });
        QCOMPARE(a.get().status, 200L);
        QCOMPARE(b.get().status, 200L);
        const auto records = sim.records();
        QCOMPARE(records.size(), std::size_t(2));
        // Queued behind the first's decode (1.8 s); a busy machine may delay the second's
        // send, but not by most of it.
        QVERIFY2(records[1].queueS > 0.5, qPrintable(QString::number(records[1].queueS)));
        QVERIFY(records[1].ttftS >= records[1].queueS);
    }

    // Millions of soak requests must not grow the simulator: it remembers the newest only, and
    // with --close-connections every response ends its connection.
    void remembersTheNewestRequestsAndClosesConnectionsWhenAsked() {
        auto options = small({});
        options.recordLimit = 3;
        options.closeConnections = true;
        EngineSimulator sim(options);
        const std::string url =
            "http://127.0.0.1:" + std::to_string(sim.start()) + "/v1/completions";
        CURL* curl = curl_easy_init();
        std::string body;
        long connects = 0;
        for (int i = 0; i < 5; ++i) {
            curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
            curl_easy_setopt(curl, CURLOPT_POSTFIELDS,
                             R"({"prompt":"a b c","max_tokens":2,"stream":true})");
            curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append);
            curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
            QCOMPARE(curl_easy_perform(curl), CURLE_OK);
            long n = 0;
            curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &n);
            connects += n;
        }
        curl_easy_cleanup(curl);
        QCOMPARE(connects, 5L); // one handle, yet a new connection for every request
        const auto records = sim.records();
        QCOMPARE(records.size(), std::size_t(3));
        QCOMPARE(records.front().id + 2, records.back().id);
        QCOMPARE(records.back().id, std::int64_t(5));
    }

    // vLLM's POST /reset_prefix_cache: without --kv-dir the cache is the engine's memory and is
    // forgotten; with it, the chunks stored there are read back from storage.
    void resetPrefixCacheForgetsWhatTheEngineHoldsInMemory() {
        const std::string body = R"({"model":"m","prompt":"a b c d e f g h i","max_tokens":1})";
        {
            EngineSimulator sim(small(""));
            const std::string base = "http://127.0.0.1:" + std::to_string(sim.start());
            QCOMPARE(request(base + "/v1/completions", body).status, 200L);
            QCOMPARE(request(base + "/v1/completions", body).status, 200L);
            QCOMPARE(request(base + "/reset_prefix_cache", "", true).status, 200L);
            QCOMPARE(request(base + "/v1/completions", body).status, 200L);
            const auto records = sim.records();
            QCOMPARE(records.size(), std::size_t(3));
            QCOMPARE(records[1].cachedTokens, 8);
            QCOMPARE(records[2].cachedTokens, 0); // computed again
            QVERIFY(request(base + "/metrics")
                        .body.find("tierscope_sim:prefix_cache_resets_total{engine=\"0\",model_"
                                   "name=\"tierscope-"
                                   "sim\"} 1") != std::string::npos);
        }
        QTemporaryDir kv(QDir::currentPath() + "/kv-XXXXXX");
        EngineSimulator sim(small(kv.path().toStdString()));
        const std::string base = "http://127.0.0.1:" + std::to_string(sim.start());
        QCOMPARE(request(base + "/v1/completions", body).status, 200L);
        QTRY_COMPARE(QDir(kv.path()).entryList(QDir::Files).size(), 2);
        QCOMPARE(request(base + "/reset_prefix_cache", "", true).status, 200L);
        QCOMPARE(request(base + "/v1/completions", body).status, 200L);
        QCOMPARE(sim.records().back().cachedTokens, 8);
        QCOMPARE(sim.records().back().kvBytesRead, std::int64_t(2 * 4 * 4096));
    }

    // As the Prometheus client libraries' process collector: this process's start, which tells
    // one engine process from another.
    // LMCache's CPU tier: what was stored or read is served from RAM, without a disk read, and
    // a prefix-cache reset does not empty it.
    void aCpuTierInFrontOfTheDiskServesWithoutReads() {
        QTemporaryDir kv(QDir::currentPath() + "/kv-XXXXXX");
        auto options = small(kv.path().toStdString());
        options.cpuKvCapacityTokens = 1000;
        EngineSimulator sim(options);
        const std::string base = "http://127.0.0.1:" + std::to_string(sim.start());
        const std::string body = R"({"prompt":"a b c d e f g h i","max_tokens":2})";
        QCOMPARE(request(base + "/v1/completions", body).status, 200L);
        QCOMPARE(request(base + "/reset_prefix_cache", {}, true).status, 200L);
        QCOMPARE(request(base + "/v1/completions", body).status, 200L);
        const auto records = sim.records();
        QCOMPARE(records[1].cachedTokens, 8);
        QCOMPARE(records[1].kvBytesRead, std::int64_t(0));
        const auto c = counters(request(base + "/metrics").body);
        QCOMPARE(c.at("tierscope_sim:kv_cpu_hit_tokens_total"), 8.0);
        QCOMPARE(c.at("lmcache:num_hit_tokens_total"), 8.0);
        QCOMPARE(c.at("lmcache:num_requested_tokens_total"), 18.0);
        QCOMPARE(c.at("lmcache:num_retrieve_requests_total"), 2.0);
        QCOMPARE(c.at("lmcache:num_remote_read_bytes_total"), 0.0);
        QCOMPARE(c.at("lmcache:local_cache_usage"), 2.0 * 4 * 4096);

        // Without the CPU tier the same prefix is read from --kv-dir, and counted.
        QTemporaryDir kv2(QDir::currentPath() + "/kv-XXXXXX");
        EngineSimulator disk(small(kv2.path().toStdString()));
        const std::string base2 = "http://127.0.0.1:" + std::to_string(disk.start());
        QCOMPARE(request(base2 + "/v1/completions", body).status, 200L);
        QCOMPARE(request(base2 + "/v1/completions", body).status, 200L);
        QCOMPARE(disk.records()[1].kvBytesRead, std::int64_t(2 * 4 * 4096));
        const auto d = counters(request(base2 + "/metrics").body);
        QCOMPARE(d.at("lmcache:num_remote_read_bytes_total"), 2.0 * 4 * 4096);
        QCOMPARE(d.at("tierscope_sim:kv_cpu_hit_tokens_total"), 0.0);
        QCOMPARE(d.at("lmcache:local_storage_usage"), 2.0 * 4 * 4096);
    }

    // The KV route the simulator served under vLLM's names comes back through the engine
    // metric catalog as exactly what it did: 8 of 9 prompt tokens through the connector, read
    // from --kv-dir as 2 chunks of 4 tokens of 4,096 bytes.
    void theKvRouteComesBackThroughTheCatalog() {
        QTemporaryDir kv(QDir::currentPath() + "/kv-XXXXXX");
        EngineSimulator sim(small(kv.path().toStdString()));
        const std::string base = "http://127.0.0.1:" + std::to_string(sim.start());
        const std::string body = R"({"prompt":"a b c d e f g h i","max_tokens":2})";
        QCOMPARE(request(base + "/v1/completions", body).status, 200L);
        EngineMetricsMapper mapper("sim", false, EngineMetricCatalog::shipped());
        mapper.update(PrometheusTextParser::parse(request(base + "/metrics").body),
                      10'000'000'000LL);
        QCOMPARE(request(base + "/v1/completions", body).status, 200L);
        std::map<std::string, double> r;
        for (const auto& reading : mapper.update(
                 PrometheusTextParser::parse(request(base + "/metrics").body), 20'000'000'000LL))
            r[reading.metric.path] = reading.value;
        QCOMPARE(r.at("engine/sim/prompt_tokens{source=external_kv_transfer}"), 8.0);
        QCOMPARE(r.at("engine/sim/prompt_tokens{source=local_compute}"), 1.0);
        QCOMPARE(r.at("engine/sim/prompt_tokens_share{source=external_kv_transfer}"), 8.0 / 9);
        QCOMPARE(r.at("engine/sim/kv_tier_read_bytes{tier=1:fs}"), 2.0 * 4 * 4096);
        QCOMPARE(r.at("engine/sim/kv_tier_read_bytes_per_s{tier=1:fs}"), 2.0 * 4 * 4096 / 10);
        const auto& served = mapper.coverage().at(0).served;
        QVERIFY(std::find(served.begin(), served.end(), "kv_tier_read_bytes") != served.end());
    }

    // Prefill far faster than any read: once a read has been timed, cached chunks are
    // recomputed instead, and the simulator says so.
    void recomputeFallbackSkipsReadsSlowerThanPrefill() {
        QTemporaryDir kv(QDir::currentPath() + "/kv-XXXXXX");
        auto options = small(kv.path().toStdString());
        options.recomputeFallback = true;
        options.prefillTokensPerS = 1e12;
        EngineSimulator sim(options);
        const std::string base = "http://127.0.0.1:" + std::to_string(sim.start());
        const std::string body = R"({"prompt":"a b c d e f g h i","max_tokens":2})";
        for (int i = 0; i < 3; ++i)
            QCOMPARE(request(base + "/v1/completions", body).status, 200L);
        const auto records = sim.records();
        QCOMPARE(records[1].kvBytesRead, std::int64_t(2 * 4 * 4096)); // the read that is timed
        QCOMPARE(records[2].kvBytesRead, std::int64_t(0));
        QCOMPARE(records[2].cachedTokens, 0); // recomputed
        const auto c = counters(request(base + "/metrics").body);
        QCOMPARE(c.at("tierscope_sim:kv_recomputed_tokens_total"), 8.0);
        QCOMPARE(c.at("lmcache:num_hit_tokens_total"), 8.0); // the one real retrieval
    }

    void metricsSayWhenTheProcessStarted() {
        const double before = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000;
        EngineSimulator sim(small(""));
        const std::string base = "http://127.0.0.1:" + std::to_string(sim.start());
        const auto metrics = PrometheusTextParser::parse(request(base + "/metrics").body);
        QCOMPARE(metrics.malformedLines, 0);
        QCOMPARE(metrics.typeOf("process_start_time_seconds"), std::string("gauge"));
        std::optional<double> start;
        for (const auto& s : metrics.samples)
            if (s.name == "process_start_time_seconds")
                start = s.value;
        QVERIFY(start);
        // The process's start (this test's), not the simulator's construction; and recent.
        QVERIFY2(*start < before, qPrintable(QString::number(*start, 'f', 2)));
        QVERIFY2(*start > before - 3600, qPrintable(QString::number(*start, 'f', 2)));
    }

    void injectedFaults() {
        auto options = small({});
        options.errorRate = 1.0;
        EngineSimulator failing(options);
        const std::string a = "http://127.0.0.1:" + std::to_string(failing.start());
        QCOMPARE(request(a + "/v1/completions", R"({"prompt":"x","stream":true})").status, 500L);

        options.errorRate = 0;
        options.disconnectRate = 1.0;
        EngineSimulator dropping(options);
        const std::string b = "http://127.0.0.1:" + std::to_string(dropping.start());
        const auto cut =
            request(b + "/v1/completions", R"({"prompt":"x","max_tokens":8,"stream":true})");
        QVERIFY(cut.body.find("[DONE]") == std::string::npos);
        QVERIFY(events(cut.body).size() < 8);
        QCOMPARE(dropping.records().at(0).fault, std::string("disconnect"));
    }
};

QTEST_GUILESS_MAIN(TestEngineSimulator)
#include "tst_enginesimulator.moc"
