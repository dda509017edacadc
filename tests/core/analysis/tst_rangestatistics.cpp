#include "core/analysis/RangeStatistics.h"
#include "core/analysis/SessionAnalysis.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000LL, kStart = 1'790'000'000LL * kSecond;

RequestRecord request(std::int64_t atS, std::optional<double> ttftS, bool ok = true) {
    RequestRecord r;
    r.sendNs = kStart + atS * kSecond;
    r.ttftS = ttftS;
    r.httpStatus = ok ? 200 : 500;
    if (!ok)
        r.error = "HTTP 500";
    return r;
}

} // namespace

// A 60 s session with hand-checkable series: gpu/0/busy_pct is i at second i (0..59), the
// drive reports only in seconds 50..59, and five requests (one failed) in the first 25 s.
class TestRangeStatistics : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string m_db;
    std::int64_t m_session = 0;
    std::int64_t m_gpu = 0, m_disk = 0;

    struct Cli {
        int code = -1;
        QByteArray out, err;
    };
    Cli cli(const QStringList& args) {
        QProcess p;
        p.start(TIERSCOPE_BINARY, QStringList{"--db", QString::fromStdString(m_db)} + args);
        if (!p.waitForFinished(60000))
            qFatal("tierscope %s hung", qPrintable(args.join(' ')));
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                p.readAllStandardOutput(), p.readAllStandardError()};
    }

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath("range.db").toStdString();
        {
            Store store(m_db, Store::Mode::ReadWrite);
            SessionInfo info;
            info.startNs = kStart;
            info.host = "h";
            m_session = store.createSession(info);
            store.finishSession(m_session, kStart + 60 * kSecond);
        }
        {
            StoreWriter writer(m_db, {});
            const int gpu = writer.defineMetric(m_session, {"gpu/0/busy_pct", "percent"});
            const int disk =
                writer.defineMetric(m_session, {"block/nvme0n1/read_bytes_per_s", "bytes/s"});
            for (int i = 0; i < 60; ++i) {
                writer.append(gpu, kStart + i * kSecond, i);
                if (i >= 50)
                    writer.append(disk, kStart + i * kSecond, 1e9);
            }
            writer.stop();
        }
        Store store(m_db, Store::Mode::ReadWrite);
        for (const auto& m : store.metrics(m_session))
            (m.descriptor.path == "gpu/0/busy_pct" ? m_gpu : m_disk) = m.id;
        const auto run = store.createRun(m_session, "load", "{}", kStart);
        store.addRequests(run, {request(5, 0.5), request(12, 1.0), request(15, 2.0),
                                request(20, 3.0), request(25, std::nullopt, false)});
        store.finishRun(run, kStart + 30 * kSecond, "completed", "{}");
    }

    // The parse itself is TimeRangeText's (tst_timerangetext); here, what the range covers.
    void resolvesRanges() {
        const auto tail = TimeRangeText::parse("10s..");
        QVERIFY(tail);
        // Open ends take the session's bounds; a range past its end is empty.
        const auto whole = RangeStatistics::resolve(*tail, 60 * kSecond);
        QVERIFY(whole && whole->first == 10 * kSecond && whole->second == 60 * kSecond);
        QVERIFY(!RangeStatistics::resolve(*TimeRangeText::parse("70s.."), 60 * kSecond));
        const auto cut = RangeStatistics::resolve(*TimeRangeText::parse("50s..90s"), 60 * kSecond);
        QVERIFY(cut && cut->first == 50 * kSecond && cut->second == 60 * kSecond);
    }

    void figuresAreExact() {
        QVERIFY(!RangeStatistics::figuresOf({}));
        const auto f = RangeStatistics::figuresOf({4, 1, 3, 2});
        QVERIFY(f);
        QCOMPARE(f->count, std::size_t(4));
        QCOMPARE(f->min, 1.0);
        QCOMPARE(f->mean, 2.5);
        QCOMPARE(f->p50, 2.5);
        QCOMPARE(f->p99, 3.97); // rank 2.97 between 3 and 4
        QCOMPARE(f->last, 2.0); // the latest in time, not the largest
        QCOMPARE(*RangeStatistics::change(RangeStatistics::figuresOf({2}), f), 0.25);
        // A mean of 0 before has no relative change.
        QVERIFY(!RangeStatistics::change(RangeStatistics::figuresOf({0}), f));
        QVERIFY(!RangeStatistics::change(std::nullopt, f));
    }

    void rangeOfASession() {
        Store store(m_db, Store::Mode::ReadOnly);
        const auto r = RangeStatistics::compute(store, m_session, 10 * kSecond, 40 * kSecond);
        QCOMPARE(r.beforeFromNs, std::int64_t(0)); // 30 s before 10 s, clipped at the start
        const auto* gpu = r.find(m_gpu);
        QVERIFY(gpu && gpu->now && gpu->before);
        QCOMPARE(gpu->now->count, std::size_t(30)); // seconds 10..39: 40 is outside
        QCOMPARE(gpu->now->min, 10.0);
        QCOMPARE(gpu->now->mean, 24.5);
        QCOMPARE(gpu->now->p50, 24.5);
        QCOMPARE(gpu->now->p99, 38.71); // rank 0.99 * 29 = 28.71 above 10
        QCOMPARE(gpu->now->last, 39.0);
        QCOMPARE(gpu->before->count, std::size_t(10));
        QCOMPARE(gpu->before->mean, 4.5);
        QCOMPARE(*gpu->meanChange, 20.0 / 4.5);
        // No samples in the range: absent, not 0.
        const auto* disk = r.find(m_disk);
        QVERIFY(disk && !disk->now && !disk->before && !disk->meanChange);
        QCOMPARE(r.requests.count, std::size_t(4));
        QCOMPARE(r.requests.failed, std::size_t(1));
        QCOMPARE(*r.requests.ttftP50S, 2.0);
        QCOMPARE(*r.requests.ttftP99S, 2.98);
        QVERIFY(r.requestsBefore);
        QCOMPARE(r.requestsBefore->count, std::size_t(1));
        QCOMPARE(*r.requestsBefore->ttftP50S, 0.5);
        // The shares are the analysis' own over the same span.
        const auto analysis =
            SessionAnalysis::analyzeRange(store, m_session, kStart + 10 * kSecond,
                                          kStart + 40 * kSecond, RangeStatistics::kDefaultWindowNs);
        QVERIFY(!r.shares.empty());
        QVERIFY(r.shares == analysis.shares);
    }

    void nothingBeforeTheStart() {
        Store store(m_db, Store::Mode::ReadOnly);
        const auto r = RangeStatistics::compute(store, m_session, 0, 10 * kSecond, 0, {m_gpu});
        QCOMPARE(r.series.size(), std::size_t(1));
        QVERIFY(r.series[0].now && !r.series[0].before && !r.series[0].meanChange);
        QVERIFY(!r.requestsBefore);
        QVERIFY(r.shares.empty()); // window 0: no analysis asked for
        const auto late = RangeStatistics::compute(store, m_session, 50 * kSecond, 60 * kSecond);
        const auto* disk = late.find(m_disk);
        QVERIFY(disk && disk->now && !disk->before); // nothing in 40..50 s
        QCOMPARE(disk->now->mean, 1e9);
        QCOMPARE(late.requests.count, std::size_t(0));
        QVERIFY(!late.requests.ttftP50S);
    }

    // `analyze --range` prints the same numbers, in JSON and in its table.
    void cliPrintsTheSameFigures() {
        const auto r = cli({"analyze", "--session", QString::number(m_session), "--range",
                            "10s..40s", "--format", "json"});
        QVERIFY2(r.code == 0, r.err.constData());
        const auto j = nlohmann::json::parse(r.out.toStdString());
        Store store(m_db, Store::Mode::ReadOnly);
        const auto expected =
            RangeStatistics::compute(store, m_session, 10 * kSecond, 40 * kSecond);
        QCOMPARE(j["from_s"].get<double>(), 10.0);
        QCOMPARE(j["before_from_s"].get<double>(), 0.0);
        QCOMPARE(j["series"].size(), expected.series.size());
        for (const auto& s : j["series"]) {
            const auto* e = expected.find(s["metric_id"].get<std::int64_t>());
            QVERIFY(e);
            QCOMPARE(s["range"].is_null(), !e->now);
            if (e->now) {
                QCOMPARE(s["range"]["count"].get<std::size_t>(), e->now->count);
                for (const auto& [key, value] : {std::pair{"min", e->now->min},
                                                 {"mean", e->now->mean},
                                                 {"p50", e->now->p50},
                                                 {"p99", e->now->p99},
                                                 {"last", e->now->last}})
                    QCOMPARE(s["range"][key].get<double>(), value);
                QCOMPARE(s["mean_change"].get<double>(), *e->meanChange);
            }
        }
        QCOMPARE(j["requests"]["count"].get<std::size_t>(), std::size_t(4));
        QCOMPARE(j["requests"]["ttft_p99_s"].get<double>(), 2.98);
        for (const auto& [cls, share] : expected.shares)
            QCOMPARE(j["shares"][BottleneckClassifier::name(cls)].get<double>(), share);
        const auto text =
            cli({"analyze", "--session", QString::number(m_session), "--range", "10s..40s"});
        QVERIFY2(text.code == 0, text.err.constData());
        QVERIFY2(text.out.contains("gpu/0/busy_pct") && text.out.contains("38.71") &&
                     text.out.contains("+444.4 %") && text.out.contains("4 sent, 1 failed"),
                 text.out.constData());
    }

    void cliRefusesABadRange() {
        for (const char* bad : {"40s..10s", "soon", "70s.."}) {
            const auto r =
                cli({"analyze", "--session", QString::number(m_session), "--range", bad});
            QVERIFY2(r.code == 2, r.err.constData());
            QVERIFY2(r.err.contains("--range"), r.err.constData());
            QVERIFY(r.out.isEmpty());
        }
    }
};

QTEST_GUILESS_MAIN(TestRangeStatistics)
#include "tst_rangestatistics.moc"
