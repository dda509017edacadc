#include "TestSupport.h"
#include "loadgen/TraceSchedule.h"

#include <QTemporaryDir>
#include <fstream>
#include <sstream>

using namespace tierscope;

namespace {

using ms = std::chrono::milliseconds;

std::string fixture(const char* name) {
    return std::string(TIERSCOPE_FIXTURES) + "/" + name;
}

std::size_t wordCount(const std::string& text) {
    std::istringstream in(text);
    std::size_t n = 0;
    for (std::string w; in >> w;)
        ++n;
    return n;
}

std::vector<RequestSchedule::Request> drain(TraceSchedule& s) {
    std::vector<RequestSchedule::Request> out;
    while (auto r = s.next())
        out.push_back(std::move(*r));
    return out;
}

TraceSchedule::Options mooncake() {
    TraceSchedule::Options o;
    o.path = fixture("mooncake/mooncake_trace-fast25-layout.jsonl");
    o.format = "mooncake";
    return o;
}

// A Mooncake-layout line.
std::string line(long long ms, int input, int output = 4) {
    return "{\"timestamp\": " + std::to_string(ms) +
           ", \"input_length\": " + std::to_string(input) +
           ", \"output_length\": " + std::to_string(output) + ", \"hash_ids\": []}\n";
}

} // namespace

// A trace as a schedule: offsets from its first request times the scale, --start-at and
// --max-requests, out-of-order lines, what is not sent and why, and a bounded read-ahead.
class TestTraceSchedule : public QObject {
    Q_OBJECT
  private slots:
    void offsetsFollowTheTrace() {
        TraceSchedule s(mooncake());
        const auto requests = drain(s);
        // The fixture's six well-formed lines, at 0, 0, 1.5, 3, 4.521 and 7.4 s.
        QCOMPARE(requests.size(), std::size_t(6));
        const std::vector<long long> at = {0, 0, 1500, 3000, 4521, 7400};
        for (std::size_t i = 0; i < at.size(); ++i)
            QCOMPARE(requests[i].offset, std::chrono::nanoseconds(ms(at[i])));
        QCOMPARE(requests[0].conversation.questions.size(), std::size_t(1));
        QCOMPARE(wordCount(requests[0].conversation.questions[0]), std::size_t(1200));
        QCOMPARE(requests[0].conversation.maxTokens[0], 12);
        QVERIFY(requests[0].conversation.system.empty());
        // output_length 0 (line 5): max_tokens 1, counted.
        QCOMPARE(requests[3].conversation.maxTokens[0], 1);
        const auto report = s.report();
        QCOMPARE(report["scheduled"].get<long long>(), 6LL);
        QCOMPARE(report["malformed"].get<long long>(), 5LL);
        QCOMPARE(report["malformed_lines"].size(), std::size_t(5));
        QCOMPARE(report["malformed_lines"][0]["line"].get<long long>(), 4LL);
        QCOMPARE(report["zero_output_sent_as_1"].get<long long>(), 1LL);
        QCOMPARE(report["schedule_span_s"].get<double>(), 7.4);
        const auto line = s.describe();
        QVERIFY2(line.find("6 requests scheduled over 7.4 s from 12 lines read; 5 malformed lines "
                           "skipped: line 4 (not a JSON object), line 6 (") != std::string::npos,
                 line.c_str());
    }

    void scaleStartAndMaximum() {
        auto o = mooncake();
        o.timeScale = 0.5; // twice as fast
        o.startAtS = 1.0;  // the two requests at 0 are before it
        o.maxRequests = 3; // 1.5 s, 3 s, 4.521 s of the trace
        TraceSchedule s(o);
        const auto requests = drain(s);
        QCOMPARE(requests.size(), std::size_t(3));
        QCOMPARE(requests[0].offset, std::chrono::nanoseconds(ms(250)));       // (1.5 - 1) x 0.5
        QCOMPARE(requests[1].offset, std::chrono::nanoseconds(ms(1000)));      // (3 - 1) x 0.5
        QCOMPARE(requests[2].offset, std::chrono::nanoseconds(1'760'500'000)); // 3.521 x 0.5
        QCOMPARE(s.report()["skipped_before_start"].get<long long>(), 2LL);
        QVERIFY(s.describe().find("(time scale 0.5)") != std::string::npos);
    }

    void whatIsNotSentIsCounted() {
        TraceSchedule::Options o;
        o.path = fixture("burstgpt/BurstGPT_1-v1.1-layout.csv");
        o.format = "burstgpt";
        TraceSchedule s(o);
        const auto requests = drain(s);
        // Six records, one a failed request of 0 tokens: five sent, from the first at 3 s.
        QCOMPARE(requests.size(), std::size_t(5));
        QCOMPARE(requests[0].offset, std::chrono::nanoseconds(0));
        QCOMPARE(requests[1].offset, std::chrono::nanoseconds(ms(6000)));
        QCOMPARE(requests[4].offset, std::chrono::nanoseconds(ms(32500)));
        const auto report = s.report();
        QCOMPARE(report["skipped_without_input"].get<long long>(), 1LL);
        QCOMPARE(report["zero_output_sent_as_1"].get<long long>(), 1LL);
        QCOMPARE(report["malformed"].get<long long>(), 3LL);
        QVERIFY(s.describe().find("1 without input tokens not sent") != std::string::npos);
        // Azure: times are dates, the first request is the origin.
        TraceSchedule::Options a;
        a.path = fixture("azure/AzureLLMInferenceTrace_conv-2023-layout.csv");
        a.format = "azure";
        TraceSchedule azure(a);
        const auto az = drain(azure);
        QCOMPARE(az.size(), std::size_t(4));
        QCOMPARE(az[1].offset, std::chrono::nanoseconds(676'543'300));
        QCOMPARE(az[3].offset, std::chrono::nanoseconds(2'876'543'400));
        QCOMPARE(wordCount(az[1].conversation.questions[0]), std::size_t(1310));
        QCOMPARE(az[1].conversation.maxTokens[0], 171);
    }

    void outOfOrderLines() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("t.jsonl").toStdString();
        {
            std::ofstream out(path);
            // Inside the read-ahead: put back in order.
            out << line(100, 5) << line(50, 6) << line(200, 7);
            for (std::size_t i = 0; i < TraceSchedule::kReorderWindow + 10; ++i)
                out << line(1000 + static_cast<long long>(i), 3);
            // Beyond it: sent right after the one before, and counted.
            out << line(60, 8);
        }
        TraceSchedule::Options o;
        o.path = path;
        o.format = "mooncake";
        TraceSchedule s(o);
        const auto first = s.next();
        QCOMPARE(wordCount(first->conversation.questions[0]), std::size_t(6)); // the 50 ms one
        QCOMPARE(first->offset, std::chrono::nanoseconds(0));
        QCOMPARE(s.next()->offset, std::chrono::nanoseconds(ms(50)));
        QCOMPARE(s.next()->offset, std::chrono::nanoseconds(ms(150)));
        std::chrono::nanoseconds last{0};
        std::size_t n = 3;
        while (auto r = s.next()) {
            QVERIFY(r->offset >= last);
            last = r->offset;
            ++n;
            QVERIFY(s.buffered() <= TraceSchedule::kReorderWindow);
        }
        QCOMPARE(n, TraceSchedule::kReorderWindow + 14);
        QCOMPARE(last, std::chrono::nanoseconds(ms(1000 + TraceSchedule::kReorderWindow + 9 - 50)));
        QCOMPARE(s.report()["out_of_order"].get<long long>(), 1LL);
    }

    void aLongTraceIsReadAsItIsSent() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("long.jsonl").toStdString();
        constexpr int kLines = 50'000;
        {
            std::ofstream out(path);
            for (int i = 0; i < kLines; ++i)
                out << line(i, 8);
        }
        TraceSchedule::Options o;
        o.path = path;
        o.format = "mooncake";
        TraceSchedule s(o);
        // Before anything is sent only the read-ahead is held, never the file.
        QVERIFY(s.buffered() <= TraceSchedule::kReorderWindow);
        long long sent = 0;
        while (s.next()) {
            ++sent;
            QVERIFY(s.buffered() <= TraceSchedule::kReorderWindow);
        }
        QCOMPARE(sent, static_cast<long long>(kLines));
    }

    void nothingToSendIsAnError() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("bad.jsonl").toStdString();
        std::ofstream(path) << "not json\n{\"timestamp\": 0}\n";
        TraceSchedule::Options o;
        o.path = path;
        o.format = "mooncake";
        try {
            TraceSchedule s(o);
            QFAIL("a trace without one request was accepted");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("holds no request to send (2 lines read; 2 "
                                                "malformed lines skipped: line 1 (not a JSON "
                                                "object), line 2 (") != std::string::npos,
                     e.what());
        }
        auto past = mooncake();
        past.startAtS = 100; // after the trace's last request
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, TraceSchedule{past});
        auto scale = mooncake();
        scale.timeScale = 0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, TraceSchedule{scale});
        auto format = mooncake();
        format.format = "sharegpt";
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, TraceSchedule{format});
    }
};

QTEST_GUILESS_MAIN(TestTraceSchedule)
#include "tst_traceschedule.moc"
