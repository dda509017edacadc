#include "core/analysis/RangeStatistics.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"
#include "core/view/PhaseSections.h"
#include "ui/MainWindow.h"
#include "ui/experiment/ExperimentDialog.h"
#include "ui/timeline/RangePanel.h"
#include "ui/timeline/SectionCompareDialog.h"
#include "ui/timeline/SectionTrack.h"
#include "ui/timeline/TimelineChart.h"
#include "ui/timeline/TimelineView.h"
#include "ui/timeline/ViewExporter.h"

#include <QChart>
#include <QFile>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000LL, kStart = 1'790'000'000LL * kSecond;

std::int64_t at(double s) {
    return kStart + static_cast<std::int64_t>(s * 1e9);
}

double gpuAt(int i) {
    return i;
}
double cpuAt(int i) {
    return 2.0 * i;
}

std::vector<Bucket> perSecond(double (*value)(int)) {
    std::vector<Bucket> out;
    for (int i = 0; i < 60; ++i)
        out.push_back({kStart + i * kSecond, 0, value(i), value(i), value(i), 1});
    return out;
}

QString exactSeconds(std::int64_t ns) {
    return QString("%1.%2s").arg(ns / kSecond).arg(ns % kSecond, 9, 10, QChar('0'));
}

// A session of 60 s: gpu/0/busy_pct is i and host/cpu/busy_pct 2i at second i, and an A/B
// experiment: a warm-up of A, then A r1, B r1 | B r2, A r2 (abba), the engine restarting
// when the arm changes. A r1 sends requests with TTFT 0.1 .. 1.0 s, B r1 0.05 .. 0.5 s.
std::int64_t writeSession(const std::string& db, std::map<std::string, std::int64_t>& runs) {
    std::int64_t session = 0;
    {
        Store store(db, Store::Mode::ReadWrite);
        SessionInfo info;
        info.startNs = kStart;
        info.host = "h";
        session = store.createSession(info);
        store.finishSession(session, kStart + 60 * kSecond);
    }
    {
        StoreWriter writer(db, {});
        const int gpu = writer.defineMetric(session, {"gpu/0/busy_pct", "percent"});
        const int cpu = writer.defineMetric(session, {"host/cpu/busy_pct", "percent"});
        for (int i = 0; i < 60; ++i) {
            writer.append(gpu, kStart + i * kSecond, gpuAt(i));
            writer.append(cpu, kStart + i * kSecond, cpuAt(i));
        }
        writer.stop();
    }
    Store store(db, Store::Mode::ReadWrite);
    const auto add = [&](const std::string& name, const std::string& arm, int rep, double from,
                         double to, double ttftStep) {
        const auto id = store.createRun(session, "load", "{}", at(from), "ab", arm, rep);
        if (ttftStep > 0) {
            std::vector<RequestRecord> requests;
            for (int k = 0; k < 10; ++k) {
                RequestRecord r;
                r.sendNs = at(from + k);
                r.ttftS = ttftStep * (k + 1);
                r.httpStatus = 200;
                requests.push_back(r);
            }
            store.addRequests(id, requests);
        }
        store.finishRun(id, at(to), rep == 0 ? "warmup" : "completed", "{}");
        runs[name] = id;
    };
    add("warm-up A", "A", 0, 2, 8, 0);
    add("A r1", "A", 1, 10, 20, 0.1);
    add("B r1", "B", 1, 25, 35, 0.05);
    add("B r2", "B", 2, 38, 46, 0);
    add("A r2", "A", 2, 48, 58, 0);
    store.addEvent(session, at(0.5), "experiment-plan", "name = \"ab\"");
    store.addEvent(session, at(1.5), "engine-start", "A: pid 10, vllm serve");
    store.addEvent(session, at(21), "engine-stop", "A: pid 10");
    store.addEvent(session, at(24), "engine-start", "B: pid 11, vllm serve");
    store.addEvent(session, at(47), "engine-stop", "B: pid 11");
    store.addEvent(session, at(47.5), "engine-start", "A: pid 12, vllm serve");
    store.addEvent(session, at(59), "engine-stop", "A: pid 12");
    return session;
}

QStringList barNames(const SectionTrack* track) {
    QStringList out;
    for (const auto& bar : track->bars())
        out << QString::fromStdString(bar.section->name);
    return out;
}

SectionTrack::Bar barNamed(const SectionTrack* track, const std::string& name) {
    for (const auto& bar : track->bars())
        if (bar.section->name == name)
            return bar;
    return {};
}

// A point on a bar clear of a group's disclosure triangle.
QPoint bodyOf(const SectionTrack::Bar& bar) {
    return QPointF(bar.rect.right() - 3, bar.rect.center().y()).toPoint();
}

QPoint triangleOf(const SectionTrack::Bar& bar) {
    return SectionTrack::triangleRect(bar.rect).center().toPoint();
}

} // namespace

// The section track above the timeline's charts: its groups open and close, a click selects a
// section's exact span for the range panel, a Ctrl+click on a second one compares the two with
// the figures RangeStatistics and `tierscope analyze --range` give; the main window shows it
// for a session with runs.
class TestSectionTrack : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_db;
    std::int64_t m_session = 0, m_gpu = 0, m_cpu = 0;
    std::map<std::string, std::int64_t> m_runs;
    std::unique_ptr<TimelineView> m_view;
    std::unique_ptr<RangePanel> m_panel;
    std::unique_ptr<SectionCompareDialog> m_compare;

    SectionTrack* track() const { return m_view->sectionTrack(); }

    RangeStatistics::Result expected(std::int64_t fromNs, std::int64_t toNs) {
        Store store(m_db.toStdString(), Store::Mode::ReadOnly);
        return RangeStatistics::compute(store, m_session, fromNs, toNs,
                                        RangeStatistics::kDefaultWindowNs, {m_gpu, m_cpu});
    }

    nlohmann::json cli(std::int64_t fromNs, std::int64_t toNs) {
        QProcess p;
        p.start(TIERSCOPE_BINARY,
                {"--db", m_db, "analyze", "--session", QString::number(m_session), "--range",
                 exactSeconds(fromNs) + ".." + exactSeconds(toNs), "--format", "json"});
        if (!p.waitForFinished(60000) || p.exitCode() != 0)
            qFatal("tierscope analyze --range failed: %s", p.readAllStandardError().constData());
        return nlohmann::json::parse(p.readAllStandardOutput().toStdString());
    }

    void collapseAll() {
        for (int g = 0; g < static_cast<int>(track()->sections().size()); ++g)
            track()->setExpanded(g, false);
    }

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true); // QSettings in a scratch location
        qRegisterMetaType<tierscope::ExperimentDialog*>();
        QSettings("tierscope", "tierscope").remove("window"); // a size saved by a past run
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath("sections.db");
        m_session = writeSession(m_db.toStdString(), m_runs);
        Store store(m_db.toStdString(), Store::Mode::ReadOnly);
        for (const auto& m : store.metrics(m_session))
            (m.descriptor.path == "gpu/0/busy_pct" ? m_gpu : m_cpu) = m.id;

        m_view = std::make_unique<TimelineView>();
        m_view->setCharts(
            {{"gpu-busy", "GPU busy", ChartCatalog::Unit::Percent, {{m_gpu, "gpu 0"}}},
             {"host-cpu", "CPU busy", ChartCatalog::Unit::Percent, {{m_cpu, "cpu"}}}});
        m_view->setInteractive(true);
        m_view->setBounds(0, 60);
        m_view->setTimeRange(0, 60, "seconds");
        m_view->setData({{m_gpu, perSecond(gpuAt)}, {m_cpu, perSecond(cpuAt)}}, kStart);
        m_view->sectionTrack()->setSections(
            PhaseSections::build(store.runsOfSession(m_session), store.events(m_session)));
        m_view->resize(1100, 700);
        m_view->show();
        m_panel = std::make_unique<RangePanel>();
        m_panel->setSession(m_db, m_session);
        m_compare = std::make_unique<SectionCompareDialog>();
        // As the main window wires them.
        connect(m_view.get(), &TimelineView::rangeSelected, m_panel.get(),
                [this](double a, double b) {
                    m_panel->setMetricIds(m_view->storedMetricIds());
                    m_panel->setRange(a, b);
                });
        connect(track(), &SectionTrack::compareRequested, m_compare.get(),
                [this](const PhaseSections::Section& a, const PhaseSections::Section& b) {
                    m_compare->setSession(m_db, m_session, kStart);
                    m_compare->setMetricIds(m_view->storedMetricIds());
                    m_compare->compare(a, b);
                });
        for (auto* chart : m_view->charts())
            QTRY_VERIFY(chart->chart()->plotArea().width() > 200);
        QTRY_VERIFY(track()->isVisible() && !track()->bars().empty());
    }

    void cleanupTestCase() {
        QThreadPool::globalInstance()->waitForDone();
        m_view.reset();
        m_panel.reset();
        m_compare.reset();
    }

    // On the charts' time axis: a section's bar starts where its run's span does.
    void alignedWithThePlots() {
        auto* chart = m_view->charts().front();
        const QRect plot = chart->plotRectIn(m_view.get());
        const auto bar = barNamed(track(), "repetition 1");
        QVERIFY(bar.section);
        const double x = track()->mapTo(m_view.get(), QPoint(0, 0)).x() + bar.rect.left();
        QVERIFY2(std::abs(x - (plot.left() + plot.width() * 10.0 / 60)) <= 2,
                 qPrintable(QString::number(x)));
    }

    void collapseAndExpandChangeTheBars() {
        collapseAll();
        QCOMPARE(barNames(track()), QStringList({"warm-up", "repetition 1", "repetition 2"}));
        const int collapsedHeight = track()->height();
        // The triangle opens a group: its runs and steps in a second lane, the group stays.
        QTest::mouseClick(track(), Qt::LeftButton, {},
                          triangleOf(barNamed(track(), "repetition 1")));
        QVERIFY(track()->isExpanded(1));
        QCOMPARE(barNames(track()), QStringList({"warm-up", "repetition 1", "A r1", "engine stop A",
                                                 "engine start B", "B r1", "repetition 2"}));
        QTRY_VERIFY(track()->height() > collapsedHeight);
        const auto run = barNamed(track(), "A r1");
        QVERIFY(run.rect.top() >= barNamed(track(), "repetition 1").rect.bottom());
        // A double-click on a group's bar opens it too.
        QTest::mouseDClick(track(), Qt::LeftButton, {}, bodyOf(barNamed(track(), "repetition 2")));
        QVERIFY(track()->isExpanded(2));
        QCOMPARE(track()->bars().size(), std::size_t(3 + 4 + 5));
        // The triangle closes it again.
        QTest::mouseClick(track(), Qt::LeftButton, {},
                          triangleOf(barNamed(track(), "repetition 1")));
        QVERIFY(!track()->isExpanded(1));
        QCOMPARE(track()->bars().size(), std::size_t(3 + 5));
        QVERIFY(!barNamed(track(), "A r1").section);
        track()->setExpanded(2, false);
        QCOMPARE(track()->bars().size(), std::size_t(3));
        QTRY_COMPARE(track()->height(), collapsedHeight);
        // Tooltips name the run and its details.
        const QString tip = track()->tooltipOf(*barNamed(track(), "repetition 2").section);
        QVERIFY2(tip.contains("38.0 s .. 59.0 s") && tip.contains("2 runs (A, B)"),
                 qPrintable(tip));
    }

    // A click selects exactly the section's span, as a double-click on a run's span does: the
    // run is selected and the range panel shows that span's figures.
    void clickSelectsTheExactSpan() {
        collapseAll();
        track()->setExpanded(1, true);
        QSignalSpy runs(m_view.get(), &TimelineView::runSelected);
        QSignalSpy computed(m_panel.get(), &RangePanel::computed);
        QTest::mouseClick(track(), Qt::LeftButton, {}, bodyOf(barNamed(track(), "A r1")));
        QCOMPARE(runs.count(), 1);
        QCOMPARE(runs.first().first().toLongLong(), m_runs["A r1"]);
        QCOMPARE(m_view->selectedRun(), m_runs["A r1"]);
        QCOMPARE(m_view->selectionStart(), 10.0);
        QCOMPARE(m_view->selectionEnd(), 20.0);
        QVERIFY(track()->picked() && track()->picked()->name == "A r1");
        QVERIFY(computed.wait(30000));
        QCOMPARE(m_panel->result()->fromNs, 10 * kSecond);
        QCOMPARE(m_panel->result()->toNs, 20 * kSecond);
        QCOMPARE(m_panel->result()->requests.count, std::size_t(10));
        const auto core = expected(10 * kSecond, 20 * kSecond);
        QCOMPARE(m_panel->result()->find(m_gpu)->now->mean, core.find(m_gpu)->now->mean);
        QCOMPARE(core.find(m_gpu)->now->mean, 14.5); // seconds 10..19
        // A group: from its first step to its last.
        QTest::mouseClick(track(), Qt::LeftButton, {}, bodyOf(barNamed(track(), "repetition 2")));
        QCOMPARE(m_view->selectionStart(), 38.0);
        QCOMPARE(m_view->selectionEnd(), 59.0);
        QVERIFY(computed.wait(30000));
        QCOMPARE(m_panel->result()->fromNs, 38 * kSecond);
        QCOMPARE(m_panel->result()->toNs, 59 * kSecond);
        // Escape clears the range and the section picked.
        QTest::keyClick(m_view.get(), Qt::Key_Escape);
        QVERIFY(!m_view->hasSelection());
        QVERIFY(!track()->picked());
    }

    // Ctrl+click on a second section compares the two: per series and for the requests, the
    // figures of RangeStatistics and of `analyze --range` for each span, and the change B vs A.
    void ctrlClickComparesTwoSections() {
        collapseAll();
        track()->setExpanded(1, true);
        QSignalSpy asked(track(), &SectionTrack::compareRequested);
        QSignalSpy computed(m_compare.get(), &SectionCompareDialog::computed);
        QTest::mouseClick(track(), Qt::LeftButton, {}, bodyOf(barNamed(track(), "A r1")));
        QTest::mouseClick(track(), Qt::LeftButton, Qt::ControlModifier,
                          bodyOf(barNamed(track(), "B r1")));
        QCOMPARE(asked.count(), 1);
        QVERIFY(track()->compared() && track()->compared()->name == "B r1");
        QCOMPARE(m_view->selectionStart(), 10.0); // the range stays A's
        QVERIFY(computed.wait(30000));
        const auto& a = *m_compare->resultA();
        const auto& b = *m_compare->resultB();
        QCOMPARE(a.fromNs, 10 * kSecond);
        QCOMPARE(a.toNs, 20 * kSecond);
        QCOMPARE(b.fromNs, 25 * kSecond);
        QCOMPARE(b.toNs, 35 * kSecond);
        const auto coreA = expected(10 * kSecond, 20 * kSecond);
        const auto coreB = expected(25 * kSecond, 35 * kSecond);
        const auto jsonA = cli(10 * kSecond, 20 * kSecond);
        const auto jsonB = cli(25 * kSecond, 35 * kSecond);
        auto* table = m_compare->table();
        QCOMPARE(table->rowCount(), 2);
        for (int row = 0; row < table->rowCount(); ++row) {
            const auto id = table->item(row, 0)->data(Qt::UserRole).toLongLong();
            const auto* ea = coreA.find(id);
            const auto* eb = coreB.find(id);
            QVERIFY(ea && eb && ea->now && eb->now);
            using C = SectionCompareDialog::Column;
            QCOMPARE(table->item(row, C::CountA)->text(), QString::number(ea->now->count));
            QCOMPARE(table->item(row, C::MeanA)->text(), RangePanel::number(ea->now->mean));
            QCOMPARE(table->item(row, C::MeanB)->text(), RangePanel::number(eb->now->mean));
            QCOMPARE(table->item(row, C::P50B)->text(), RangePanel::number(eb->now->p50));
            QCOMPARE(table->item(row, C::P99A)->text(), RangePanel::number(ea->now->p99));
            QCOMPARE(table->item(row, C::P99B)->text(), RangePanel::number(eb->now->p99));
            QCOMPARE(table->item(row, C::Change)->text(),
                     SectionCompareDialog::changeText(RangeStatistics::change(ea->now, eb->now)));
            for (const auto& [json, figures] : {std::pair{&jsonA, ea}, std::pair{&jsonB, eb}})
                for (const auto& j : (*json)["series"])
                    if (j["metric_id"].get<std::int64_t>() == id) {
                        QCOMPARE(j["range"]["mean"].get<double>(), figures->now->mean);
                        QCOMPARE(j["range"]["p99"].get<double>(), figures->now->p99);
                    }
        }
        // gpu/0/busy_pct: seconds 10..19 against 25..34.
        QCOMPARE(a.find(m_gpu)->now->mean, 14.5);
        QCOMPARE(b.find(m_gpu)->now->mean, 29.5);
        // The requests: TTFT p50 and p99 as the core and the CLI compute them.
        auto* requests = m_compare->requestsTable();
        using R = SectionCompareDialog::RequestRow;
        QCOMPARE(requests->item(R::Sent, 0)->text(), QString("10"));
        QCOMPARE(requests->item(R::Sent, 1)->text(), QString("10"));
        QCOMPARE(requests->item(R::TtftP50, 0)->text(),
                 RangePanel::number(coreA.requests.ttftP50S));
        QCOMPARE(requests->item(R::TtftP50, 1)->text(),
                 RangePanel::number(coreB.requests.ttftP50S));
        QCOMPARE(requests->item(R::TtftP99, 1)->text(),
                 RangePanel::number(coreB.requests.ttftP99S));
        QCOMPARE(jsonA["requests"]["ttft_p50_s"].get<double>(), *coreA.requests.ttftP50S);
        QCOMPARE(jsonB["requests"]["ttft_p99_s"].get<double>(), *coreB.requests.ttftP99S);
        QCOMPARE(*coreA.requests.ttftP50S, 0.55);
        QCOMPARE(requests->item(R::TtftP50, 2)->text(), QString("-50.0 %"));
        QVERIFY(m_compare->titleText().contains("A: A r1, 10.000 s .. 20.000 s"));
        m_view->clearSelection();
    }

    // File > Export view draws the phases row too: it lies above the charts, inside the first
    // piece, and its bars' names are in the picture.
    void theExportedViewHasTheSections() {
        collapseAll();
        const auto pieces = ViewExporter::piecesOf(m_view.get());
        QVERIFY(!pieces.empty());
        QCOMPARE(pieces.front().widget, static_cast<QWidget*>(m_view.get()));
        const QRect trackRect(track()->mapTo(m_view.get(), QPoint(0, 0)), track()->size());
        QVERIFY2(pieces.front().region.contains(trackRect),
                 qPrintable(
                     QString("%1 %2").arg(pieces.front().region.height()).arg(trackRect.bottom())));
        const QByteArray svg =
            ViewExporter::compose({"t", {}}, pieces, m_view->palette(), m_view->font(), nullptr);
        for (const char* name : {"warm-up", "repetition 1", "repetition 2"})
            QVERIFY2(svg.contains(name), name);
    }

    // A track of no sections is hidden.
    void hiddenWithoutRuns() {
        TimelineView view;
        view.show();
        QVERIFY(view.sectionTrack()->isHidden());
        SectionTrack lone;
        lone.setSections({});
        QVERIFY(lone.isHidden());
        QVERIFY(lone.bars().empty());
    }

    // The main window shows a recorded session's sections, compares two in its dialog and hides
    // the track in the live view.
    void mainWindowShowsTheSections() {
        MainWindow window({m_db, m_session, false, 60});
        window.resize(1400, 900);
        QSignalSpy shown(&window, &MainWindow::sessionShown);
        window.show();
        QVERIFY(shown.wait(10000));
        auto* t = window.timeline()->sectionTrack();
        QTRY_VERIFY(t->isVisible());
        QCOMPARE(t->sections().size(), std::size_t(3));
        QTRY_VERIFY(barNamed(t, "repetition 1").section);
        t->setExpanded(1, true);
        QTest::mouseClick(t, Qt::LeftButton, {}, bodyOf(barNamed(t, "A r1")));
        QTRY_VERIFY(window.rangeDock()->isVisible());
        QTest::mouseClick(t, Qt::LeftButton, Qt::ControlModifier, bodyOf(barNamed(t, "B r1")));
        QVERIFY(window.sectionCompare());
        QSignalSpy computed(window.sectionCompare(), &SectionCompareDialog::computed);
        QVERIFY(window.sectionCompare()->resultA() || computed.wait(30000));
        QCOMPARE(window.sectionCompare()->resultA()->fromNs, 10 * kSecond);
        QCOMPARE(window.sectionCompare()->resultB()->toNs, 35 * kSecond);
        window.showLive();
        QVERIFY(t->isHidden());
        QThreadPool::globalInstance()->waitForDone();
    }

    // In the live view, an experiment run from a plan shows its sections as its runs finish:
    // read again when it starts recording and whenever a run starts, open groups kept open.
    void liveExperimentShowsItsSections() {
        const QString plan = m_dir.filePath("plan.toml");
        {
            QFile f(plan);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("name = \"ab\"\n[[arm]]\nlabel = \"A\"\npath = \"/tmp\"\n[[arm]]\n"
                    "label = \"B\"\npath = \"/tmp\"\n[[workload]]\nkind = \"model-load\"\n"
                    "size = \"1MiB\"\nfiles = 1\n");
        }
        MainWindow window({m_db, 0, false, 60});
        window.show();
        QSignalSpy opened(&window, &MainWindow::planOpened);
        window.openPlan(plan);
        QVERIFY(opened.wait(10000));
        auto* dialog = opened.first().at(0).value<ExperimentDialog*>();
        auto* t = window.timeline()->sectionTrack();
        QVERIFY(t->isHidden());
        // As the dialog announces a run of this machine recording into the test's session.
        emit dialog->recordingStarted(m_session, {});
        QTRY_COMPARE(t->sections().size(), std::size_t(3));
        QVERIFY(t->isVisible());
        // As if the last repetition were not stored yet; its first one open.
        t->setExpanded(1, true);
        auto fewer = t->sections();
        fewer.pop_back();
        t->setSections(fewer, true);
        QVERIFY(t->isExpanded(1));
        emit dialog->runStartedAt(at(60), "run 6 of 6: A");
        QTRY_COMPARE(t->sections().size(), std::size_t(3));
        QVERIFY(t->isExpanded(1) && !t->isExpanded(2));
        dialog->close();
    }
};

QTEST_MAIN(TestSectionTrack)
#include "tst_sectiontrack.moc"
