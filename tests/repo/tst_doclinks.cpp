#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

// Every relative link in the user and developer docs resolves: to a file that exists and, with
// a #fragment, to a heading of that file (GitHub's anchor rule). A moved or renamed page breaks
// this test, not a reader's click.
class TstDocLinks : public QObject {
    Q_OBJECT

    static QString root() { return QStringLiteral(TIERSCOPE_SOURCE_DIR); }

    static QStringList docs() {
        QStringList files = {root() + "/README.md", root() + "/CONTRIBUTING.md"};
        QDirIterator it(root() + "/docs", {"*.md"}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext())
            files << it.next();
        QDirIterator fixtures(root() + "/tests/fixtures", {"README.md"}, QDir::Files,
                              QDirIterator::Subdirectories);
        while (fixtures.hasNext())
            files << fixtures.next();
        return files;
    }

    static QString read(const QString& path) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return {};
        return QString::fromUtf8(f.readAll());
    }

    // GitHub: lower-case, drop everything but letters, digits, spaces, '-' and '_', spaces
    // become '-'.
    static QString anchor(const QString& heading) {
        QString out;
        for (const QChar c : heading.toLower()) {
            if (c.isLetterOrNumber() || c == '-' || c == '_')
                out += c;
            else if (c == ' ')
                out += '-';
        }
        return out;
    }

    static QSet<QString> anchors(const QString& text) {
        QSet<QString> out;
        bool fenced = false;
        for (const QString& line : text.split('\n')) {
            if (line.startsWith("```"))
                fenced = !fenced;
            static const QRegularExpression heading("^#{1,6} (.*)$");
            const auto m = heading.match(line);
            if (!fenced && m.hasMatch())
                out.insert(anchor(m.captured(1).trimmed()));
        }
        return out;
    }

  private slots:
    void anchorRuleMatchesGitHub() {
        QCOMPARE(anchor("How tierscope decides"), QString("how-tierscope-decides"));
        QCOMPARE(anchor("Reference: metrics, exit codes, the workspace file"),
                 QString("reference-metrics-exit-codes-the-workspace-file"));
        QCOMPARE(anchor("GUI: live frame cost"), QString("gui-live-frame-cost"));
    }

    void everyRelativeLinkResolves() {
        static const QRegularExpression link(R"(\]\(([^)\s]+)\))");
        QStringList broken;
        int checked = 0;
        for (const QString& doc : docs()) {
            const QString text = read(doc);
            QVERIFY2(!text.isEmpty(), qPrintable(doc));
            for (auto it = link.globalMatch(text); it.hasNext();) {
                const QString target = it.next().captured(1);
                if (target.contains("://") || target.startsWith("mailto:"))
                    continue;
                const int hash = target.indexOf('#');
                const QString file = hash < 0 ? target : target.left(hash);
                const QString fragment = hash < 0 ? QString() : target.mid(hash + 1);
                const QString path =
                    file.isEmpty() ? doc : QFileInfo(doc).dir().filePath(file);
                ++checked;
                if (!QFileInfo::exists(path)) {
                    broken << doc + ": " + target + " (no such file)";
                    continue;
                }
                if (!fragment.isEmpty() && !anchors(read(path)).contains(fragment))
                    broken << doc + ": " + target + " (no such heading)";
            }
        }
        QVERIFY2(broken.isEmpty(), qPrintable(broken.join('\n')));
        QVERIFY2(checked > 20, "the docs should link to each other");
    }
};

QTEST_GUILESS_MAIN(TstDocLinks)
#include "tst_doclinks.moc"
