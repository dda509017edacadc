#include "TestSupport.h"
#include "collectors/Scheduler.h"
#include "collectors/engine/EngineMetricsCollector.h"
#include "core/util/WallClock.h"

#include <httplib.h>
#include <map>
#include <mutex>
#include <thread>

using namespace tierscope;

// The collector against a real HTTP server on 127.0.0.1 (cpp-httplib), on a free port.
class TestEngineMetricsCollector : public QObject {
    Q_OBJECT
  private:
    httplib::Server m_server;
    std::thread m_thread;
    int m_port = 0;
    std::mutex m_mutex;
    std::string m_body;
    std::string m_requiredToken;
    int m_delayMs = 0;
    std::atomic<int> m_requests{0};
    std::atomic<int> m_stallsEnded{0};

    void serve(const std::string& body) {
        std::lock_guard lock(m_mutex);
        m_body = body;
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port) + "/metrics"; }

    static std::map<std::string, double> byPath(const std::vector<Reading>& readings) {
        std::map<std::string, double> out;
        for (const auto& r : readings)
            out[r.metric.path] = r.value;
        return out;
    }

    std::string id() const { return "engine/127.0.0.1:" + std::to_string(m_port) + "/"; }

  private slots:
    void initTestCase() {
        m_server.Get("/metrics", [this](const httplib::Request& request,
                                        httplib::Response& response) {
            ++m_requests;
            std::string body, token;
            int delay = 0;
            {
                std::lock_guard lock(m_mutex);
                body = m_body;
                token = m_requiredToken;
                delay = m_delayMs;
            }
            // Stalls until the delay is over or the test lifts it, so a long stall does not
            // hold a server thread past its test.
            const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(delay);
            while (delay && std::chrono::steady_clock::now() < until) {
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                std::lock_guard lock(m_mutex);
                delay = m_delayMs;
            }
            ++m_stallsEnded;
            if (!token.empty() && request.get_header_value("Authorization") != "Bearer " + token) {
                response.status = 401;
                return;
            }
            response.set_content(body, "text/plain; version=0.0.4");
        });
        m_port = m_server.bind_to_any_port("127.0.0.1");
        QVERIFY(m_port > 0);
        m_thread = std::thread([this] { m_server.listen_after_bind(); });
    }

    void cleanupTestCase() {
        m_server.stop();
        m_thread.join();
    }

    void scrapesWithBearerToken() {
        {
            std::lock_guard lock(m_mutex);
            m_requiredToken = "s3cret-token-value";
        }
        qputenv("TIERSCOPE_TEST_ENGINE_TOKEN", "s3cret-token-value");
        EngineMetricsCollector collector({url(), "TIERSCOPE_TEST_ENGINE_TOKEN"});
        serve(test::fixture("engine/vllm-0.10-v1.txt"));
        const auto first = byPath(collector.sample(1'000'000'000));
        QCOMPARE(first.at(id() + "scrape_ok"), 1.0);
        QCOMPARE(first.at(id() + "requests_running"), 21.0);
        QCOMPARE(first.at(id() + "malformed_lines"), 0.0);
        QVERIFY(first.at(id() + "scrape_duration_s") < 2.0);
        for (const auto& d : collector.devices()) {
            QVERIFY(d.attrs.find("s3cret") == std::string::npos); // the token is never stored
            QVERIFY(d.attrs.find("\"authenticated\":true") != std::string::npos);
        }
        for (const auto& r : collector.sample(2'000'000'000))
            QVERIFY(r.metric.path.find("s3cret") == std::string::npos);
    }

    void wrongTokenIsAFailedScrape() {
        qputenv("TIERSCOPE_TEST_ENGINE_TOKEN", "wrong");
        EngineMetricsCollector collector({url(), "TIERSCOPE_TEST_ENGINE_TOKEN"});
        const auto r = byPath(collector.sample(1));
        QCOMPARE(r.at(id() + "scrape_ok"), 0.0);
        QCOMPARE(collector.lastError(), std::string("HTTP 401"));
        QVERIFY(r.count(id() + "requests_running") == 0); // nothing invented
        std::lock_guard lock(m_mutex);
        m_requiredToken.clear();
    }

    void malformedLinesAreCountedNotFatal() {
        EngineMetricsCollector collector({url()});
        serve(test::fixture("engine/malformed.txt"));
        const auto r = byPath(collector.sample(1));
        QCOMPARE(r.at(id() + "scrape_ok"), 1.0);
        QCOMPARE(r.at(id() + "malformed_lines"), 5.0);
    }

    void oversizedBodyIsRefused() {
        EngineMetricsCollector::Options options{url()};
        options.maxBodyBytes = 1000;
        EngineMetricsCollector collector(options);
        serve(std::string(5000, '#'));
        QCOMPARE(byPath(collector.sample(1)).at(id() + "scrape_ok"), 0.0);
        QVERIFY(collector.lastError().find("larger than 1000 bytes") != std::string::npos);
    }

    void tooManySamplesIsAFailedScrape() {
        EngineMetricsCollector::Options options{url()};
        options.maxSamples = 3;
        EngineMetricsCollector collector(options);
        serve("a 1\nb 2\nc 3\nd 4\n");
        const auto r = byPath(collector.sample(1));
        QCOMPARE(r.at(id() + "scrape_ok"), 0.0);
        QCOMPARE(collector.lastError(), std::string("more than 3 samples"));
        QCOMPARE(r.count(id() + "malformed_lines"), std::size_t(0)); // no half scrape mapped
        serve("a 1\nb 2\nc 3\n");
        QCOMPARE(byPath(collector.sample(2)).at(id() + "scrape_ok"), 1.0);
    }

    // Stopping the scheduler interrupts a scrape in progress: stop() returns while the server
    // still stalls, and the interrupted cycle writes nothing, not even scrape_ok = 0.
    void stopInterruptsAScrapeInProgress() {
        struct Sink : SampleSink {
            std::mutex mutex;
            std::vector<std::string> paths;
            void write(std::int64_t, std::span<const Reading> readings) override {
                std::lock_guard lock(mutex);
                for (const auto& r : readings)
                    paths.push_back(r.metric.path);
            }
        } sink;
        {
            std::lock_guard lock(m_mutex);
            m_delayMs = 60000;
        }
        EngineMetricsCollector::Options options{url()};
        options.timeout = std::chrono::milliseconds(120000);
        WallClock clock;
        Scheduler scheduler(sink, clock);
        scheduler.add(std::make_unique<EngineMetricsCollector>(options), std::chrono::seconds(1));
        const int before = m_requests;
        const int stallsEnded = m_stallsEnded;
        scheduler.start();
        QTRY_VERIFY_WITH_TIMEOUT(m_requests > before, 30000);
        scheduler.stop();
        // Without the interrupt, stop() waits for the scrape, which waits out the stall.
        const bool returnedDuringTheStall = m_stallsEnded == stallsEnded;
        {
            std::lock_guard lock(m_mutex);
            m_delayMs = 0;
        }
        QVERIFY(returnedDuringTheStall);
        std::lock_guard lock(sink.mutex);
        for (const auto& path : sink.paths)
            QVERIFY2(!path.starts_with("engine/"), path.c_str());
    }

    void stallBeyondTheTimeout() {
        EngineMetricsCollector::Options options{url()};
        options.timeout = std::chrono::milliseconds(300);
        EngineMetricsCollector collector(options);
        {
            std::lock_guard lock(m_mutex);
            m_delayMs = 30000;
        }
        QElapsedTimer timer;
        timer.start();
        const auto r = byPath(collector.sample(1));
        // The 300 ms timeout, not the server's 30 s delay.
        QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
        QVERIFY2(!collector.lastError().empty(), collector.lastError().c_str());
        QCOMPARE(r.at(id() + "scrape_ok"), 0.0);
        std::lock_guard lock(m_mutex);
        m_delayMs = 0;
    }

    void connectionRefused() {
        httplib::Server probe;
        const int freePort = probe.bind_to_any_port("127.0.0.1");
        probe.stop(); // nothing listens there now
        EngineMetricsCollector collector(
            {"http://127.0.0.1:" + std::to_string(freePort) + "/metrics"});
        const auto r = collector.sample(1);
        bool failed = false;
        for (const auto& reading : r)
            failed =
                failed || (reading.metric.path.ends_with("/scrape_ok") && reading.value == 0.0);
        QVERIFY(failed);
        QVERIFY(!collector.lastError().empty());
    }
};

QTEST_GUILESS_MAIN(TestEngineMetricsCollector)
#include "tst_enginemetricscollector.moc"
