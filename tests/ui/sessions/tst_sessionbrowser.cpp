#include "core/analysis/AnalysisText.h"
#include "core/store/Store.h"
#include "ui/sessions/SessionBrowser.h"
#include "ui/sessions/SessionListModel.h"

#include <QAbstractButton>
#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeView>
#include <QtTest>

using namespace tierscope;

namespace {

// Clicks the button reading `text` (shortcut marks ignored) of the next message box.
void answer(const QString& text) {
    auto* timer = new QTimer;
    QObject::connect(timer, &QTimer::timeout, timer, [timer, text] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box)
            return;
        for (auto* button : box->buttons())
            if (button->text().remove('&') == text)
                button->click();
        timer->deleteLater();
    });
    timer->start(10);
}

QAction* action(QMenu* menu, const QString& text) {
    for (auto* a : menu->actions())
        if (a->text() == text)
            return a;
    return nullptr;
}

} // namespace

class TestSessionBrowser : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_db;
    std::vector<std::int64_t> m_ids;

    void reload(SessionListModel& model) {
        Store store(m_db.toStdString(), Store::Mode::ReadOnly);
        model.setSessions(store.sessions());
    }

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath("ws.db");
        Store store(m_db.toStdString(), Store::Mode::ReadWrite);
        for (const auto& [label, profile, notes] :
             {std::tuple{"baseline", "local-nvme", ""},
              {"fx100 run", "nvmeof-rdma", ""},
              {"third", "local-nvme", "firmware 2.1 after the swap"}}) {
            SessionInfo s;
            s.label = label;
            s.storageProfile = profile;
            s.notes = notes;
            s.startNs = 1'790'000'000'000'000'000 + static_cast<std::int64_t>(m_ids.size()) * 1000;
            s.endNs = s.startNs + 1000;
            m_ids.push_back(store.createSession(s));
            store.addEvent(m_ids.back(), s.startNs, "marker", "m");
        }
        // The second has a load run with one request; the third a run with none.
        RequestRecord r;
        r.sendNs = 1;
        r.httpStatus = 200;
        store.addRequests(store.createRun(m_ids[1], "load", "{}", 1), {r});
        store.createRun(m_ids[2], "storage/model-load", "{}", 1);
    }

    // "With requests" keeps the sessions that stored requests, with the search and without.
    void theRequestsFilterKeepsSessionsWithRequests() {
        SessionListModel model;
        SessionBrowser browser(&model);
        QAbstractItemModelTester tester(browser.view()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        reload(model);
        QCOMPARE(browser.shownSessions(), 3);
        browser.requestsOnlyBox()->setChecked(true);
        QCOMPARE(browser.shownSessions(), 1);
        QCOMPARE(browser.view()->model()->rowCount(), 1); // only the group holding it
        const QModelIndex group = browser.view()->model()->index(0, 0);
        QCOMPARE(group.data().toString(), QString("nvmeof-rdma"));
        QCOMPARE(browser.view()
                     ->model()
                     ->index(0, 0, group)
                     .data(SessionListModel::SessionIdRole)
                     .toLongLong(),
                 m_ids[1]);
        browser.searchBox()->setText("local-nvme"); // neither local session has requests
        QCOMPARE(browser.shownSessions(), 0);
        browser.searchBox()->setText("fx100");
        QCOMPARE(browser.shownSessions(), 1);
        browser.searchBox()->clear();
        browser.requestsOnlyBox()->setChecked(false);
        QCOMPARE(browser.shownSessions(), 3);
    }

    void searchFiltersOnLabelProfileAndNotes() {
        SessionListModel model;
        SessionBrowser browser(&model);
        QAbstractItemModelTester tester(browser.view()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        reload(model);
        QCOMPARE(browser.shownSessions(), 3);
        browser.searchBox()->setText("FX100");
        QCOMPARE(browser.shownSessions(), 1);
        browser.searchBox()->setText("local-nvme");
        QCOMPARE(browser.shownSessions(), 2);
        browser.searchBox()->setText("firmware");
        QCOMPARE(browser.shownSessions(), 1);
        browser.searchBox()->setText("2026-09"); // the start date
        QCOMPARE(browser.shownSessions(), 3);
        browser.searchBox()->clear();
        QCOMPARE(browser.shownSessions(), 3);
    }

    void oneClickOpensAndTwoSelectedCompare() {
        SessionListModel model;
        SessionBrowser browser(&model);
        browser.resize(500, 400);
        browser.show();
        reload(model);
        QVERIFY(QTest::qWaitForWindowExposed(&browser));
        QSignalSpy open(&browser, &SessionBrowser::openRequested);
        browser.select(m_ids[1]);
        const QRect row = browser.view()->visualRect(browser.view()->currentIndex());
        QTest::mouseClick(browser.view()->viewport(), Qt::LeftButton, {}, row.center());
        QCOMPARE(open.count(), 1);
        QCOMPARE(open.first().first().toLongLong(), m_ids[1]);

        QSignalSpy compare(&browser, &SessionBrowser::compareRequested);
        std::unique_ptr<QMenu> menu(browser.menuFor({m_ids[0], m_ids[2]}));
        QAction* both = action(menu.get(), "Compare (older as A, newer as B)");
        QVERIFY(both);
        QVERIFY(!action(menu.get(), "Rename…")); // one session at a time
        both->trigger();
        QCOMPARE(compare.first().at(0).toString(), QString("session:%1").arg(m_ids[0]));
        QCOMPARE(compare.first().at(1).toString(), QString("session:%1").arg(m_ids[2]));
        std::unique_ptr<QMenu> one(browser.menuFor({m_ids[1]}));
        for (const auto* text :
             {"Open", "Compare with…", "Rename…", "Notes…", "Analyze…", "Export CSV…", "Delete…"})
            QVERIFY2(action(one.get(), text), text);
    }

    void renameNotesAndExportWriteTheWorkspace() {
        SessionListModel model;
        SessionBrowser browser(&model);
        browser.setDatabase(m_db);
        reload(model);
        QSignalSpy changed(&browser, &SessionBrowser::changed);
        QSignalSpy done(&browser, &SessionBrowser::done);
        browser.rename(m_ids[0], "baseline (firmware 2.0)");
        QVERIFY(changed.wait(10000));
        QCOMPARE(done.last().at(1).toString(), QString());
        reload(model);
        browser.setNotes(m_ids[0], "rack 4");
        QVERIFY(changed.wait(10000));
        {
            Store store(m_db.toStdString(), Store::Mode::ReadOnly);
            QCOMPARE(store.session(m_ids[0])->label, std::string("baseline (firmware 2.0)"));
            QCOMPARE(store.session(m_ids[0])->notes, std::string("rack 4"));
        }
        browser.exportCsv(m_ids[0], m_dir.filePath("s.csv"));
        QVERIFY(done.wait(10000));
        QCOMPARE(done.last().at(1).toString(), QString());
        QVERIFY(QFile::exists(m_dir.filePath("s.csv")));
    }

    // "Analyze…" shows what `tierscope analyze` prints for the session, read off the GUI
    // thread, in a window of its own; a session that is not there says so.
    void analyzeShowsWhatTheCliPrints() {
        SessionListModel model;
        SessionBrowser browser(&model);
        browser.setDatabase(m_db);
        reload(model);
        QSignalSpy analyzed(&browser, &SessionBrowser::analyzed);
        std::unique_ptr<QMenu> menu(browser.menuFor({m_ids[1]}));
        action(menu.get(), "Analyze…")->trigger();
        QVERIFY(analyzed.wait(10000));
        std::string expected;
        {
            Store store(m_db.toStdString(), Store::Mode::ReadOnly);
            expected =
                AnalysisText::of(SessionAnalysis::analyze(store, m_ids[1], 10'000'000'000LL));
        }
        QCOMPARE(analyzed.first().at(1).toString(), QString::fromStdString(expected));
        QVERIFY(analyzed.first().at(1).toString().contains("shares:"));
        auto* text = browser.findChild<QPlainTextEdit*>("analysisText");
        QVERIFY(text);
        QCOMPARE(text->toPlainText(), QString::fromStdString(expected));
        QSignalSpy done(&browser, &SessionBrowser::done);
        browser.analyze(987654);
        QVERIFY(done.wait(10000));
        QVERIFY2(done.first().at(1).toString().startsWith("Analyze session 987654: "),
                 qPrintable(done.first().at(1).toString()));
    }

    // Delete asks first; Cancel keeps everything, Delete takes only the chosen session, and a
    // session being recorded is refused.
    void deleteAsksAndTakesOnlyThatSession() {
        SessionListModel model;
        SessionBrowser browser(&model);
        browser.setDatabase(m_db);
        reload(model);
        QSignalSpy changed(&browser, &SessionBrowser::changed);
        answer("Cancel");
        browser.askDelete({m_ids[2]});
        QTest::qWait(100);
        QCOMPARE(changed.count(), 0);
        browser.setBusy([this](qint64 id) { return id == m_ids[2]; });
        answer("OK");
        browser.askDelete({m_ids[2]});
        QTest::qWait(100);
        QCOMPARE(changed.count(), 0);
        browser.setBusy([](qint64) { return false; });
        answer("Delete");
        browser.askDelete({m_ids[2]});
        QVERIFY(changed.wait(10000));
        Store store(m_db.toStdString(), Store::Mode::ReadOnly);
        QVERIFY(!store.session(m_ids[2]));
        QVERIFY(store.session(m_ids[0]) && store.session(m_ids[1]));
        QVERIFY(store.eventText(m_ids[0], "marker"));
    }
};

QTEST_MAIN(TestSessionBrowser)
#include "tst_sessionbrowser.moc"
