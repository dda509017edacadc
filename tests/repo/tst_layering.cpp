#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

// The layering of docs/ARCHITECTURE.md, checked on the sources: a folder includes only its own
// headers and those of the folders below it, and nothing outside ui/ and app/ includes Qt.
// Every folder shares one include root, so the compiler alone would not refuse an include
// that runs back up; this test does.
class TstLayering : public QObject {
    Q_OBJECT

    static QString root() { return QStringLiteral(TIERSCOPE_SOURCE_DIR); }

    // Each folder and the folders directly below it; the test takes the closure.
    static QMap<QString, QStringList> below() {
        return {
            {"core/util", {}},
            {"core/model", {}},
            {"core/engine", {}},
            {"core/stats", {"core/model"}},
            {"core/store", {"core/model", "core/util"}},
            {"core/analysis", {"core/store", "core/stats"}},
            {"core/compare", {"core/analysis", "core/engine"}},
            {"core/view", {"core/compare"}},
            {"core/report", {"core/compare"}},
            {"collectors/base", {"core/model", "core/util"}},
            {"collectors/host", {"collectors/base"}},
            {"collectors/storage", {"collectors/base"}},
            {"collectors/gpu", {"collectors/base"}},
            {"collectors/engine", {"collectors/base", "core/stats", "core/engine"}},
            {"collectors",
             {"collectors/host", "collectors/storage", "collectors/gpu", "collectors/engine",
              "core/store"}},
            {"collectors/prometheus", {"collectors"}},
            {"agent", {"collectors"}},
            // The client's saturation summary keeps its lags in core/stats' sketch.
            {"loadgen", {"collectors/base", "core/stats"}},
            {"simulator", {}},
            {"workloads", {"core/stats", "core/util", "collectors/storage"}},
            {"experiments", {"collectors", "loadgen", "workloads", "core/report"}},
            {"ui/timeline", {"core/report", "core/view"}},
            {"ui/compare", {"ui/timeline", "experiments"}},
            {"remote", {"core/store"}},
            {"ui/sessions", {"ui/timeline", "core/view"}},
            {"ui/feeds", {"ui/timeline", "collectors/prometheus", "remote"}},
            {"ui/experiment", {"ui/compare", "ui/feeds", "experiments", "remote"}},
            {"ui", {"ui/sessions", "ui/feeds", "ui/experiment", "ui/compare"}},
            {"app/common", {"ui", "simulator"}},
            {"app/commands", {"app/common", "agent"}},
            {"app", {"app/commands"}},
        };
    }

    static QSet<QString> allowed(const QString& folder) {
        QSet<QString> out{folder};
        QStringList todo = below().value(folder);
        while (!todo.isEmpty()) {
            const QString f = todo.takeLast();
            if (out.contains(f))
                continue;
            out.insert(f);
            todo += below().value(f);
        }
        return out;
    }

    static QString folderOf(const QString& relativePath) {
        return relativePath.left(relativePath.lastIndexOf('/'));
    }

  private slots:
    void closureFollowsTheTable() {
        QVERIFY(allowed("core/report").contains("core/model"));
        QVERIFY(!allowed("core/store").contains("core/analysis"));
        QVERIFY(!allowed("collectors").contains("collectors/prometheus"));
        QVERIFY(allowed("app").contains("core/util"));
    }

    void includesRunOnlyDownwards() {
        // No raw strings here: moc misreads one that holds an include directive.
        static const QRegularExpression include("^\\s*#\\s*include\\s+\"([^\"]+)/[^/\"]+\"");
        static const QRegularExpression qt("^\\s*#\\s*include\\s+<Q");
        QStringList wrong;
        int files = 0;
        for (const QString& top : below().keys()) {
            QDir dir(root() + "/" + top);
            const QStringList entries =
                dir.entryList({"*.h", "*.cpp", "*.h.in"}, QDir::Files, QDir::Name);
            for (const QString& name : entries) {
                const QString rel = top + "/" + name;
                QFile f(root() + "/" + rel);
                QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(rel));
                ++files;
                const QSet<QString> ok = allowed(top);
                const bool mayUseQt = top.startsWith("app") || top.startsWith("ui");
                int lineNo = 0;
                for (const QByteArray& raw : f.readAll().split('\n')) {
                    ++lineNo;
                    const QString line = QString::fromUtf8(raw);
                    const auto m = include.match(line);
                    if (m.hasMatch() && below().contains(m.captured(1)) &&
                        !ok.contains(m.captured(1)))
                        wrong << QString("%1:%2 includes %3").arg(rel).arg(lineNo).arg(line.trimmed());
                    if (!mayUseQt && qt.match(line).hasMatch())
                        wrong << QString("%1:%2 includes Qt outside ui/ and app/").arg(rel).arg(lineNo);
                }
            }
        }
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join('\n')));
        QVERIFY2(files > 200, "every domain folder should have been read");
    }

    // A folder the table does not know would escape the check.
    void everySourceFolderIsInTheTable() {
        QStringList unknown;
        for (const QString& top : {"core", "collectors", "agent", "ui", "loadgen", "simulator",
                                   "workloads", "experiments", "remote", "app"}) {
            QDirIterator it(root() + "/" + top, {"*.cpp", "*.h"}, QDir::Files,
                            QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString rel = QDir(root()).relativeFilePath(it.next());
                if (!below().contains(folderOf(rel)))
                    unknown << rel;
            }
        }
        QVERIFY2(unknown.isEmpty(), qPrintable(unknown.join('\n')));
    }
};

QTEST_GUILESS_MAIN(TstLayering)
#include "tst_layering.moc"
