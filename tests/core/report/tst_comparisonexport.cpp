#include "TestSupport.h"
#include "core/analysis/RunTimeline.h"
#include "core/compare/ComparisonBuilder.h"
#include "core/report/ComparisonCharts.h"
#include "core/report/ComparisonReport.h"
#include "core/report/SvgChart.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"
#include "ui/timeline/ChartRenderer.h"

#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include <cmath>
#include <cstdio>
#include <map>

using namespace tierscope;
using Class = BottleneckClassifier::Class;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000LL;
constexpr std::int64_t kStart = 1'790'000'000LL * kSecond;

// The names of every drawn series (data-name of path/circle) and the document's text, or an
// error when the SVG is not well-formed XML.
struct ParsedSvg {
    QStringList series;
    QStringList bars;
    QString text;
    QString error;
    int width = 0;
};

ParsedSvg parse(const std::string& svg) {
    ParsedSvg out;
    QXmlStreamReader xml(QByteArray::fromStdString(svg));
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            const auto a = xml.attributes();
            if (xml.name() == u"svg")
                out.width = a.value("width").toInt();
            if (a.value("class") == u"series")
                out.series << a.value("data-name").toString();
            if (a.value("class") == u"bar")
                out.bars << a.value("data-name").toString();
            if (xml.name() == u"script")
                out.error = "a <script> element";
        }
        if (xml.isCharacters())
            out.text += xml.text();
    }
    if (xml.hasError())
        out.error = xml.errorString();
    return out;
}

} // namespace

class TestComparisonExport : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_db;
    std::int64_t m_runA = 0, m_runB = 0;

  private slots:
    // One session: run A (0-10 s) its drive at its ceiling with idle GPUs and slow first
    // tokens; run B (20-30 s) another drive at four times the bandwidth and busy GPUs.
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath("cmp.db").toStdString();
        std::int64_t session = 0;
        {
            Store store(m_db, Store::Mode::ReadWrite);
            SessionInfo info;
            info.startNs = kStart;
            info.label = "<script>alert(1)</script>";
            info.host = "node-7";
            session = store.createSession(info);
            // Both drives probed: a session's own busiest second is no ceiling of itself.
            const char* probe = R"({"read_bytes_per_s":%g,"write_bytes_per_s":1e8,)"
                                R"("random_read_iops":1e6,"unloaded_read_s":8e-5})";
            char disk[200], array[200];
            std::snprintf(disk, sizeof disk, probe, 1.1e9);
            std::snprintf(array, sizeof array, probe, 40e9);
            store.addDevices(session, {{"block", "nvme0n1", R"({"transport":"tcp"})"},
                                       {"storage-probe", "nvme0n1", disk},
                                       {"storage-probe", "nvme1n1", array}});
            store.addEvent(session, kStart, "experiment-plan", "name = \"x<y\"\n");
            m_runA = store.createRun(session, "load", "{}", kStart, "e", "disk");
            store.addRequests(m_runA, {test::answered(2.0), test::answered(2.2),
                                       test::answered(2.4), test::answered(2.6)});
            store.finishRun(m_runA, kStart + 10 * kSecond, "completed", "{}");
            m_runB = store.createRun(session, "load", "{}", kStart + 20 * kSecond, "e", "nvmeof");
            store.addRequests(m_runB, {test::answered(0.5), test::answered(0.6),
                                       test::answered(0.7), test::answered(0.8)});
            store.finishRun(m_runB, kStart + 30 * kSecond, "completed", "{}");
            store.finishSession(session, kStart + 30 * kSecond);
        }
        StoreWriter writer(m_db, {});
        const int read =
            writer.defineMetric(session, {"workload/read_bytes_per_s", "bytes/s", "rate", "{}"});
        const int gpu = writer.defineMetric(session, {"gpu/0/busy_pct", "percent", "gauge", "{}"});
        const int ttft = writer.defineMetric(session, {"engine/e/ttft_p50_s", "s", "gauge", "{}"});
        // Each arm's drive as the block collector sees it: a storage verdict needs a device
        // with a ceiling, and the workload's own series spans both arms.
        const int disk = writer.defineMetric(
            session, {"block/nvme0n1/read_bytes_per_s", "bytes/s", "rate", "{}"});
        const int array = writer.defineMetric(
            session, {"block/nvme1n1/read_bytes_per_s", "bytes/s", "rate", "{}"});
        // The engine's histograms per scrape: one request each, its TTFT and KV retrieve time.
        const int ttftSum =
            writer.defineMetric(session, {"engine/e/ttft_sum_s", "s", "gauge", "{}"});
        const int ttftCount =
            writer.defineMetric(session, {"engine/e/ttft_count", "1", "gauge", "{}"});
        const int kvSum =
            writer.defineMetric(session, {"engine/e/lmcache_retrieve_sum_s", "s", "gauge", "{}"});
        const int kvCount =
            writer.defineMetric(session, {"engine/e/lmcache_retrieve_count", "1", "gauge", "{}"});
        // And its TTFT buckets' increases, as the mapper stores them.
        std::map<std::string, int> bucket;
        for (const char* le : {"0.5", "1", "2.5", "+Inf"})
            bucket[le] = writer.defineMetric(
                session, {std::string("engine/e/ttft_bucket{le=") + le + "}", "1", "gauge", "{}"});
        for (int i = 0; i < 300; ++i) {
            const std::int64_t t = kStart + i * kSecond / 10;
            const bool a = i < 100;
            if (i >= 100 && i < 200)
                continue; // between the runs nothing is measured
            writer.append(read, t, a ? (i == 50 ? 1.1e9 : 1e9) : 4e9);
            writer.append(a ? disk : array, t, a ? (i == 50 ? 1.1e9 : 1e9) : 4e9);
            writer.append(gpu, t, a ? 20 : 95);
            writer.append(ttft, t, a ? 2.2 : 0.6);
            writer.append(ttftSum, t, a ? 2.2 : 0.6);
            writer.append(ttftCount, t, 1);
            writer.append(kvSum, t, a ? 1.5 : 0.1);
            writer.append(kvCount, t, 1);
            for (const auto& [le, id] : bucket) // 2.2 s falls in (1, 2.5], 0.6 s in (0.5, 1]
                writer.append(id, t, le == "0.5" || (a && le == "1") ? 0 : 1);
        }
        writer.stop();
    }

    void timelineOfARun() {
        Store store(m_db, Store::Mode::ReadOnly);
        const auto a = RunTimeline::read(store, *store.run(m_runA));
        QVERIFY(a.gpuBusyMeanPct);
        QCOMPARE(*a.gpuBusyMeanPct, 20.0);
        QVERIFY(a.readPeakGBps);
        // The highest 1 s mean, not the highest sample: the 100 ms spike to 1.1 GB/s in a
        // steady 1 GB/s lifts one second's mean to 1.01 GB/s.
        QVERIFY2(std::abs(*a.readPeakGBps - 1.01) < 1e-9, std::to_string(*a.readPeakGBps).c_str());
        QVERIFY(!a.writePeakGBps); // nothing wrote: absent, not zero
        QCOMPARE(a.lines.size(), std::size_t(3));
        QCOMPARE(a.lines[0].name, std::string("storage read"));
        QVERIFY(a.lines[0].points.front().first < 0.2); // seconds from the run's start
        QVERIFY2(a.shares.at(Class::StorageBound) > 0.9,
                 std::to_string(a.shares.at(Class::StorageBound)).c_str());
        const auto b = RunTimeline::read(store, *store.run(m_runB));
        QCOMPARE(*b.gpuBusyMeanPct, 95.0);
        QVERIFY(b.shares.at(Class::GpuComputeBound) > 0.9);
    }

    void timelineKpisAndShares() {
        Store store(m_db, Store::Mode::ReadOnly);
        const auto a = ComparisonBuilder::resolve(store, "run:" + std::to_string(m_runA));
        const auto b = ComparisonBuilder::resolve(store, std::to_string(m_runB));
        ComparisonBuilder::Options o;
        std::string unused;
        o.gates = {*Gate::parse("storage_bound_share <= -50%", unused),
                   *Gate::parse("gpu_busy_mean >= +100%", unused)};
        const auto in = ComparisonBuilder::build(store, a, b, o);
        auto kpi = [&](const std::string& name) -> const KpiComparison* {
            for (const auto& k : in.kpis)
                if (k.name == name)
                    return &k;
            return nullptr;
        };
        QVERIFY(kpi("gpu_busy_mean"));
        QCOMPARE(kpi("gpu_busy_mean")->b, 95.0);
        QVERIFY(!kpi("gpu_busy_mean")->lowerIsBetter);
        QVERIFY(std::abs(kpi("read_gb_per_s_peak")->a - 1.01) < 1e-9);
        QCOMPARE(kpi("read_gb_per_s_peak")->b, 4.0);
        QVERIFY(!kpi("write_gb_per_s_peak"));
        // KV retrieve over TTFT: 1.5 of 2.2 s on the disk, 0.1 of 0.6 s on the array.
        QVERIFY(kpi("storage_wait_share"));
        QVERIFY(std::abs(kpi("storage_wait_share")->a - 1.5 / 2.2 * 100) < 1e-6);
        QVERIFY(std::abs(kpi("storage_wait_share")->b - 0.1 / 0.6 * 100) < 1e-6);
        QVERIFY(kpi("storage_wait_share")->lowerIsBetter);
        // The run's engine TTFT quantiles are histogram_quantile of its own buckets, linear in
        // the bucket that holds the rank: (1, 2.5] for the disk, (0.5, 1] for the array.
        QVERIFY(std::abs(kpi("engine_ttft_p50")->a - (1 + 1.5 * 0.5)) < 1e-9);
        QVERIFY(std::abs(kpi("engine_ttft_p99")->a - (1 + 1.5 * 0.99)) < 1e-9);
        QVERIFY(std::abs(kpi("engine_ttft_p50")->b - (0.5 + 0.5 * 0.5)) < 1e-9);
        QVERIFY(std::abs(kpi("engine_ttft_mean")->a - 2.2) < 1e-9);
        QVERIFY(kpi("storage_bound_share")->a > 90);
        QVERIFY(kpi("storage_bound_share")->b < 10);
        QVERIFY(!kpi("gpu_compute_bound_share")->lowerIsBetter);
        QVERIFY(kpi("gpu_compute_bound_share")->b > kpi("gpu_compute_bound_share")->a);
        QVERIFY(kpi("ttft_p50")->b < kpi("ttft_p50")->a);
        // One run a side: the point estimates differ, but nothing says which side is better.
        QCOMPARE(kpi("ttft_p50")->verdict(), KpiComparison::Verdict::NoInterval);
        QVERIFY(ComparisonReport::text(in).find("n/a (1 run: repeat the run to get an interval)") !=
                std::string::npos);
        for (const auto& [gate, result] : in.gates)
            QCOMPARE(result.verdict, Gate::Verdict::Inconclusive);
        QCOMPARE(in.shares.front().bottleneck, std::string("storage-bound"));
        QVERIFY(*in.shares.front().a > 0.9 && *in.shares.front().b < 0.1);
        const std::string text = ComparisonReport::text(in);
        QVERIFY2(text.find("storage-bound: 10") != std::string::npos ||
                     text.find("storage-bound: 9") != std::string::npos,
                 text.c_str());
        // One run a side: no interval, so gates on it cannot pass, but they are judged.
        QCOMPARE(in.gates.size(), std::size_t(2));
        QVERIFY(in.charts.empty()); // the builder decides; charts are the caller's to ask for
        QCOMPARE(in.plan, std::string("name = \"x<y\"\n"));
        QCOMPARE(in.hosts.size(), std::size_t(1));
        QVERIFY(in.hosts[0].find("node-7") != std::string::npos);
        QCOMPARE(in.devices.size(), std::size_t(3)); // the drive and the two probes
    }

    void chartsAreWellFormedAndHoldTheirSeries() {
        Store store(m_db, Store::Mode::ReadOnly);
        const auto a = ComparisonBuilder::resolve(store, std::to_string(m_runA));
        const auto b = ComparisonBuilder::resolve(store, std::to_string(m_runB));
        auto in = ComparisonBuilder::build(store, a, b, {});
        ComparisonCharts::attach(in, a, b);
        QCOMPARE(in.charts.size(), std::size_t(4));
        for (const auto& chart : in.charts) {
            const auto svg = parse(chart.svg);
            QVERIFY2(svg.error.isEmpty(), (chart.name + ": " + svg.error.toStdString()).c_str());
            QCOMPARE(svg.width, 900);
        }
        const auto cdf = parse(in.charts[0].svg);
        QCOMPARE(cdf.series, QStringList({"A (4 requests)", "B (4 requests)"}));
        const auto bars = parse(in.charts[1].svg);
        QVERIFY(bars.bars.contains("ttft_p50"));
        QVERIFY(bars.bars.contains("gpu_busy_mean"));
        const auto lines = parse(in.charts[2].svg);
        QCOMPARE(lines.series.count("A run " + QString::number(m_runA)), 3); // read, GPU, TTFT
        QCOMPARE(lines.series.count("B run " + QString::number(m_runB)), 3);
        QVERIFY(lines.text.contains("storage read (GB/s)"));
        const auto shares = parse(in.charts[3].svg);
        QVERIFY(shares.text.contains("storage-bound"));
        QVERIFY(shares.text.contains("gpu-compute-bound"));

        // A hostile series name stays text.
        SvgChart chart(400, 300, "<script>alert(1)</script>");
        const auto hostile =
            parse(chart.lines("x", {{"y", {{"</text><script>", "red", {{0, 1}, {1, 2}}, false}}}}));
        QVERIFY2(hostile.error.isEmpty(), qPrintable(hostile.error));
        QVERIFY(hostile.text.contains("<script>alert(1)</script>"));
        QCOMPARE(hostile.series, QStringList({"</text><script>"}));
    }

    void cdfIsDecimatedToTheChartWidth() {
        ComparisonSide a, b;
        a.runs.resize(1);
        b.runs.resize(1);
        a.runs[0].status = b.runs[0].status = "completed"; // only measurements are drawn
        a.requests.resize(1);
        b.requests.resize(1);
        for (int i = 0; i < 100000; ++i) {
            StoredRequest r;
            r.ok = true;
            r.ttftS = 0.001 * (i % 997);
            a.requests[0].push_back(r);
            b.requests[0].push_back(r);
        }
        const auto svg =
            ComparisonCharts::render(ComparisonCharts::Kind::TtftCdf, a, b, {}, 500, 300);
        const auto path = svg.find("d=\"M");
        QVERIFY(path != std::string::npos);
        const auto end = svg.find('"', path + 3);
        const auto points = std::count(svg.begin() + static_cast<long>(path),
                                       svg.begin() + static_cast<long>(end), 'L') +
                            1;
        QVERIFY2(points <= 2 * 500 + 2, std::to_string(points).c_str());
        QVERIFY(points >= 500);
    }

    void ticksAreRound() {
        QCOMPARE(SvgChart::ticks(0, 10, 5), std::vector<double>({0, 2, 4, 6, 8, 10}));
        const auto t = SvgChart::ticks(-0.3, 0.7, 4);
        const std::vector<double> expected{-0.2, 0, 0.2, 0.4, 0.6};
        QCOMPARE(t.size(), expected.size());
        for (std::size_t i = 0; i < t.size(); ++i)
            QVERIFY(std::abs(t[i] - expected[i]) < 1e-9);
        QVERIFY(SvgChart::ticks(1, 1, 5).empty());
    }

    void rendersPngPdfAndSvgFiles() {
        const std::string svg =
            SvgChart(640, 360, "t").bars("y", {{"k", 10, {{5, 15}}, "#2ca02c"}});
        const QString png = m_dir.filePath("c.png");
        test::plantLink(png); // replaced, never written through
        QCOMPARE(ChartRenderer::write(QByteArray::fromStdString(svg), png,
                                      ChartRenderer::Format::Png, QSize(640, 360)),
                 QString());
        QCOMPARE(test::plantedLinkProblem(png), QString());
        const QImage image(png);
        QCOMPARE(image.size(), QSize(640, 360));
        QVERIFY(image.pixelColor(5, 5) == QColor(Qt::white));
        QVERIFY(image.pixelColor(image.width() / 2, 150) != QColor(Qt::white)); // the bar
        const QString pdf = m_dir.filePath("c.pdf");
        QCOMPARE(ChartRenderer::write(QByteArray::fromStdString(svg), pdf,
                                      ChartRenderer::Format::Pdf, QSize(640, 360)),
                 QString());
        QFile f(pdf);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.read(5) == "%PDF-");
        QVERIFY(!QFile::exists(pdf + ".part"));
        QVERIFY(!ChartRenderer::write("not svg", m_dir.filePath("x.png"),
                                      ChartRenderer::Format::Png, QSize(640, 360))
                     .isEmpty());
        QCOMPARE(ChartRenderer::formatOf("a/b.PDF"), ChartRenderer::Format::Pdf);
        QVERIFY(!ChartRenderer::formatOf("a.jpg"));
    }

    void exportCommands() {
        const QString db = QString::fromStdString(m_db);
        const QString a = QString::number(m_runA), b = QString::number(m_runB);
        QProcess p;
        const QString html = m_dir.filePath("r.html");
        p.start(TIERSCOPE_BINARY,
                {"--db", db, "export", "report", a, b, "--gate-preset", "G3", "--out", html});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QFile f(html);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray page = f.readAll();
        QCOMPARE(page.count("<svg"), 4);
        QVERIFY(!page.contains("<script>"));
        QVERIFY(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        QVERIFY(page.contains("name = &quot;x&lt;y&quot;")); // the plan
        QVERIFY(page.contains("node-7"));
        QVERIFY(page.contains("nvme0n1"));
        QVERIFY(page.contains("G3") || page.contains("ttft_p50 &lt;= -25%"));

        p.start(TIERSCOPE_BINARY, {"--db", db, "export", "report", a, b, "--format", "csv"});
        QVERIFY(p.waitForFinished(60000));
        const auto csv =
            QString::fromUtf8(p.readAllStandardOutput()).split("\r\n", Qt::SkipEmptyParts);
        QVERIFY(csv.size() > 5);
        QVERIFY(csv[0].startsWith("kpi,unit,lower_is_better,a,b,"));
        QVERIFY(csv.filter(QRegularExpression("^ttft_p50,s,true,2\\.")).size() == 1);

        const QString png = m_dir.filePath("cdf.png");
        p.start(TIERSCOPE_BINARY, {"--db", db, "export", "chart", a, b, "--chart", "ttft-cdf",
                                   "--size", "800x450", "--out", png});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QCOMPARE(QImage(png).size(), QSize(800, 450));

        p.start(TIERSCOPE_BINARY, {"--db", db, "export", "chart", a, b, "--chart", "timelines"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(parse(p.readAllStandardOutput().toStdString()).error.isEmpty());

        p.start(TIERSCOPE_BINARY, {"--db", db, "export", "chart", a, b, "--chart", "pie"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(p.readAllStandardError().contains(
            "ttft-cdf, kpi-bars, timelines, bottlenecks or capacity"));
        // Throughput against latency needs two sweeps; these runs are not.
        p.start(TIERSCOPE_BINARY, {"--db", db, "export", "chart", a, b, "--chart", "capacity"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(p.readAllStandardError().contains("needs A and B to be sweeps"));
        p.start(TIERSCOPE_BINARY, {"--db", db, "export", "chart", a, "run:999", "--out", png});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 6);
    }
};

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv); // fonts for the PNG and PDF
    TestComparisonExport test;
    return QTest::qExec(&test, argc, argv);
}
#include "tst_comparisonexport.moc"
