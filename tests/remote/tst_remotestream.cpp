#include "TestSupport.h"
#include "remote/RemoteStreamReader.h"
#include "remote/RemoteStreamWriter.h"

#include <QtTest>

using namespace tierscope;

class TestRemoteStream : public QObject {
    Q_OBJECT
  private:
    struct Seen {
        std::vector<RemoteStreamReader::Hello> hellos;
        std::vector<DeviceRecord> devices;
        std::vector<std::pair<std::int64_t, std::vector<Reading>>> samples;
        std::vector<std::int64_t> heartbeats;
        std::vector<std::string> logs;
        std::vector<int> exits;
        std::vector<std::string> ends;
    };
    static RemoteStreamReader::Callbacks into(Seen& s) {
        RemoteStreamReader::Callbacks c;
        c.hello = [&s](const auto& h) { s.hellos.push_back(h); };
        c.device = [&s](const auto& d) { s.devices.push_back(d); };
        c.samples = [&s](std::int64_t t, std::span<const Reading> r) {
            s.samples.emplace_back(t, std::vector<Reading>(r.begin(), r.end()));
        };
        c.heartbeat = [&s](std::int64_t t) { s.heartbeats.push_back(t); };
        c.log = [&s](const std::string& t) { s.logs.push_back(t); };
        c.exit = [&s](int code) { s.exits.push_back(code); };
        c.end = [&s](const std::string& r) { s.ends.push_back(r); };
        return c;
    }
    static const std::string kHello;

    // Feeds one line after a valid hello; returns the reader's error (empty when accepted).
    static std::string afterHello(const std::string& line) {
        Seen s;
        RemoteStreamReader reader(into(s));
        reader.feed(kHello);
        reader.feed(line + "\n");
        return reader.error();
    }

  private slots:
    void roundTripsWhatTheWriterSends() {
        std::string wire;
        RemoteStreamWriter writer([&](const std::string& line) {
            wire += line;
            return true;
        });
        writer.hello("stream", "gpu01", 12);
        writer.device({"block", "nvme0n1", R"({"model":"X"})"});
        writer.device({"backend", "rocm-smi", R"({"state":"absent"})"});
        const std::vector<Reading> first{
            {{"block/nvme0n1/read_bytes_per_s", "bytes/s", "rate", R"({"transport":"tcp"})"},
             1048576.0},
            {{"host/cpu/busy_pct", "percent", "gauge", "{}"}, 12.5}};
        writer.write(1'764'592'000'000'000'000, first);
        writer.write(1'764'592'001'000'000'000, std::vector<Reading>{first[0]});
        writer.heartbeat(1'764'592'001'500'000'000);
        writer.log("[1/2] disk");
        writer.exit(0);
        writer.end("stopped");

        Seen s;
        RemoteStreamReader reader(into(s));
        // The network splits anywhere: one byte at a time.
        for (const char c : wire)
            QVERIFY2(reader.feed(std::string_view(&c, 1)), reader.error().c_str());
        QCOMPARE(s.hellos.size(), std::size_t(1));
        QCOMPARE(s.hellos[0].host, std::string("gpu01"));
        QCOMPARE(s.hellos[0].session, std::int64_t(12));
        QCOMPARE(s.hellos[0].what, std::string("stream"));
        QCOMPARE(s.devices.size(), std::size_t(2));
        QCOMPARE(s.devices[1].kind, std::string("backend"));
        QCOMPARE(s.devices[0].attrs, std::string(R"({"model":"X"})"));
        QCOMPARE(s.samples.size(), std::size_t(2));
        QCOMPARE(s.samples[0].first, std::int64_t(1'764'592'000'000'000'000));
        QCOMPARE(s.samples[0].second.size(), std::size_t(2));
        QCOMPARE(s.samples[0].second[0].metric.path, std::string("block/nvme0n1/read_bytes_per_s"));
        QCOMPARE(s.samples[0].second[0].metric.labels, std::string(R"({"transport":"tcp"})"));
        QCOMPARE(s.samples[0].second[0].value, 1048576.0);
        QCOMPARE(s.samples[0].second[1].value, 12.5);
        QCOMPARE(s.samples[1].second[0].metric.unit, std::string("bytes/s"));
        QCOMPARE(s.heartbeats.size(), std::size_t(1));
        QCOMPARE(s.logs, std::vector<std::string>{"[1/2] disk"});
        QCOMPARE(s.exits, std::vector<int>{0});
        QCOMPARE(s.ends, std::vector<std::string>{"stopped"});
    }

    // What tierscope 0.1.0's `stream` really wrote (tests/fixtures/remote-stream/README.md).
    void readsACapturedStream() {
        Seen s;
        RemoteStreamReader reader(into(s));
        QVERIFY2(reader.feed(test::fixture("remote-stream/stream-0.1.0.jsonl")),
                 reader.error().c_str());
        QCOMPARE(s.hellos.size(), std::size_t(1));
        QCOMPARE(s.hellos[0].what, std::string("stream"));
        QCOMPARE(s.hellos[0].session, std::int64_t(1));
        std::size_t backends = 0;
        for (const auto& d : s.devices)
            backends += d.kind == "backend";
        QVERIFY(backends >= 2);
        QVERIFY(s.samples.size() >= 4);
        bool cpu = false;
        for (const auto& [t, readings] : s.samples)
            for (const auto& r : readings)
                cpu = cpu || r.metric.path == "host/cpu/busy_pct";
        QVERIFY(cpu);
        QVERIFY(!s.heartbeats.empty());
        QCOMPARE(s.ends.size(), std::size_t(1));
        QVERIFY(s.ends[0].find("duration reached") != std::string::npos);
    }

    void refusesAnythingButAHelloFirst() {
        Seen s;
        RemoteStreamReader reader(into(s));
        QVERIFY(!reader.feed("sh: 1: tierscope: not found\n"));
        QVERIFY(reader.error().find("not a JSON object") != std::string::npos);
        RemoteStreamReader samplesFirst(into(s));
        QVERIFY(!samplesFirst.feed(R"({"type":"samples","t":1,"v":[]})"
                                   "\n"));
        QVERIFY(samplesFirst.error().find("hello") != std::string::npos);
    }

    void namesAnIncompatibleFormat() {
        Seen s;
        RemoteStreamReader reader(into(s));
        QVERIFY(!reader.feed(R"({"type":"hello","format":2,"version":"9.0.0","host":"h"})"
                             "\n"));
        QVERIFY(reader.incompatible());
        QVERIFY(reader.error().find("9.0.0") != std::string::npos);
        QVERIFY(reader.error().find("format 2") != std::string::npos);
        QVERIFY(s.hellos.empty());
    }

    void refusesHostileLines_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("needle");
        QTest::newRow("undefined metric") << R"({"type":"samples","t":5,"v":[[9,1]]})"
                                          << "undefined metric";
        QTest::newRow("string value")
            << R"({"type":"metric","id":1,"path":"a","unit":"","kind":"gauge"})"
               "\n"
               R"({"type":"samples","t":5,"v":[[1,"x"]]})"
            << "malformed sample";
        QTest::newRow("negative time") << R"({"type":"heartbeat","t":-1})"
                                       << "heartbeat";
        QTest::newRow("time past 2100") << R"({"type":"heartbeat","t":9223372036854775807})"
                                        << "heartbeat";
        QTest::newRow("huge unsigned") << R"({"type":"heartbeat","t":18446744073709551615})"
                                       << "heartbeat";
        QTest::newRow("id zero")
            << R"({"type":"metric","id":0,"path":"a","unit":"","kind":"gauge"})"
            << "malformed metric";
        QTest::newRow("path with space")
            << R"({"type":"metric","id":1,"path":"a b","unit":"","kind":"gauge"})"
            << "malformed metric";
        QTest::newRow("bad kind") << R"({"type":"metric","id":1,"path":"a","unit":"","kind":"x"})"
                                  << "kind";
        QTest::newRow("redefined id")
            << R"({"type":"metric","id":1,"path":"a","unit":"","kind":"gauge"})"
               "\n"
               R"({"type":"metric","id":1,"path":"b","unit":"","kind":"gauge"})"
            << "redefined";
        QTest::newRow("labels not an object")
            << R"({"type":"metric","id":1,"path":"a","unit":"","kind":"gauge","labels":[1]})"
            << "malformed metric";
        QTest::newRow("exit out of range") << R"({"type":"exit","code":100000})"
                                           << "exit";
        QTest::newRow("deep nesting")
            << QString(R"({"type":"log","x":)") + QString(50, '[') + QString(50, ']') + "}"
            << "nested";
        QTest::newRow("after end") << R"({"type":"end"})"
                                      "\n"
                                      R"({"type":"heartbeat","t":5})"
                                   << "after the end";
        QTest::newRow("array") << "[1,2]"
                               << "not a JSON object";
        QTest::newRow("no type") << R"({"t":5})"
                                 << "type";
    }
    void refusesHostileLines() {
        QFETCH(QString, line);
        QFETCH(QString, needle);
        const auto error = afterHello(line.toStdString());
        QVERIFY2(error.find(needle.toStdString()) != std::string::npos, error.c_str());
        QVERIFY(error.find('\n') == std::string::npos);
    }

    void boundsTheLineLength() {
        Seen s;
        RemoteStreamReader reader(into(s));
        reader.feed(kHello);
        // No newline ever: the reader must stop buffering at the bound.
        const std::string chunk(64 * 1024, 'x');
        bool alive = true;
        for (int i = 0; i < 8 && alive; ++i)
            alive = reader.feed(chunk);
        QVERIFY(!alive);
        QVERIFY(reader.error().find("longer than") != std::string::npos);
        QVERIFY(!reader.feed(kHello)); // broken for good
    }

    void makesTextPrintableAndSkipsUnknownTypes() {
        Seen s;
        RemoteStreamReader reader(into(s));
        reader.feed(kHello);
        QVERIFY(reader.feed(R"({"type":"future-thing","x":1})"
                            "\n"
                            "{\"type\":\"log\",\"text\":\"a\\u001b[2Jb\\u0007\"}"
                            "\r\n"));
        QCOMPARE(s.logs, std::vector<std::string>{"a?[2Jb?"});
    }
};

const std::string TestRemoteStream::kHello =
    R"({"type":"hello","format":1,"tool":"tierscope","version":"0.1.0","host":"h","what":"stream"})"
    "\n";

QTEST_GUILESS_MAIN(TestRemoteStream)
#include "tst_remotestream.moc"
