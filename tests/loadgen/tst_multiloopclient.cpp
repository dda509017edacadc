#include "MinimalSseServer.h"
#include "TestSupport.h"
#include "loadgen/ClientSaturation.h"
#include "loadgen/Datasets.h"
#include "loadgen/LoadGenerator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace tierscope;

// The load client's event loops (LoadGenerator with clientThreads > 1) against bench's minimal
// SSE server on loopback: each stream is issued and read by one loop, and every request reaches
// the sink once, on the caller's thread. Nothing here is timed.
class TestMultiLoopClient : public QObject {
    Q_OBJECT
  private slots:
    void everyStreamStaysOnOneLoopAndNoneIsLost() {
        LoadGenerator::raiseFileLimit(); // 2,000 client and 2,000 server sockets
        bench::MinimalSseServer server(std::chrono::milliseconds(1), 1000.0);
        const int port = server.start();
        constexpr int kStreams = 2000;
        constexpr int kTokens = 3;
        WallClock clock;
        LoadGenerator::Options o;
        o.url = "http://127.0.0.1:" + std::to_string(port);
        o.model = "m";
        o.concurrency = kStreams;
        o.requests = kStreams;
        o.clientThreads = 2;
        LoadGenerator generator(o, Datasets::synthetic(kStreams, 4, 4, kTokens, 1), clock);
        std::mutex mutex;
        std::map<long, std::set<int>> loopsOf;               // request -> loops that read it
        std::map<long, std::set<std::thread::id>> threadsOf; // request -> threads that read it
        std::map<int, std::set<std::thread::id>> threadsOfLoop;
        generator.observeEvents([&](int loop, long request) {
            std::lock_guard lock(mutex);
            loopsOf[request].insert(loop);
            threadsOf[request].insert(std::this_thread::get_id());
            threadsOfLoop[loop].insert(std::this_thread::get_id());
        });
        std::map<long, int> delivered;
        bool onCaller = true;
        const auto caller = std::this_thread::get_id();
        generator.run([&](RequestRecord&& r) {
            onCaller = onCaller && std::this_thread::get_id() == caller;
            QVERIFY2(r.ok(), r.error.c_str());
            QCOMPARE(r.outputTokens.value_or(0), kTokens);
            ++delivered[r.index];
        });
        QVERIFY2(onCaller, "the sink ran on a loop's thread");
        QCOMPARE(static_cast<int>(delivered.size()), kStreams);
        for (const auto& [index, times] : delivered) {
            QVERIFY(index >= 0 && index < kStreams);
            QCOMPARE(times, 1);
        }
        QCOMPARE(static_cast<int>(loopsOf.size()), kStreams); // every stream's data was read
        for (const auto& [request, loops] : loopsOf) {
            QCOMPARE(loops.size(), std::size_t(1));
            QCOMPARE(threadsOf[request].size(), std::size_t(1));
        }
        // Two loops, each on one thread of its own, and neither on the caller's.
        QCOMPARE(threadsOfLoop.size(), std::size_t(2));
        std::set<std::thread::id> threads;
        for (const auto& [loop, ids] : threadsOfLoop) {
            QCOMPARE(ids.size(), std::size_t(1));
            threads.insert(*ids.begin());
        }
        QCOMPARE(threads.size(), std::size_t(2));
        QVERIFY(!threads.count(caller));
        QCOMPARE(static_cast<int>(server.served().size()), kStreams);
        // The saturation the summary stores: one entry per loop, their requests adding up.
        const auto& saturation = generator.saturation();
        QCOMPARE(saturation.loops.size(), std::size_t(2));
        long requests = 0;
        for (const auto& l : saturation.loops) {
            QVERIFY(l.requests > 0);
            QVERIFY(l.readLagS.count() > 0); // every stream's data was read
            requests += l.requests;
        }
        QCOMPARE(requests, static_cast<long>(kStreams));
        QVERIFY(generator.maxConcurrent() > 0 && generator.maxConcurrent() <= kStreams);
    }

    // The rate's one gamma process, split over the loops: the same send times as one loop.
    void loopsShareTheRatesSchedule() {
        bench::MinimalSseServer server(std::chrono::milliseconds(1), 1000.0);
        const int port = server.start();
        auto scheduled = [&](int threads) {
            WallClock clock;
            LoadGenerator::Options o;
            o.url = "http://127.0.0.1:" + std::to_string(port);
            o.model = "m";
            o.rate = 400;
            o.requests = 40;
            o.seed = 3;
            o.clientThreads = threads;
            std::vector<std::int64_t> offsets;
            const auto records = LoadGenerator(o, Datasets::synthetic(40, 4, 4, 2, 1), clock).run();
            std::int64_t first = std::numeric_limits<std::int64_t>::max();
            for (const auto& r : records)
                first = std::min(first, r.scheduledNs);
            for (const auto& r : records)
                offsets.push_back(r.scheduledNs - first);
            std::sort(offsets.begin(), offsets.end());
            return offsets;
        };
        const auto one = scheduled(1);
        const auto two = scheduled(2);
        QCOMPARE(one.size(), std::size_t(40));
        QCOMPARE(two.size(), std::size_t(40));
        // The last claims may go to a later arrival of the other loop when one loop lags (the
        // limit counts claims): only those may differ. The wall clock's conversion: 1 us.
        for (std::size_t i = 0; i + 10 < one.size(); ++i)
            QVERIFY2(std::abs(one[i] - two[i]) < 1000, qPrintable(QString::number(i)));
    }

    // The summary's figures: absent when not measured, the worst loop's lags, and the warning
    // only for a late schedule (a read lag does not enter TTFT: kernel timestamps).
    void saturationFieldsAndWarning() {
        ClientSaturation s;
        QVERIFY(s.toJson().is_null());
        QVERIFY(ClientSaturation::describe(s.toJson()).empty());
        s.loops.resize(2);
        s.loops[0].cpuS = 0.5;
        s.loops[0].wallS = 1.0;
        auto j = s.toJson();
        QCOMPARE(j["loops"].get<int>(), 2);
        QVERIFY(!j.contains("loop_lag_p99_ms")); // no lag measured: absent, not 0
        QVERIFY(!j.contains("schedule_delay_p99_ms"));
        QVERIFY(!j["per_loop"][1].contains("read_lag_p99_ms"));
        QVERIFY(!j["per_loop"][1].contains("cpu_share")); // no wall time
        QCOMPARE(j["per_loop"][0]["cpu_share"].get<double>(), 0.5);
        for (int i = 0; i < 100; ++i) {
            s.loops[0].readLagS.add(0.0001);
            s.loops[1].readLagS.add(i < 90 ? 0.0001 : 0.005); // a burst of first tokens
        }
        j = s.toJson();
        QCOMPARE(j["loop_lag_p99_ms"].get<double>(), s.loops[1].readLagS.percentile(99) * 1e3);
        std::string text = ClientSaturation::describe(j);
        QVERIFY2(text.find("read lag") != std::string::npos, text.c_str());
        QVERIFY2(text.find("warning") == std::string::npos, text.c_str());
        for (int i = 0; i < 100; ++i) {
            s.loops[0].sendLagS.add(0.0001);
            s.loops[1].sendLagS.add(i < 90 ? 0.0001 : 0.005);
        }
        j = s.toJson();
        QCOMPARE(j["schedule_delay_p99_ms"].get<double>(),
                 s.loops[1].sendLagS.percentile(99) * 1e3);
        QCOMPARE(j["per_loop"][1]["schedule_delay_p99_ms"].get<double>(),
                 s.loops[1].sendLagS.percentile(99) * 1e3);
        text = ClientSaturation::describe(j);
        QVERIFY2(text.find("warning: the client sent late") != std::string::npos,
                 text.c_str());
        s.loops[1] = s.loops[0];
        QVERIFY(ClientSaturation::describe(s.toJson()).find("warning") == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestMultiLoopClient)
#include "tst_multiloopclient.moc"
