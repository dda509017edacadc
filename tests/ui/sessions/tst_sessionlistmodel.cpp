#include "ui/sessions/SessionListModel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

using namespace tierscope;

namespace {

SessionInfo session(std::int64_t id, const std::string& label, const std::string& profile,
                    std::int64_t startS, std::optional<std::int64_t> durationS) {
    SessionInfo s;
    s.id = id;
    s.label = label;
    s.storageProfile = profile;
    s.startNs = startS * 1000000000LL;
    if (durationS)
        s.endNs = s.startNs + *durationS * 1000000000LL;
    return s;
}

} // namespace

class TestSessionListModel : public QObject {
    Q_OBJECT
  private slots:
    // An open session a listing judged (SessionState, as `tierscope sessions`) says which it
    // is; one nobody judged stays "open or interrupted".
    void anOpenSessionSaysWhetherItIsRecording() {
        SessionListModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto recording = session(5, "live", "local-nvme", 5000, std::nullopt);
        recording.state = "recording";
        auto killed = session(6, "killed", "local-nvme", 6000, std::nullopt);
        killed.state = "interrupted";
        model.setSessions({recording, killed, session(7, "old", "local-nvme", 7000, std::nullopt)});
        const auto duration = [&model](std::int64_t id) {
            const QModelIndex at = model.indexOfSession(id);
            return model.index(at.row(), 2, at.parent()).data().toString();
        };
        QCOMPARE(duration(5), QString("recording"));
        QCOMPARE(duration(6), QString("interrupted"));
        QCOMPARE(duration(7), QString("open or interrupted"));
    }

    void passesTheModelTesterAndGroupsByProfile() {
        SessionListModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.setSessions({session(1, "baseline", "local-nvme", 1000, 60),
                           session(2, "", "nvmeof-rdma", 2000, 90),
                           session(3, "run b", "local-nvme", 3000, std::nullopt),
                           session(4, "no profile", "", 4000, 5)});
        QCOMPARE(reset.count(), 1);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), 3);
        QCOMPARE(model.index(0, 0).data().toString(), QString("(no storage profile)"));
        const QModelIndex local = model.index(1, 0);
        QCOMPARE(local.data().toString(), QString("local-nvme"));
        QCOMPARE(model.rowCount(local), 2);
        // newest first within a profile
        QCOMPARE(model.sessionId(model.index(0, 0, local)), 3);
        QCOMPARE(model.index(0, 2, local).data().toString(), QString("open or interrupted"));
        QCOMPARE(model.index(1, 2, local).data().toString(), QString("60.0 s"));
        QCOMPARE(model.index(0, 0, model.index(2, 0)).data().toString(), QString("session 2"));
        QCOMPARE(model.sessionId(local), 0);
        QCOMPARE(model.sessionId(model.indexOfSession(4)), 4);
        QCOMPARE(model.indexOfSession(4).parent(), model.index(0, 0));
        QVERIFY(!model.indexOfSession(99).isValid());
        QCOMPARE(model.index(1, 0, local).data(SessionListModel::SessionIdRole).toLongLong(), 1);

        // The list is polled: the same sessions again must not reset the view's selection.
        QVERIFY(!model.setSessions({session(1, "baseline", "local-nvme", 1000, 60),
                                    session(2, "", "nvmeof-rdma", 2000, 90),
                                    session(3, "run b", "local-nvme", 3000, std::nullopt),
                                    session(4, "no profile", "", 4000, 5)}));
        QCOMPARE(reset.count(), 1);
        // A session that ended since is a change.
        QVERIFY(model.setSessions({session(1, "baseline", "local-nvme", 1000, 60),
                                   session(2, "", "nvmeof-rdma", 2000, 90),
                                   session(3, "run b", "local-nvme", 3000, 30),
                                   session(4, "no profile", "", 4000, 5)}));
        QCOMPARE(reset.count(), 2);
        QCOMPARE(model.index(0, 2, model.index(1, 0)).data().toString(), QString("30.0 s"));

        model.setSessions({});
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestSessionListModel)
#include "tst_sessionlistmodel.moc"
