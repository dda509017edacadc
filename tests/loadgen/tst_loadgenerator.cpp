#include "SseTestServer.h"
#include "TestSupport.h"
#include "loadgen/Datasets.h"
#include "simulator/EngineSimulator.h"
#include "loadgen/LoadGenerator.h"
#include "core/stats/LoadSummary.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <map>
#include <numeric>
#include <thread>

using namespace tierscope;

namespace {

using Sse = test::SseTestServer;

std::vector<Conversation> prompts(std::initializer_list<const char*> tags, int maxTokens = 64) {
    std::vector<Conversation> out;
    for (const char* tag : tags)
        out.push_back({"", {tag}, {maxTokens}});
    return out;
}

bool asks(const std::string& body, const char* prompt) {
    return body.find("\"prompt\":\"" + std::string(prompt) + "\"") != std::string::npos;
}

// A quick complete stream: one token chunk at 0 ms, one at `lastMs`, usage, [DONE].
Sse::Reply quick(int lastMs, std::string tag = {}) {
    Sse::Reply r;
    r.tag = std::move(tag);
    r.events = {{0, Sse::textChunk("a")},
                {lastMs, Sse::textChunk("b")},
                {lastMs, Sse::usageChunk(4, 2)},
                {lastMs, Sse::done()}};
    return r;
}

// Seconds from the first measured send to the last measured end, from the records alone.
double measuredSpan(const std::vector<RequestRecord>& records) {
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    double last = 0;
    for (const auto& r : records) {
        first = std::min(first, r.sendNs);
        last = std::max(last, static_cast<double>(r.sendNs) + *r.e2eS * 1e9);
    }
    return (last - static_cast<double>(first)) / 1e9;
}

} // namespace

// The load generator against the engine simulator and scripted SSE servers on loopback.
class TestLoadGenerator : public QObject {
    Q_OBJECT
  private:
    // The TTFT the simulator injected, by the response id the client saw.
    static std::map<std::string, double> injectedTtfts(const EngineSimulator& simulator) {
        std::map<std::string, double> out;
        for (const auto& r : simulator.records())
            out["cmpl-" + std::to_string(r.id)] = r.ttftS;
        return out;
    }

    // One complete measurement: 1024 streamed requests at concurrency 64 (after 128 warm-up
    // requests that open the connections); returns |client TTFT - injected TTFT| per request.
    std::vector<double> measureTtftErrors() {
        EngineSimulator::Options sim;
        sim.maxConcurrency = 64;
        sim.prefillTokensPerS = 20000; // 100-400 words: 5-20 ms of prefill
        sim.decodeTokensPerS = 50;     // a realistic per-stream decode speed
        EngineSimulator simulator(sim);
        WallClock clock;
        LoadGenerator::Options o;
        o.url = "http://127.0.0.1:" + std::to_string(simulator.start());
        o.model = "tierscope-sim";
        o.concurrency = 64;
        o.requests = 1024;
        o.warmup = 128;
        LoadGenerator generator(o, Datasets::synthetic(1152, 100, 400, 16, 3), clock);
        const auto records = generator.run();
        if (records.size() != 1024)
            qFatal("expected 1024 records, got %zu", records.size());
        const auto injected = injectedTtfts(simulator);
        std::vector<double> errors;
        for (const auto& r : records) {
            if (!r.ok() || r.outputTokens.value_or(0) != 16 || r.itlS.size() != 15)
                qFatal("request %lld: %s", static_cast<long long>(r.index), r.error.c_str());
            errors.push_back(std::abs(*r.ttftS - injected.at(r.responseId)));
        }
        const auto summary =
            LoadSummary::compute(records, generator.durationS(), generator.maxConcurrent());
        if (summary["completed"].get<long>() != 1024 || generator.maxConcurrent() != 64)
            qFatal("summary does not add up");
        qInfo("concurrency 64: |client TTFT - injected TTFT| p50 %.3f ms, p99 %.3f ms",
              LoadSummary::percentile(errors, 50) * 1e3, LoadSummary::percentile(errors, 99) * 1e3);
        return errors;
    }

    // The rate-mode run: 1000 requests at 200/s; returns each request's send lateness.
    std::vector<double> measureSendLateness() {
        EngineSimulator::Options sim;
        sim.decodeTokensPerS = 500;
        EngineSimulator simulator(sim);
        WallClock clock;
        LoadGenerator::Options o;
        o.url = "http://127.0.0.1:" + std::to_string(simulator.start());
        o.model = "m";
        o.rate = 200;
        o.requests = 1000;
        o.seed = 11;
        LoadGenerator generator(o, Datasets::synthetic(50, 20, 40, 4, 5), clock);
        const auto records = generator.run();
        if (records.size() != 1000)
            qFatal("expected 1000 records, got %zu", records.size());
        std::vector<std::int64_t> scheduled, sent;
        std::vector<double> lateness;
        for (const auto& r : records) {
            if (!r.ok() || *r.ttftScheduledS < *r.ttftS)
                qFatal("request %lld: %s", static_cast<long long>(r.index), r.error.c_str());
            scheduled.push_back(r.scheduledNs);
            sent.push_back(r.sendNs);
            lateness.push_back(static_cast<double>(r.sendNs - r.scheduledNs) / 1e9);
        }
        std::sort(scheduled.begin(), scheduled.end());
        std::sort(sent.begin(), sent.end());
        const double scheduledRate =
            999.0 / (static_cast<double>(scheduled.back() - scheduled.front()) / 1e9);
        const double sentRate = 999.0 / (static_cast<double>(sent.back() - sent.front()) / 1e9);
        qInfo("rate 200/s requested: scheduled %.1f/s, sent %.1f/s, p99 send lateness %.2f ms",
              scheduledRate, sentRate, LoadSummary::percentile(lateness, 99) * 1e3);
        if (std::abs(sentRate / 200.0 - 1.0) >= 0.05)
            qFatal("sent %.1f requests/s, asked for 200", sentRate);
        return lateness;
    }

  private slots:
    void ttftAgreesWithTheInjectedTtftAtConcurrency64() {
        // A shared 2-core VM now and then stalls for a few ms, which delays every in-flight
        // stream at once and moves p99 of one run; each attempt is a full, independent
        // measurement, and one of three must meet the bound.
#ifdef TIERSCOPE_SANITIZED
        // The simulator's 96 threads and the client share two cores here, and ASan slows them
        // all: a request now and then reaches the simulator's handler tens of ms after it was
        // sent, in bursts of a few dozen. The 2 ms p99 is held by the optimised build in the
        // same CI run; here the median is held to 5 ms.
        constexpr double percentile = 50, bound = 0.005;
#else
        constexpr double percentile = 99, bound = 0.002;
#endif
        double best = 1e9;
        for (int attempt = 0; attempt < 3 && best >= bound; ++attempt)
            best = std::min(best, LoadSummary::percentile(measureTtftErrors(), percentile));
        QVERIFY2(best < bound,
                 qPrintable(QString("best p%1 error %2 ms").arg(percentile).arg(best * 1e3)));
    }

    // The client stops for 30 ms now and then (a slow sink, a stalled core): first tokens that
    // arrive meanwhile wait in their sockets. They are timed by the kernel's receive
    // timestamps, so the stall is not counted as the server's TTFT. Stalls are 100 ms apart
    // and the next token comes 50 ms after the first: TCP merges data queued behind a chunk
    // into one timestamp, the newest, so a stall longer than a token gap would show.
    void aStalledClientDoesNotAddItsStallToTtft() {
        EngineSimulator::Options sim;
        sim.prefillTokensPerS = 2000; // TTFT 50-200 ms: many first tokens fall in a stall
        sim.decodeTokensPerS = 20;
        EngineSimulator simulator(sim);
        WallClock clock;
        LoadGenerator::Options o;
        o.url = "http://127.0.0.1:" + std::to_string(simulator.start());
        o.model = "tierscope-sim";
        o.rate = 60; // requests go out on a clock, not as others finish
        o.requests = 192;
        o.warmup = 16;
        LoadGenerator generator(o, Datasets::synthetic(208, 100, 400, 8, 3), clock);
        std::vector<RequestRecord> records;
        std::vector<std::pair<std::int64_t, std::int64_t>> stalls; // wall ns
        generator.run([&](RequestRecord&& r) {
            records.push_back(std::move(r));
            if (!stalls.empty() && clock.nowNs() - stalls.back().second < 100'000'000)
                return;
            const std::int64_t from = clock.nowNs();
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
            stalls.push_back({from, clock.nowNs()});
        });
        QCOMPARE(records.size(), std::size_t(192));
        const auto injected = injectedTtfts(simulator);
        std::vector<double> errors;
        int caught = 0; // first tokens that came while the client stood still
        for (const auto& r : records) {
            QVERIFY2(r.ok(), r.error.c_str());
            const double ttft = injected.at(r.responseId);
            errors.push_back(std::abs(*r.ttftS - ttft));
            const auto firstToken = r.sendNs + static_cast<std::int64_t>(ttft * 1e9);
            for (const auto& [from, to] : stalls)
                caught += firstToken > from + 1'000'000 && firstToken < to - 1'000'000;
        }
        const double p90 = LoadSummary::percentile(errors, 90);
        qInfo("%d first tokens arrived during %zu stalls of 30 ms: |client TTFT - injected "
              "TTFT| p50 %.3f ms, p90 %.3f ms, max %.3f ms",
              caught, stalls.size(), LoadSummary::percentile(errors, 50) * 1e3, p90 * 1e3,
              *std::max_element(errors.begin(), errors.end()) * 1e3);
        QVERIFY2(caught >= 20, "too few first tokens met a stall: the test proves nothing");
#ifdef TIERSCOPE_SANITIZED
        // The sanitizers slow the client's own loop (p90 about 1.5 ms here against 0.7 ms);
        // without the timestamps p90 is 14 ms or more. The dev build holds 3 ms.
        constexpr double bound = 0.008;
#else
        constexpr double bound = 0.003;
#endif
        QVERIFY2(p90 < bound, qPrintable(QString("p90 error %1 ms").arg(p90 * 1e3)));
    }

    void rateModeKeepsToItsSchedule() {
        // One of three independent runs must meet the bound (a VM stall of 50 ms makes ten
        // requests late at once). Under the sanitizers the loop is about ten times slower.
#ifdef TIERSCOPE_SANITIZED
        constexpr double bound = 0.015;
#else
        constexpr double bound = 0.005;
#endif
        double best = 1e9;
        for (int attempt = 0; attempt < 3 && best >= bound; ++attempt)
            best = std::min(best, LoadSummary::percentile(measureSendLateness(), 99));
        QVERIFY2(best < bound, qPrintable(QString("best p99 lateness %1 ms").arg(best * 1e3)));
    }

    void faultsAreRecordedPerRequest() {
        EngineSimulator::Options sim;
        sim.errorRate = 0.2;
        sim.disconnectRate = 0.2;
        sim.stallRate = 0.25;
        sim.stallMs = 3000;
        sim.decodeTokensPerS = 500;
        sim.seed = 5;
        EngineSimulator simulator(sim);
        WallClock clock;
        LoadGenerator::Options o;
        o.url = "http://127.0.0.1:" + std::to_string(simulator.start());
        o.model = "m";
        o.concurrency = 16;
        o.requests = 80;
        o.requestTimeout = std::chrono::milliseconds(1000);
        LoadGenerator generator(o, Datasets::synthetic(10, 10, 20, 16, 2), clock);
        const auto records = generator.run();
        QCOMPARE(records.size(), std::size_t(80)); // the run completes; nothing is lost
        int http500 = 0, cut = 0, timeouts = 0, ok = 0;
        for (const auto& r : records) {
            ok += r.ok() ? 1 : 0;
            http500 += r.httpStatus == 500 ? 1 : 0;
            cut += r.error.find("without [DONE]") != std::string::npos ||
                           r.error.find("Transferred a partial file") != std::string::npos
                       ? 1
                       : 0;
            timeouts += r.error.find("Timeout") != std::string::npos ? 1 : 0;
            if (!r.ok())
                QVERIFY(!r.error.empty());
        }
        qInfo("80 requests: %d ok, %d HTTP 500, %d cut mid-stream, %d timed out", ok, http500, cut,
              timeouts);
        QVERIFY(http500 > 0 && cut > 0 && timeouts > 0 && ok > 0);
        QCOMPARE(ok + http500 + cut + timeouts, 80);
    }

    // vLLM's parity case, shortened: 100 ms of prefill, then 50 reasoning and 10 answer tokens
    // 10 ms apart. vLLM's client counts reasoning chunks as tokens: TTFT is the prefill and
    // TPOT the decode gap. A role-only chunk is no token, wherever the server puts it: sent
    // before the prefill (the first request) or with the first token as vLLM and SGLang do.
    void reasoningChunksAreTokens() {
        std::atomic<int> served{0};
        Sse server([&](const std::string&) {
            const bool first = served++ == 0;
            const std::string field = first ? "reasoning_content" : "reasoning";
            Sse::Reply r;
            r.events.push_back({first ? 0 : 100, Sse::roleChunk()});
            for (int i = 0; i < 50; ++i)
                r.events.push_back({100 + 10 * i, Sse::deltaChunk(field, "t")});
            for (int i = 0; i < 10; ++i)
                r.events.push_back(
                    {600 + 10 * i, Sse::deltaChunk("content", "a", i == 9 ? "stop" : nullptr)});
            r.events.push_back({690, Sse::usageChunk(12, 60)});
            r.events.push_back({690, Sse::done()});
            return r;
        });
        WallClock clock;
        LoadGenerator::Options o;
        o.url = server.url();
        o.model = "m";
        o.api = "chat";
        o.concurrency = 2;
        o.requests = 2;
        LoadGenerator generator(o, prompts({"q"}), clock);
        const auto records = generator.run();
        QCOMPARE(records.size(), std::size_t(2));
        for (const auto& r : records) {
            QVERIFY2(r.ok(), r.error.c_str());
            QCOMPARE(r.outputTokens.value_or(0), 60);
            QCOMPARE(r.itlS.size(), std::size_t(59)); // one gap per token chunk after the first
            const double tpot = (*r.e2eS - *r.ttftS) / 59;
            qInfo("TTFT %.1f ms, TPOT %.2f ms", *r.ttftS * 1e3, tpot * 1e3);
            // Bounds wide enough for a busy machine; the old reading gave 600 ms and 1.7 ms.
            QVERIFY2(*r.ttftS >= 0.099 && *r.ttftS < 0.3, qPrintable(QString::number(*r.ttftS)));
            QVERIFY2(tpot > 0.007 && tpot < 0.014, qPrintable(QString::number(tpot)));
        }
        const auto s = LoadSummary::compute(records, generator.durationS(), 2);
        QCOMPARE(s["total_output_tokens"].get<long>(), 120L);
        QVERIFY(s["mean_ttft_ms"].get<double>() < 300);
        QVERIFY(s["mean_tpot_ms"].get<double>() > 7 && s["mean_tpot_ms"].get<double>() < 14);
    }

    // max_tokens runs out while the model still reasons: no answer text at all, and still a
    // successful request (vLLM counts it one).
    void aStreamOfReasoningOnlySucceeds() {
        Sse server([](const std::string&) {
            Sse::Reply r;
            r.events = {{0, Sse::roleChunk()},
                        {0, Sse::deltaChunk("reasoning_content", "hmm")},
                        {5, Sse::deltaChunk("reasoning_content", "so", "length")},
                        {5, Sse::usageChunk(7, 2)},
                        {5, Sse::done()}};
            return r;
        });
        WallClock clock;
        LoadGenerator::Options o;
        o.url = server.url();
        o.model = "m";
        o.api = "chat";
        o.concurrency = 1;
        o.requests = 2;
        const auto records = LoadGenerator(o, prompts({"q"}), clock).run();
        QCOMPARE(records.size(), std::size_t(2));
        for (const auto& r : records) {
            QVERIFY2(r.ok(), r.error.c_str());
            QVERIFY(r.ttftS);
            QCOMPARE(r.itlS.size(), std::size_t(1));
            QCOMPARE(*r.outputTokens, 2);
            QCOMPARE(*r.promptTokens, 7);
        }
    }

    // A server that packs two tokens into each chunk and sends no usage: the token count is
    // unknown, not the number of chunks, and nothing derived from it is reported.
    void withoutUsageTokenCountsAreAbsent() {
        Sse server([](const std::string&) {
            Sse::Reply r;
            for (int i = 0; i < 5; ++i)
                r.events.push_back({2 * i, Sse::textChunk("ab")});
            r.events.push_back({10, Sse::done()});
            return r;
        });
        WallClock clock;
        LoadGenerator::Options o;
        o.url = server.url();
        o.model = "m";
        o.concurrency = 3;
        o.requests = 3;
        LoadGenerator generator(o, prompts({"q"}), clock);
        const auto records = generator.run();
        QCOMPARE(records.size(), std::size_t(3));
        for (const auto& r : records) {
            QVERIFY2(r.ok(), r.error.c_str());
            QVERIFY2(!r.outputTokens, "chunks are not tokens");
            QVERIFY(!r.promptTokens);
            QCOMPARE(r.itlS.size(), std::size_t(4)); // gaps between chunks, as vLLM's client
        }
        const auto s = LoadSummary::compute(records, generator.durationS(), 3);
        QCOMPARE(s["completed"].get<long>(), 3L);
        for (const char* key : {"total_output_tokens", "output_throughput", "total_input_tokens",
                                "total_token_throughput", "mean_tpot_ms", "p99_tpot_ms"})
            QVERIFY2(s.at(key).is_null(), key);
        QCOMPARE(s["requests_without_output_tokens"].get<long>(), 3L);
        QVERIFY(s["request_throughput"].is_number());
        QVERIFY(s["mean_itl_ms"].is_number());
    }

    // A request's end is the receive time of its own last data. Here the client stands still
    // (a slow sink) while A's stream ends and, 150 ms later, B sends a chunk; when the client
    // resumes, both sockets are ready in one turn, and A must not be stamped with B's time.
    void e2eIsStampedByItsOwnSocket() {
        Sse server([](const std::string& body) {
            Sse::Reply r;
            if (asks(body, "C"))
                return quick(100, "C");
            if (asks(body, "A"))
                return quick(200, "A");
            r.tag = "B";
            r.events = {{0, Sse::textChunk("a")},
                        {350, Sse::textChunk("b")},
                        {600, Sse::usageChunk(4, 2)},
                        {600, Sse::done()}};
            return r;
        });
        WallClock clock;
        LoadGenerator::Options o;
        o.url = server.url();
        o.model = "m";
        o.concurrency = 3;
        o.requests = 3;
        LoadGenerator generator(o, prompts({"C", "A", "B"}), clock);
        std::vector<RequestRecord> records;
        generator.run([&](RequestRecord&& r) {
            if (r.index == 0) // C, the first to end: stall past A's end and B's chunk
                std::this_thread::sleep_for(std::chrono::milliseconds(450));
            records.push_back(std::move(r));
        });
        QCOMPARE(records.size(), std::size_t(3));
        const auto ended = server.ended();
        const auto a = std::find_if(records.begin(), records.end(),
                                    [](const RequestRecord& r) { return r.index == 1; });
        QVERIFY(a != records.end() && a->ok() && ended.count("A"));
        const double clientEnd = static_cast<double>(a->sendNs) + *a->e2eS * 1e9;
        const double serverEnd = static_cast<double>(clock.toWallNs(ended.at("A")));
        const double errorMs = (clientEnd - serverEnd) / 1e6;
        qInfo("A ended at the server %.2f ms before the client's stamp", errorMs);
        QVERIFY2(std::abs(errorMs) < 75, qPrintable(QString::number(errorMs))); // B's: 150
    }

    // vLLM starts its clock after the warm-ups: one warm-up before 8 requests must not make
    // every throughput 11 % low. The duration is exactly the measured requests' span.
    void throughputClockStartsAtTheFirstMeasuredSend() {
        Sse server([](const std::string&) { return quick(50); });
        WallClock clock;
        LoadGenerator::Options o;
        o.url = server.url();
        o.model = "m";
        o.concurrency = 1;
        o.requests = 8;
        o.warmup = 1;
        LoadGenerator generator(o, prompts({"q"}), clock);
        const auto records = generator.run();
        QCOMPARE(records.size(), std::size_t(8));
        QCOMPARE(server.requests(), 9);
        const double span = measuredSpan(records);
        qInfo("duration %.4f s, measured span %.4f s", generator.durationS(), span);
        QVERIFY2(std::abs(generator.durationS() - span) < 1e-3,
                 qPrintable(QString::number(generator.durationS())));
        const auto s = LoadSummary::compute(records, generator.durationS(), 1);
        QCOMPARE(s["request_throughput"].get<double>(), 8.0 / generator.durationS());
    }

    // ... and a warm-up that ends after the last measured request does not extend it.
    void warmUpCompletionsDoNotExtendTheClock() {
        Sse server([](const std::string& body) { return quick(asks(body, "slow") ? 400 : 50); });
        WallClock clock;
        LoadGenerator::Options o;
        o.url = server.url();
        o.model = "m";
        o.concurrency = 2;
        o.requests = 2;
        o.warmup = 1; // the first request issued: the "slow" prompt
        LoadGenerator generator(o, prompts({"slow", "fast", "fast"}), clock);
        const auto records = generator.run();
        QCOMPARE(records.size(), std::size_t(2));
        const double span = measuredSpan(records);
        qInfo("duration %.4f s, measured span %.4f s", generator.durationS(), span);
        QVERIFY(span < 0.35);
        QVERIFY2(std::abs(generator.durationS() - span) < 1e-3,
                 qPrintable(QString::number(generator.durationS())));
    }

    // The peak counts measured requests only: four warm-ups fill the limit of 4, then one
    // measured request runs alone.
    void peakConcurrencyCountsMeasuredRequests() {
        Sse server([](const std::string&) { return quick(20); });
        WallClock clock;
        LoadGenerator::Options o;
        o.url = server.url();
        o.model = "m";
        o.concurrency = 4;
        o.requests = 1;
        o.warmup = 4;
        LoadGenerator generator(o, prompts({"q"}), clock);
        QCOMPARE(generator.run().size(), std::size_t(1));
        QCOMPARE(server.requests(), 5);
        QCOMPARE(generator.maxConcurrent(), 1);
    }

    void onlyHttpUrlsAndWellFormedConversations() {
        WallClock clock;
        LoadGenerator::Options o;
        o.model = "m";
        o.concurrency = 1;
        o.requests = 1;
        for (const char* url : {"file:///etc/passwd", "gopher://127.0.0.1:70/", "dict://x/",
                                "ftp://127.0.0.1/", "127.0.0.1:8000", "http://"}) {
            o.url = url;
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                     LoadGenerator(o, prompts({"q"}), clock));
        }
        QVERIFY(LoadGenerator::httpUrl("HTTPS://host:8000"));
        QVERIFY(LoadGenerator::httpUrl("http://u:p@host/v1/completions"));
        o.url = "http://127.0.0.1:1";
        // A conversation of no rounds (--rounds 0) once crashed the generator.
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 LoadGenerator(o, {Conversation{"sys", {}, {}}}, clock));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 LoadGenerator(o, {Conversation{"", {"q"}, {}}}, clock));
    }

    void passwordsAreRedacted() {
        QCOMPARE(LoadGenerator::redacted("http://user:s3cret@host:8000/v1/completions"),
                 std::string("http://host:8000/v1/completions"));
        QCOMPARE(LoadGenerator::redacted("https://a%40b:p@ss@host"), std::string("https://host"));
        QCOMPARE(LoadGenerator::redacted("http://host:8000/path@x"),
                 std::string("http://host:8000/path@x"));
        QCOMPARE(LoadGenerator::redacted("http://host?q=a@b"), std::string("http://host?q=a@b"));
        QCOMPARE(LoadGenerator::redacted("http://host"), std::string("http://host"));
        LoadGenerator::Options o;
        o.url = "http://u:pw@127.0.0.1:9";
        o.model = "m";
        o.concurrency = 1;
        o.requests = 1;
        WallClock clock;
        const LoadGenerator generator(o, prompts({"q"}), clock);
        QCOMPARE(generator.displayEndpoint(), std::string("http://127.0.0.1:9/v1/completions"));
        QCOMPARE(generator.endpoint(), std::string("http://u:pw@127.0.0.1:9/v1/completions"));
    }

    void chatApiAndMultiRoundHistory() {
        EngineSimulator::Options sim;
        sim.chunkTokens = 16;
        sim.kvBytesPerToken = 64;
        sim.decodeTokensPerS = 1000;
        EngineSimulator simulator(sim);
        WallClock clock;
        LoadGenerator::Options o;
        o.url = "http://127.0.0.1:" + std::to_string(simulator.start());
        o.model = "m";
        o.api = "chat";
        o.concurrency = 2;
        o.requests = 6;
        LoadGenerator generator(o, Datasets::sharedPrefix(2, 64, 3, 8, 4, 9), clock);
        const auto records = generator.run();
        QCOMPARE(records.size(), std::size_t(6));
        for (const auto& r : records)
            QVERIFY2(r.ok(), r.error.c_str());
        // Later rounds carry the history, so their prompts grow and hit the prefix cache.
        const auto sims = simulator.records();
        int maxPrompt = 0, maxCached = 0;
        for (const auto& s : sims) {
            maxPrompt = std::max(maxPrompt, s.promptTokens);
            maxCached = std::max(maxCached, s.cachedTokens);
        }
        QVERIFY(maxPrompt > 64 + 12 + 8);
        QVERIFY(maxCached >= 64);
    }
};

QTEST_GUILESS_MAIN(TestLoadGenerator)
#include "tst_loadgenerator.moc"
