#include "TestSupport.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"
#include "ui/AppPalette.h"
#include "ui/compare/CompareDialog.h"
#include "ui/timeline/HeadlessExport.h"

#include <QFileInfo>
#include <QFontInfo>
#include <QImage>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace tierscope;

// The compare view on its own, offscreen, against workspaces written here with known runs.
class TestCompareDialog : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true); // the remembered compare pair
        QVERIFY(m_dir.isValid());
    }

    // A run whose engine-identity check failed: the compare view says INVALID before any
    // number, and judges no gate.
    void anInvalidComparisonSaysSoFirst() {
        const QString db = m_dir.filePath("invalid.db");
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo s;
            s.startNs = 1;
            const auto session = store.createSession(s);
            for (int i = 0; i < 4; ++i) {
                const auto id = store.createRun(session, "storage/model-load", "{}", 1, "x",
                                                i < 2 ? "A" : "B", i % 2 + 1);
                const std::string status = i == 3 ? "fail" : i == 2 ? "warn" : "pass";
                const std::string reset =
                    i == 0 ? R"(, "reset": [{"step": "drop_caches", "ok": true, "detail": )"
                             R"("page cache 2.1 GiB -> 0.3 GiB"}])"
                           : "";
                store.finishRun(id, 2, "completed",
                                R"({"seconds": )" + std::to_string(10 - i) +
                                    R"(, "validity": [{"check": "engine_identity", "status": ")" +
                                    status + R"(", "detail": "same engine as arm A"}])" + reset +
                                    "}");
            }
        }
        auto* compare = new CompareDialog(db);
        QSignalSpy shown(compare, &CompareDialog::comparisonShown);
        compare->setSides("arm:x/A", "arm:x/B");
        compare->setGates("model_load_time <= 0.5x");
        compare->compare();
        QVERIFY(shown.wait(30000));
        QVERIFY2(compare->statusText().startsWith("INVALID, gates not judged: B: run 4: "
                                                  "engine_identity fail: same engine as arm A"),
                 qPrintable(compare->statusText()));
        QCOMPARE(compare->result().gates.at(0).second.verdict, Gate::Verdict::Inconclusive);
        QVERIFY2(compare->verdictText().startsWith("INVALID, gates not judged: B: run 4"),
                 qPrintable(compare->verdictText()));
        // Every check is listed with its result and numbers, not only the failed one.
        QTableWidget* checks = compare->checkTable();
        QVERIFY(checks);
        QTabWidget* tabs = compare->chartTabs();
        QCOMPARE(tabs->widget(tabs->count() - 1), checks);
        QCOMPARE(tabs->tabText(tabs->count() - 1), QString("Checks (1 fail, 1 warn, 3 pass)"));
        QCOMPARE(checks->rowCount(), 5);
        QStringList rows;
        for (int r = 0; r < checks->rowCount(); ++r) {
            QStringList cells;
            for (int c = 0; c < checks->columnCount(); ++c)
                cells << checks->item(r, c)->text();
            rows << cells.join(" | ");
        }
        QCOMPARE(rows,
                 QStringList({"A | 1 | engine_identity | pass | same engine as arm A",
                              "A | 1 | reset drop_caches | ok | page cache 2.1 GiB -> 0.3 GiB",
                              "A | 2 | engine_identity | pass | same engine as arm A",
                              "B | 3 | engine_identity | warn | same engine as arm A",
                              "B | 4 | engine_identity | fail | same engine as arm A"}));
        QCOMPARE(checks->item(4, 3)->background().color(), QColor("#c62828"));
        QCOMPARE(checks->item(0, 3)->background().color(), QColor("#2e7d32"));
        QPushButton* exportChart = nullptr;
        for (auto* button : compare->findChildren<QPushButton*>())
            if (button->text() == "Export chart…")
                exportChart = button;
        QVERIFY(exportChart);
        tabs->setCurrentIndex(0);
        QVERIFY(exportChart->isEnabled());
        tabs->setCurrentWidget(checks); // no chart to export from the checks tab
        QVERIFY(!exportChart->isEnabled());
        // Everything, buttons included, fits a 1280x720 screen at scale factor 2 (640x360
        // logical pixels): the tables scroll in their pane instead.
        compare->show();
        const QSize least = compare->minimumSizeHint();
        QVERIFY2(least.width() <= 640 && least.height() <= 360,
                 qPrintable(QString("%1x%2").arg(least.width()).arg(least.height())));
        QVERIFY(compare->screen()->availableGeometry().contains(compare->frameGeometry()));
        delete compare;
    }

    // The dialog's headline, KPI row, gate row and chart bar state one interval: the issue's
    // A = 200, 210, 190 s against B = 10, 12, 11 s once read "-94 % [-107 %, -82 %]" beside a
    // gate's [-95.4 %, -93.4 %].
    void theDialogShowsOneIntervalPerKpi() {
        const QString db = m_dir.filePath("one-interval.db");
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo s;
            s.startNs = 1;
            const auto session = store.createSession(s);
            const double seconds[] = {200, 210, 190, 10, 12, 11};
            for (int i = 0; i < 6; ++i) {
                const auto id = store.createRun(session, "storage/model-load", "{}", 1, "x",
                                                i < 3 ? "A" : "B", i % 3 + 1);
                store.finishRun(id, 2, "completed", nlohmann::json{{"seconds", seconds[i]}}.dump());
            }
        }
        auto* compare = new CompareDialog(db);
        QSignalSpy shown(compare, &CompareDialog::comparisonShown);
        compare->setSides("arm:x/A", "arm:x/B");
        compare->setGates("model_load_time <= -90%");
        compare->compare();
        QVERIFY(shown.wait(30000));
        const QString interval = "[-95.4 %, -93.4 %]";
        QVERIFY2(compare->verdictText().startsWith("B is better: model load time -94.5 % " +
                                                   interval + "; G1 PASS"),
                 qPrintable(compare->verdictText()));
        QTableWidget* kpis = compare->kpiTable();
        int row = -1;
        for (int r = 0; r < kpis->rowCount(); ++r)
            if (kpis->item(r, 0)->text() == "model_load_time")
                row = r;
        QVERIFY(row >= 0);
        QCOMPARE(kpis->item(row, 4)->text(), QString("-94.5 %"));
        QCOMPARE(kpis->item(row, 6)->text(), interval);
        QCOMPARE(kpis->item(row, 4)->toolTip(), QString("better: B"));
        QVERIFY2(compare->gateTable()->item(0, 2)->text().contains(interval),
                 qPrintable(compare->gateTable()->item(0, 2)->text()));
        const auto& k = compare->result().kpis.at(static_cast<std::size_t>(row));
        QVERIFY(k.relativeInterval() && k.relativeInterval()->lo > -1);
        delete compare;
    }

    // Under the dark theme the charts are drawn on the palette's dark ground in its text
    // colour, at the interface's font size; "Save as image" writes the whole comparison, every
    // KPI row and chart under a title block, as one picture taller than the dialog.
    void theChartsFollowTheDarkPaletteAndSaveAsOneImage() {
        const QString db = m_dir.filePath("dark.db");
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo s;
            s.startNs = 1;
            const auto session = store.createSession(s);
            const double seconds[] = {200, 210, 190, 10, 12, 11};
            for (int i = 0; i < 6; ++i) {
                const auto id = store.createRun(session, "storage/model-load", "{}", 1, "x",
                                                i < 3 ? "A" : "B", i % 3 + 1);
                store.finishRun(id, 2, "completed", nlohmann::json{{"seconds", seconds[i]}}.dump());
            }
        }
        auto* compare = new CompareDialog(db);
        compare->setPalette(AppPalette::dark());
        compare->resize(900, 700);
        compare->show();
        QVERIFY(QTest::qWaitForWindowExposed(compare));
        QSignalSpy shown(compare, &CompareDialog::comparisonShown);
        compare->setSides("arm:x/A", "arm:x/B");
        compare->setGates("model_load_time <= -90%");
        compare->compare();
        QVERIFY(shown.wait(30000));
        const QColor base = compare->palette().color(QPalette::Base);
        QVERIFY(base.lightness() < 100);
        QVERIFY(!compare->result().charts.empty());
        for (const auto& chart : compare->result().charts) {
            const QString svg = QString::fromStdString(chart.svg);
            QVERIFY2(svg.contains("<rect x=\"0.0\" y=\"0.0\"") &&
                         svg.section("fill=\"", 2, 2).startsWith(base.name()),
                     qPrintable(QString::fromStdString(chart.name) + ": " + svg.left(400)));
            const int px = QFontInfo(compare->font()).pixelSize();
            QVERIFY2(svg.contains(QString("font-size=\"%1.0\"").arg(px)),
                     qPrintable(svg.left(300)));
        }

        const QString png = m_dir.filePath("compare.png");
        QSignalSpy exported(compare, &CompareDialog::exported);
        compare->saveImageTo(png);
        QVERIFY(exported.wait(30000));
        QCOMPARE(exported.last().at(1).toString(), QString());
        const QImage image(png);
        QVERIFY2(image.height() > compare->height(), qPrintable(QString::number(image.height())));
        QVERIFY(image.pixelColor(2, 2).lightness() < 100); // the dark theme's ground

        // Forced light, for print: the same comparison drawn again by `tierscope export chart
        // --chart view --theme light`, with the dialog's sides and gates.
        HeadlessExport::setBinary(TIERSCOPE_BINARY);
        const QString light = m_dir.filePath("compare-light.png");
        compare->saveImageTo(light, 0, 96, true);
        QVERIFY(exported.wait(120000));
        QCOMPARE(exported.last().at(0).toString(), light);
        QCOMPARE(exported.last().at(1).toString(), QString());
        const QImage printed(light);
        QVERIFY(printed.height() > compare->height());
        QCOMPARE(printed.width(), compare->width()); // laid out in a dialog of this one's size
        QVERIFY(printed.pixelColor(2, 2).lightness() > 200); // the light theme's ground
        // A gate the light picture judged too: its rows are there as in the dark one (same
        // height within the wrapping of a few words).
        QVERIFY2(std::abs(printed.height() - image.height()) < image.height() / 5,
                 qPrintable(QString("%1 vs %2").arg(printed.height()).arg(image.height())));
        delete compare;
    }

    // A headless export that cannot start, or outlives its limit, says so once, and its
    // process group is gone.
    void aFailedLightExportSaysWhy() {
        HeadlessExport::setBinary(m_dir.filePath("no-such-tierscope"));
        HeadlessExport missing({"--version"}, "x.png", nullptr);
        QSignalSpy failed(&missing, &HeadlessExport::finished);
        missing.start();
        QVERIFY(failed.wait(10000));
        QVERIFY(failed.last().at(1).toString().contains("cannot start"));

        HeadlessExport::setBinary("/bin/sleep");
        HeadlessExport slow({"60"}, "y.png", nullptr);
        slow.setTimeLimit(200);
        QSignalSpy stopped(&slow, &HeadlessExport::finished);
        slow.start();
        QVERIFY(stopped.wait(10000));
        QVERIFY(stopped.last().at(1).toString().contains("did not finish"));
        QTRY_VERIFY(!slow.running());
        QTest::qWait(100);
        QCOMPARE(stopped.count(), 1); // not again when the killed child is reaped
        HeadlessExport::setBinary({});
    }

    // An arm whose engine lost a role the other arm's served: a row of its checks, for all of
    // its runs, as compare's warning says.
    void anEngineThatLostARoleIsARowOfTheChecks() {
        const QString db = m_dir.filePath("schema.db");
        const std::int64_t second = 1'000'000'000LL, start = 1'700'000'000LL * second;
        std::int64_t session = 0;
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo s;
            s.startNs = start;
            session = store.createSession(s);
            for (int i = 0; i < 4; ++i) {
                const std::int64_t t0 = start + i * 100 * second;
                const auto id =
                    store.createRun(session, "load", "{}", t0, "x", i < 2 ? "A" : "B", i % 2 + 1);
                store.addRequests(id, {test::answered(i < 2 ? 2.0 + i : 0.5 + i / 10.0)});
                store.finishRun(id, t0 + 10 * second, "completed",
                                i < 2 ? R"({"engine_endpoints": ["a:8000"]})"
                                      : R"({"engine_endpoints": ["b:8000"]})");
            }
            store.finishSession(session, start + 400 * second);
        }
        {
            StoreWriter writer(db.toStdString(), {});
            const auto a = writer.defineMetric(
                session, {"engine/a:8000/served{role=lmcache_hit_tokens}", "1", "gauge", "{}"});
            const auto b = writer.defineMetric(
                session, {"engine/b:8000/served{role=lmcache_hit_tokens}", "1", "gauge", "{}"});
            for (int i = 0; i < 4; ++i)
                writer.append(i < 2 ? a : b, start + (i * 100 + 1) * second, i < 2 ? 1 : 0);
            writer.stop();
        }
        auto* compare = new CompareDialog(db);
        QSignalSpy shown(compare, &CompareDialog::comparisonShown);
        compare->setSides("arm:x/A", "arm:x/B");
        compare->compare();
        QVERIFY(shown.wait(30000));
        QTableWidget* checks = compare->checkTable();
        int row = -1;
        for (int r = 0; r < checks->rowCount(); ++r)
            if (checks->item(r, 2) && checks->item(r, 2)->text() == "engine_schema")
                row = r;
        QVERIFY(row >= 0);
        QCOMPARE(checks->item(row, 0)->text(), QString("B"));
        QCOMPARE(checks->item(row, 1)->text(), QString("all"));
        QCOMPARE(checks->item(row, 3)->text(), QString("warn"));
        QCOMPARE(checks->item(row, 4)->text(),
                 QString("LMCache hit tokens: served by A's engine, not by B's (no family of it "
                         "at b:8000)"));
        delete compare;
    }

    // Two arms that are load sweeps: the compare view has the throughput-latency chart as a
    // tab, drawn from the comparison's curves, and exports it as the other charts.
    void twoSweepsHaveTheCapacityChart() {
        const QString db = m_dir.filePath("sweeps.db");
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo s;
            s.startNs = 1;
            const auto session = store.createSession(s);
            // A's TTFT at rate 4 is far past the SLO; B holds at every rate.
            for (const char* arm : {"A", "B"})
                for (int rep = 1; rep <= 3; ++rep)
                    for (const double rate : {1.0, 2.0, 4.0}) {
                        const nlohmann::json params = {
                            {"rate", rate},
                            {"concurrency", 0},
                            {"sweep_mode", "rate"},
                            {"sweep_point", "rate " + std::to_string(int(rate))},
                            {"sweep_probe", "grid"},
                            {"slo", {"ttft_p99<=1s"}}};
                        const auto id =
                            store.createRun(session, "load", params.dump(), 1, "cap", arm, rep);
                        const double ttft = std::string(arm) == "A" && rate == 4 ? 5.0 : 0.1;
                        std::vector<RequestRecord> requests;
                        for (int i = 0; i < 4; ++i) {
                            requests.push_back(test::answered(ttft + 0.001 * rep));
                            requests.back().index = i;
                        }
                        store.addRequests(id, requests);
                        store.finishRun(id, 2, "completed",
                                        nlohmann::json{{"request_throughput", rate},
                                                       {"output_throughput", rate * 64}}
                                            .dump());
                    }
        }
        auto* compare = new CompareDialog(db);
        QSignalSpy shown(compare, &CompareDialog::comparisonShown);
        compare->setSides("arm:cap/A", "arm:cap/B");
        compare->compare();
        QVERIFY(shown.wait(30000));
        QTabWidget* tabs = compare->chartTabs();
        int tab = -1;
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->tabText(i) == "Throughput vs TTFT p99")
                tab = i;
        QVERIFY2(tab >= 0, qPrintable(compare->statusText()));
        const auto& chart = compare->result().charts.at(static_cast<std::size_t>(tab));
        QCOMPARE(chart.name, std::string("capacity"));
        QVERIFY(chart.svg.find("ttft_p99 &lt;= 1 s") != std::string::npos);
        QVERIFY(chart.svg.find("data-holds=\"false\"") != std::string::npos); // A at rate 4
        QSignalSpy exported(compare, &CompareDialog::exported);
        for (const char* file : {"capacity.png", "capacity.svg"}) {
            const QString path = m_dir.filePath(file);
            compare->exportChartTo(tab, path, {800, 450});
            QVERIFY(exported.wait(30000));
            QCOMPARE(exported.takeFirst().at(1).toString(), QString());
            QVERIFY(QFileInfo(path).size() > 0);
        }
        QCOMPARE(QImage(m_dir.filePath("capacity.png")).size(), QSize(800, 450));
        delete compare;
    }
};

QTEST_MAIN(TestCompareDialog)
#include "tst_comparedialog.moc"
