#include "FaultServer.h"
#include "TestSupport.h"
#include "loadgen/Datasets.h"
#include "collectors/engine/EngineMetricsCollector.h"
#include "loadgen/LoadGenerator.h"
#include "core/util/Utf8.h"
#include "core/util/WallClock.h"

#include <QElapsedTimer>
#include <QtTest>
#include <sys/resource.h>

using namespace tierscope;
using Fault = test::FaultServer::Fault;

namespace {

long peakRssKb() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

std::vector<RequestRecord> runLoad(const std::string& url) {
    WallClock clock;
    LoadGenerator::Options o;
    o.url = url;
    o.model = "m";
    o.concurrency = 4;
    o.requests = 8;
    o.requestTimeout = std::chrono::milliseconds(1500);
    LoadGenerator generator(o, Datasets::synthetic(8, 10, 20, 8, 1), clock);
    return generator.run();
}

} // namespace

// The load generator and the /metrics scraper against servers that misbehave on purpose: each
// fault becomes a per-request (per-scrape) error, the run completes, and memory stays bounded.
class TestNetworkFaults : public QObject {
    Q_OBJECT

    void expectAllFailed(const std::vector<RequestRecord>& records, const char* expected) {
        QCOMPARE(records.size(), std::size_t(8)); // nothing lost from the record
        for (const auto& r : records) {
            QVERIFY(!r.ok());
            QVERIFY2(r.error.find(expected) != std::string::npos,
                     (r.error + " (expected \"" + expected + "\")").c_str());
        }
    }

    std::string url(const test::FaultServer& s) {
        return "http://127.0.0.1:" + std::to_string(s.port());
    }

  private slots:
    void utf8KnownAnswers() {
        QVERIFY(Utf8::valid("plain ascii"));
        QVERIFY(Utf8::valid("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80")); // été € 😀
        QVERIFY(!Utf8::valid("\xff"));
        QVERIFY(!Utf8::valid("\xc3\x28"));         // bad continuation
        QVERIFY(!Utf8::valid("\xc0\xaf"));         // overlong '/'
        QVERIFY(!Utf8::valid("\xed\xa0\x80"));     // a surrogate
        QVERIFY(!Utf8::valid("\xf4\x90\x80\x80")); // past U+10FFFF
        QVERIFY(!Utf8::valid("\xe2\x82"));         // cut short
    }

    void loadConnectionRefused() {
        expectAllFailed(runLoad("http://127.0.0.1:" + std::to_string(test::freePort())),
                        "Couldn't connect");
    }

    void loadResetMidStream() {
        test::FaultServer server(Fault::ResetMidStream);
        const auto records = runLoad(url(server));
        QCOMPARE(records.size(), std::size_t(8));
        for (const auto& r : records) {
            QVERIFY(!r.ok());
            QVERIFY2(!r.error.empty(), "a cut stream must say so");
            QVERIFY(r.ttftS); // the first token did arrive before the reset
        }
    }

    void loadStallBeyondTheTimeout() {
        test::FaultServer server(Fault::Stall);
        QElapsedTimer timer;
        timer.start();
        expectAllFailed(runLoad(url(server)), "Timeout");
        // Two waves of 1.5 s timeouts; waiting out the server's stall would take 120 s.
        QVERIFY2(timer.elapsed() < 30000, qPrintable(QString::number(timer.elapsed())));
    }

    void loadSlowlorisTrickle() {
        test::FaultServer server(Fault::Trickle);
        expectAllFailed(runLoad(url(server)), "Timeout");
    }

    void loadTenMegabyteLine() {
        test::FaultServer server(Fault::HugeLine);
        const long before = peakRssKb();
        expectAllFailed(runLoad(url(server)), "line");
        // Four streams of 10 MB each would be 40 MB buffered; the parser stops at its limit.
        QVERIFY2(peakRssKb() - before < 24 * 1024,
                 qPrintable(QString("peak RSS grew by %1 MB").arg((peakRssKb() - before) / 1024)));
    }

    void loadInvalidUtf8() {
        test::FaultServer server(Fault::BadUtf8);
        expectAllFailed(runLoad(url(server)), "UTF-8");
    }

    void scraperFaults() {
        for (const auto fault : {Fault::ResetMidStream, Fault::Stall, Fault::Trickle}) {
            test::FaultServer server(fault);
            EngineMetricsCollector::Options o{url(server) + "/metrics"};
            o.timeout = std::chrono::milliseconds(500);
            EngineMetricsCollector collector(o);
            QElapsedTimer timer;
            timer.start();
            bool failed = false;
            for (const auto& r : collector.sample(1))
                failed = failed || (r.metric.path.ends_with("/scrape_ok") && r.value == 0.0);
            QVERIFY(failed);
            QVERIFY(!collector.lastError().empty());
            // The 500 ms timeout, not the server's minute-long stall or 24 s trickle.
            QVERIFY2(timer.elapsed() < 15000, qPrintable(QString::number(timer.elapsed())));
        }
        for (const auto fault : {Fault::HugeLine, Fault::BadUtf8}) {
            test::FaultServer server(fault);
            EngineMetricsCollector collector({url(server) + "/metrics"});
            const long before = peakRssKb();
            double malformed = 0;
            for (const auto& r : collector.sample(1))
                if (r.metric.path.ends_with("/malformed_lines"))
                    malformed = r.value;
            QVERIFY(malformed >= 1); // rejected and counted, never stored as a value
            QVERIFY(peakRssKb() - before < 48 * 1024);
        }
    }
};

QTEST_GUILESS_MAIN(TestNetworkFaults)
#include "tst_networkfaults.moc"
