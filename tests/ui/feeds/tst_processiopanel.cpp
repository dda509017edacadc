#include "TestSupport.h"
#include "ui/feeds/ProcessIoPanel.h"
#include "ui/feeds/ProcessIoSampler.h"
#include "ui/feeds/ProcessIoTableModel.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QThread>
#include <cstdio>

using namespace tierscope;

namespace {

constexpr double kMB = 1e6;

ProcessIoTop::Row row(int pid, const char* name, double read, double write,
                      std::optional<double> share) {
    ProcessIoTop::Row r;
    r.pid = pid;
    r.pgid = pid;
    r.name = name;
    r.readBytesPerS = read;
    r.writeBytesPerS = write;
    r.share = share;
    return r;
}

// vllm read 200 MB/s and wrote 10, fio read 50 and wrote 90: 350 MB/s in all.
ProcessIoSnapshot twoProcesses() {
    ProcessIoSnapshot s;
    s.readable = 120;
    ProcessIoTop::Result top;
    top.byTotal = {row(4242, "vllm", 200 * kMB, 10 * kMB, 0.6),
                   row(77, "fio (job 1)", 50 * kMB, 90 * kMB, 0.4)};
    top.readBytesPerS = 250 * kMB;
    top.writeBytesPerS = 100 * kMB;
    top.matched = 120;
    s.top = top;
    return s;
}

// Written aside and renamed into place, as the sampler may read it at any moment.
void writeFakeProcess(const QString& root, int pid, const char* comm, std::uint64_t readBytes) {
    const QString dir = root + "/" + QString::number(pid);
    test::writeFile(dir + "/stat.new", QByteArray::number(pid) + " (" + comm + ") S 1 " +
                                           QByteArray::number(pid) + " " + QByteArray::number(pid) +
                                           " 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 4321 0 0\n");
    test::writeFile(dir + "/io.new", "rchar: 0\nwchar: 0\nsyscr: 0\nsyscw: 0\nread_bytes: " +
                                         QByteArray::number(readBytes) +
                                         "\nwrite_bytes: 0\ncancelled_write_bytes: 0\n");
    for (const char* name : {"/stat", "/io"})
        QCOMPARE(::rename(QFile::encodeName(dir + name + ".new").constData(),
                          QFile::encodeName(dir + name).constData()),
                 0);
}

} // namespace

class TestProcessIoPanel : public QObject {
    Q_OBJECT
  private slots:
    void modelPassesTheTesterAndShowsEachProcess() {
        ProcessIoTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setSnapshot(twoProcesses());
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(ProcessIoTableModel::ColumnCount));
        QCOMPARE(model.index(0, ProcessIoTableModel::Pid).data().toInt(), 4242);
        QCOMPARE(model.index(1, ProcessIoTableModel::Name).data().toString(),
                 QString("fio (job 1)"));
        QCOMPARE(model.index(0, ProcessIoTableModel::Read).data().toString(),
                 QString("200.0 MB/s"));
        QCOMPARE(model.index(0, ProcessIoTableModel::Read).data(Qt::UserRole).toDouble(),
                 200 * kMB);
        QCOMPARE(model.index(1, ProcessIoTableModel::Write).data().toString(),
                 QString("90.0 MB/s"));
        QCOMPARE(model.index(0, ProcessIoTableModel::Share).data().toString(), QString("60 %"));
        QCOMPARE(model.index(1, ProcessIoTableModel::Share).data(Qt::UserRole).toDouble(), 0.4);
        QCOMPARE(model.index(0, ProcessIoTableModel::Read).data(Qt::TextAlignmentRole).toInt(),
                 int(Qt::AlignRight | Qt::AlignVCenter));
        QVERIFY(model.index(0, ProcessIoTableModel::Name)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains("process group 4242"));
        QCOMPARE(model.headerData(ProcessIoTableModel::Write, Qt::Horizontal, Qt::DisplayRole)
                     .toString(),
                 QString("Write/s"));
        QVERIFY(model.message().isEmpty());
        QCOMPARE(model.footnote(), QString("All processes: read 250.0 MB/s, write 100.0 MB/s"));
        // An absent share is an empty cell, not "0 %".
        auto noShare = twoProcesses();
        noShare.top->byTotal[1].share.reset();
        noShare.top->byTotal[0].share = 0.001;
        model.setSnapshot(noShare);
        QCOMPARE(model.index(0, ProcessIoTableModel::Share).data().toString(), QString("<1 %"));
        QVERIFY(!model.index(1, ProcessIoTableModel::Share).data().isValid());
        QVERIFY(!model.index(1, ProcessIoTableModel::Share).data(Qt::UserRole).isValid());
    }

    void anEmptyTableSaysWhy() {
        ProcessIoTableModel model;
        QVERIFY(model.message().startsWith("Reading /proc/<pid>/io"));
        ProcessIoSnapshot nothing; // every io refused
        nothing.unreadable = 300;
        model.setSnapshot(nothing);
        QCOMPARE(model.rowCount(), 0);
        QVERIFY2(model.message().startsWith("No per-process I/O (not readable: run as root"),
                 qPrintable(model.message()));
        ProcessIoSnapshot first; // one scan: no rate yet
        first.readable = 200;
        model.setSnapshot(first);
        QVERIFY(model.message().startsWith("Measuring"));
        QVERIFY(model.footnote().isEmpty());
        ProcessIoSnapshot idle;
        idle.readable = 200;
        idle.unreadable = 3;
        idle.top = ProcessIoTop::Result{};
        model.setSnapshot(idle);
        QCOMPARE(model.message(),
                 QString("No process read from or wrote to storage in the last second."));
        QCOMPARE(model.footnote(), QString("All processes: read 0 B/s, write 0 B/s. 3 processes "
                                           "not readable (other users' processes need root)"));
        idle.unreadable = 1;
        model.setSnapshot(idle);
        QVERIFY(model.footnote().endsWith(". 1 process not readable (other users' processes "
                                          "need root)"));
        model.setSnapshot(twoProcesses());
        model.setInactive();
        QVERIFY(model.inactive());
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(model.message().contains("live view of this machine"));
        QVERIFY(model.footnote().isEmpty());
    }

    void thePanelShowsTheMessageInPlaceOfAnEmptyTable() {
        ProcessIoTableModel model;
        ProcessIoPanel panel(&model);
        ProcessIoSnapshot nothing;
        nothing.unreadable = 12;
        model.setSnapshot(nothing);
        QVERIFY(panel.messageLabel()->isVisibleTo(&panel));
        QVERIFY(!panel.table()->isVisibleTo(&panel));
        QVERIFY(panel.messageLabel()->text().contains("CAP_SYS_PTRACE"));
        QVERIFY(!panel.footnoteLabel()->isVisibleTo(&panel));
        model.setSnapshot(twoProcesses());
        QVERIFY(panel.table()->isVisibleTo(&panel));
        QVERIFY(!panel.messageLabel()->isVisibleTo(&panel));
        QVERIFY(panel.footnoteLabel()->isVisibleTo(&panel));
        QVERIFY(panel.footnoteLabel()->text().contains("250.0 MB/s"));
    }

    // The sampler on its own thread against a fake proc tree: the first scan has no rate, a
    // later one has the bytes read in between, delivered to this (the GUI) thread.
    void theSamplerPostsRatesFromItsThread() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        writeFakeProcess(tmp.path(), 31, "kv restore", 0);
        writeFakeProcess(tmp.path(), 32, "idle", 0);
        QThread thread;
        auto* sampler = new ProcessIoSampler(tmp.path());
        sampler->moveToThread(&thread);
        connect(&thread, &QThread::finished, sampler, &QObject::deleteLater);
        thread.start();
        ProcessIoTableModel model;
        std::vector<ProcessIoSnapshot> seen;
        // The row of the interval that saw the read, kept: the next interval moves nothing and
        // empties the table, and a busy machine may deliver both before a check runs.
        int pid = 0;
        QString name;
        double read = -1, write = -1, share = -1;
        bool onGuiThread = true;
        connect(sampler, &ProcessIoSampler::sampled, this, [&](const ProcessIoSnapshot& s) {
            onGuiThread = onGuiThread && QThread::currentThread() == this->thread();
            seen.push_back(s);
            model.setSnapshot(s);
            if (model.rowCount() == 1 && pid == 0) {
                pid = model.index(0, ProcessIoTableModel::Pid).data().toInt();
                name = model.index(0, ProcessIoTableModel::Name).data().toString();
                read = model.index(0, ProcessIoTableModel::Read).data(Qt::UserRole).toDouble();
                write = model.index(0, ProcessIoTableModel::Write).data(Qt::UserRole).toDouble();
                share = model.index(0, ProcessIoTableModel::Share).data(Qt::UserRole).toDouble();
            }
        });
        // A failed check returns early: the thread must not outlive this function running.
        const auto joined = qScopeGuard([&] {
            QMetaObject::invokeMethod(
                sampler, [sampler] { sampler->stop(); }, Qt::BlockingQueuedConnection);
            thread.quit();
            thread.wait(10000);
        });
        QMetaObject::invokeMethod(sampler, [sampler] { sampler->start(50); });
        QTRY_VERIFY_WITH_TIMEOUT(!seen.empty(), 10000);
        QVERIFY(!seen.front().top);
        QCOMPARE(seen.front().readable, 2);
        writeFakeProcess(tmp.path(), 31, "kv restore", 64 << 20);
        QTRY_VERIFY_WITH_TIMEOUT(pid != 0, 10000);
        QVERIFY(onGuiThread);
        QCOMPARE(pid, 31);
        QCOMPARE(name, QString("kv restore"));
        QVERIFY(read > 0);
        QCOMPARE(write, 0.0);
        QCOMPARE(share, 1.0);
        // Stopped, it posts nothing more.
        QMetaObject::invokeMethod(
            sampler, [sampler] { sampler->stop(); }, Qt::BlockingQueuedConnection);
        QCoreApplication::processEvents(); // what was already on its way
        const auto count = seen.size();
        QTest::qWait(300);
        QCOMPARE(seen.size(), count);
    }
};

QTEST_MAIN(TestProcessIoPanel)
#include "tst_processiopanel.moc"
