#include "simulator/EngineSimulator.h"

#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include <cmath>
#include <nlohmann/json.hpp>

using namespace tierscope;

namespace {

struct Result {
    int code = -1;
    QByteArray out, err;
};

Result run(const QStringList& args) {
    QProcess p;
    p.start(TIERSCOPE_BINARY, args);
    p.waitForFinished(180000);
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

QStringList base(const QString& db, const QString& url) {
    return {"--db", db, "sweep", "--url", url, "--model", "tierscope-sim", "--no-record"};
}

// A small sweep: two concurrencies, two runs each, a generous SLO on TTFT p99.
QStringList small() {
    return {"--concurrency", "1,2", "--repetitions", "2", "--requests", "3",
            "--input-len",   "8",   "--output-len",  "4", "--slo",      "ttft_p99<=30s",
            "--format",      "json"};
}

nlohmann::json readJson(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return nullptr;
    return nlohmann::json::parse(file.readAll().toStdString(), nullptr, false);
}

struct SvgPoint {
    QString label, holds;
    double x = 0, y = 0;
    bool xbar = false, ybar = false;
};

} // namespace

// `tierscope sweep --chart`: the sweep's throughput against latency, drawn from its own report.
class TestSweepChart : public QObject {
    Q_OBJECT

  private slots:
    // Refused before anything is sent or stored.
    void usageErrors() {
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        const QString url = "http://127.0.0.1:9"; // nothing is sent
        const QList<QPair<QStringList, QByteArray>> cases = {
            {{"--chart", dir.filePath("c.txt")}, "--chart FILE.svg"},
            {{"--chart", dir.filePath("c.svg"), "--chart-size", "10x10"}, "--chart-size"},
            {{"--chart", dir.filePath("c.svg"), "--chart-y", "latency"}, "--chart-y latency"},
            {{"--chart", dir.filePath("c.svg"), "--chart-x", "bogus"}, "--chart-x bogus"},
            {{"--chart", dir.filePath("c.svg"), "--rates", "3"}, "give two points or more"},
        };
        for (const auto& [args, message] : cases) {
            const QStringList rates =
                args.contains("--rates") ? QStringList{} : QStringList{"--rates", "1,2"};
            const auto r = run(base(db, url) + rates + QStringList{"--requests", "4"} + args);
            QVERIFY2(r.code == 2, qPrintable(args.join(' ') + ": " + r.err));
            QVERIFY2(r.err.contains(message), qPrintable(args.join(' ') + ": " + r.err));
        }
        QVERIFY(!QFile::exists(db));
        QVERIFY(!QFile::exists(dir.filePath("c.svg")));
        const auto help = run({"sweep", "--help"});
        QVERIFY(help.out.contains("--chart") && help.out.contains("--chart-y"));
    }

    // Against the simulator: the SVG holds every point of the report at its estimates, with
    // whiskers where the report has an interval, the SLO's verdict and the SLO line. The chart
    // reads the stored runs back as `compare` does, so this also checks that the two agree.
    void svgFromASweep() {
        EngineSimulator::Options options;
        options.decodeTokensPerS = 1000;
        EngineSimulator sim(options);
        const QString url = QString("http://127.0.0.1:%1").arg(sim.start());
        QTemporaryDir dir;
        const auto r = run(base(dir.filePath("w.db"), url) + small() +
                           QStringList{"--out", dir.filePath("r.json"), "--chart",
                                       dir.filePath("c.svg"), "--experiment", "cap<1>"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.err.contains("wrote the chart to"));
        const auto report = readJson(dir.filePath("r.json"));
        QVERIFY(report.is_object());
        QFile file(dir.filePath("c.svg"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(file.readAll());
        std::vector<SvgPoint> points;
        QString series, text;
        double threshold = -1;
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isCharacters())
                text += xml.text();
            if (!xml.isStartElement())
                continue;
            const auto a = xml.attributes();
            if (a.value("class") == u"series")
                series = a.value("data-name").toString();
            if (a.value("class") == u"point")
                points.push_back({a.value("data-label").toString(),
                                  a.value("data-holds").toString(), a.value("data-x").toDouble(),
                                  a.value("data-y").toDouble()});
            if (a.value("class") == u"xbar")
                points.back().xbar = true;
            if (a.value("class") == u"ybar")
                points.back().ybar = true;
            if (a.value("class") == u"slo")
                threshold = a.value("data-threshold").toDouble();
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QCOMPARE(series, QString("cap<1>")); // the experiment's name, escaped and read back
        QVERIFY(text.contains("Throughput vs TTFT p99 (95 % intervals)"));
        QVERIFY(text.contains("ttft_p99 <= 30 s"));
        QCOMPARE(threshold, 30.0);
        QCOMPARE(points.size(), report["points"].size());
        for (const auto& p : report["points"]) {
            const auto label = QString::fromStdString(p["label"].get<std::string>());
            const auto it = std::find_if(points.begin(), points.end(),
                                         [&](const SvgPoint& s) { return s.label == label; });
            QVERIFY2(it != points.end(), qPrintable(label));
            const auto& x = p["kpis"]["output_throughput"];
            const auto& y = p["kpis"]["ttft_p99"];
            QVERIFY(std::abs(it->x / x["estimate"].get<double>() - 1) < 1e-9);
            QVERIFY(std::abs(it->y / y["estimate"].get<double>() - 1) < 1e-9);
            QCOMPARE(it->xbar, x["lo"].is_number());
            QCOMPARE(it->ybar, y["lo"].is_number());
            QCOMPARE(it->holds, QString(p["holds"].get<bool>() ? "true" : "false"));
        }
    }

    // PNG at the size asked for, with the arm's colour drawn; PDF as a PDF.
    void pngAndPdfFromASweep() {
        EngineSimulator::Options options;
        options.decodeTokensPerS = 1000;
        EngineSimulator sim(options);
        const QString url = QString("http://127.0.0.1:%1").arg(sim.start());
        QTemporaryDir dir;
        const auto r = run(base(dir.filePath("w.db"), url) + small() +
                           QStringList{"--out", dir.filePath("r.json"), "--chart",
                                       dir.filePath("c.png"), "--chart-size", "800x500"});
        QVERIFY2(r.code == 0, r.err.constData());
        QImage image(dir.filePath("c.png"));
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), QSize(800, 500));
        int blue = 0; // A's colour, #1f77b4: the curve, its markers and whiskers
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                blue += std::abs(c.red() - 0x1f) < 24 && std::abs(c.green() - 0x77) < 24 &&
                        std::abs(c.blue() - 0xb4) < 24;
            }
        QVERIFY2(blue > 20, qPrintable(QString::number(blue)));
        const auto pdf =
            run(base(dir.filePath("w.db"), url) + small() +
                QStringList{"--out", dir.filePath("r2.json"), "--chart", dir.filePath("c.pdf")});
        QVERIFY2(pdf.code == 0, pdf.err.constData());
        QFile file(dir.filePath("c.pdf"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.read(5) == "%PDF-");
    }
};

QTEST_GUILESS_MAIN(TestSweepChart)
#include "tst_sweepchart.moc"
