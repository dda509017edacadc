#include "TestSupport.h"
#include "collectors/prometheus/PrometheusApi.h"
#include "core/store/Store.h"
#include "ui/MainWindow.h"
#include "ui/feeds/PrometheusDialog.h"
#include "ui/timeline/TimelineChart.h"
#include "ui/timeline/TimelineView.h"

#include <QAction>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

using namespace tierscope;

// The GUI fed from a real Prometheus that scrapes two tierscope agents (two "nodes").
class TestPrometheusGui : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::vector<std::unique_ptr<QProcess>> m_servers;
    QString m_url;
    QStringList m_nodes;

    void serve(const QString& program, const QStringList& args) {
        auto p = std::make_unique<QProcess>();
        p->setProcessChannelMode(QProcess::MergedChannels);
        p->setStandardOutputFile(QProcess::nullDevice());
        p->start(program, args);
        QVERIFY(p->waitForStarted(10000));
        m_servers.push_back(std::move(p));
    }

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QStandardPaths::setTestModeEnabled(true);
        const QString prometheus = QStandardPaths::findExecutable("prometheus");
        QVERIFY2(!prometheus.isEmpty(), "install prometheus (scripts/install-deps.sh)");
        QString targets;
        for (int i = 0; i < 2; ++i) {
            const int port = test::freePort();
            serve(TIERSCOPE_BINARY, {"agent", "--listen", QString("127.0.0.1:%1").arg(port)});
            m_nodes << QString("127.0.0.1:%1").arg(port);
            targets += QString("%1\"127.0.0.1:%2\"").arg(i ? ", " : "").arg(port);
        }
        test::writeFile(m_dir.filePath("prom.yml"),
                        QString("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: "
                                "agent\n    static_configs: [{targets: [%1]}]\n")
                            .arg(targets)
                            .toUtf8());
        const int port = test::freePort();
        m_url = QString("http://127.0.0.1:%1").arg(port);
        serve(prometheus, {"--config.file=" + m_dir.filePath("prom.yml"),
                           QString("--web.listen-address=127.0.0.1:%1").arg(port),
                           "--storage.tsdb.path=" + m_dir.filePath("tsdb")});
        PrometheusApi api(m_url.toStdString());
        QTRY_VERIFY_WITH_TIMEOUT(api.query("count(up == 1) == 2").series.size() == 1, 30000);
    }

    void cleanupTestCase() {
        for (auto& p : m_servers) {
            p->terminate();
            p->waitForFinished(5000);
        }
    }

    void dialogListsTheMatchingNodes() {
        MainWindow w({m_dir.filePath("d.db"), 0, false, 60});
        PrometheusDialog dialog(w.prometheusFeed(), m_url);
        QSignalSpy shown(&dialog, &PrometheusDialog::nodesShown);
        dialog.findNodes();
        QVERIFY(shown.wait(15000));
        QCOMPARE(dialog.listedNodes().size(), 2);
        QVERIFY(dialog.listedNodes()[0].endsWith("(agent, up)"));
        dialog.setNodes(QRegularExpression::escape(m_nodes[1]));
        dialog.findNodes();
        QVERIFY(shown.wait(15000));
        QCOMPARE(dialog.listedNodes(), QStringList{m_nodes[1] + " (agent, up)"});
    }

    void liveViewShowsEveryNodeWithASelectorPerChart() {
        const QString db = m_dir.filePath("live.db");
        MainWindow w({db, 0, false, 60});
        w.show();
        QSignalSpy connected(&w, &MainWindow::prometheusConnected);
        w.connectPrometheus(m_url, ".+", 1.0);
        QVERIFY(connected.wait(20000));
        const qint64 session = connected.first().first().toLongLong();
        TimelineChart* storage = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT(
            (storage = w.timeline()->chart("storage")) && storage->nodes().size() == 2, 20000);
        QStringList sorted = m_nodes;
        sorted.sort();
        QCOMPARE(storage->nodes(), sorted);
        QVERIFY(storage->pointCount() > 0);
        storage->selectNode(m_nodes[1]);
        for (int i = 0; i < static_cast<int>(storage->spec().series.size()); ++i)
            QCOMPARE(storage->seriesVisible(i),
                     storage->spec().series[static_cast<std::size_t>(i)].node ==
                         m_nodes[1].toStdString());
        storage->selectNode({});
        QVERIFY(storage->seriesVisible(0) && storage->seriesVisible(1));
        QTRY_VERIFY_WITH_TIMEOUT(w.timeline()->chart("host-cpu") &&
                                     w.timeline()->chart("host-cpu")->nodes().size() == 2,
                                 20000);
        if (!qEnvironmentVariableIsEmpty("TIERSCOPE_SCREENSHOTS"))
            w.grab().save(qEnvironmentVariable("TIERSCOPE_SCREENSHOTS") + "/prometheus.png");

        // The same data went into a session the browser can open later.
        QAction* disconnect = nullptr;
        for (auto* a : w.findChildren<QAction*>())
            if (a->text() == "Disconnect")
                disconnect = a;
        QVERIFY(disconnect && disconnect->isEnabled());
        disconnect->trigger();
        QCOMPARE(w.prometheusSessionId(), 0);
        QVERIFY(!disconnect->isEnabled());
        // The feed's writer commits on its own thread after the disconnect.
        QTRY_VERIFY_WITH_TIMEOUT(
            Store(db.toStdString(), Store::Mode::ReadOnly).sampleCount(session) > 0, 30000);
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        bool grouped = false;
        for (const auto& m : store.metrics(session))
            grouped = grouped || m.descriptor.labels.find(
                                     "\"node\":\"" + m_nodes[0].toStdString()) != std::string::npos;
        QVERIFY(grouped);
    }

    // A server that does not answer changes nothing: the recording goes on, the live view
    // keeps its charts, and no empty session is left in the workspace.
    void aDeadServerLeavesTheLiveViewAlone() {
        const QString db = m_dir.filePath("dead.db");
        MainWindow w({db, 0, true, 60});
        QSignalSpy started(&w, &MainWindow::recordingStarted);
        // A window that is not on screen draws no chart (the live view's CPU budget).
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(started.count() > 0 || started.wait(20000));
        const qint64 live = started.first().first().toLongLong();
        QTRY_VERIFY_WITH_TIMEOUT(w.timeline()->chart("host-cpu") &&
                                     w.timeline()->chart("host-cpu")->pointCount() > 0,
                                 20000);
        QSignalSpy refused(&w, &MainWindow::prometheusRefused);
        QSignalSpy connected(&w, &MainWindow::prometheusConnected);
        w.connectPrometheus(QString("http://127.0.0.1:%1").arg(test::freePort()), ".+", 1.0);
        QVERIFY(refused.wait(30000));
        QCOMPARE(connected.count(), 0);
        QCOMPARE(w.liveSessionId(), live);
        QCOMPARE(w.prometheusSessionId(), 0);
        // Still this machine's charts, drawn, within a frame or two: CI once found the chart
        // without points at the very instant of the refusal (not reproduced in 14 runs under
        // load here; a recording's first seconds rebuild the charts as series appear).
        QTRY_VERIFY_WITH_TIMEOUT(w.timeline()->chart("host-cpu") &&
                                     w.timeline()->chart("host-cpu")->pointCount() > 0,
                                 10000);
        QCOMPARE(w.liveSessionId(), live);
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        QCOMPARE(store.sessions().size(), std::size_t(1));
    }
};

QTEST_MAIN(TestPrometheusGui)
#include "tst_prometheusgui.moc"
