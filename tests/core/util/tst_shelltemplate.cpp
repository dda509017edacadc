#include "core/util/ShellTemplate.h"

#include <QProcess>
#include <QtTest>
#include <stdexcept>

using namespace tierscope;

namespace {

// What /bin/sh makes of `command`: its words, one per line.
QStringList words(const std::string& command) {
    QProcess sh;
    sh.start("/bin/sh", {"-c", QString::fromStdString("printf '%s\\n' " + command)});
    sh.waitForFinished(10000);
    return QString::fromUtf8(sh.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
}

std::string expand(const std::string& command, const std::string& path) {
    return ShellTemplate::expand(command, "{path}", path, "TIERSCOPE_PATH");
}

} // namespace

class TestShellTemplate : public QObject {
    Q_OBJECT
  private slots:
    // The attack: an arm path with a space, and "rm -rf {path}/lmcache" pasted unquoted removed
    // the sibling directory "/mnt/fx100". Quoted, each path stays one word, whatever it holds.
    void aPathStaysOneWord_data() {
        QTest::addColumn<QString>("path");
        for (const char* path : {"/mnt/fx100 array", "/mnt/it's here", "/mnt/$HOME `id` \\x",
                                 "/mnt/*", "/mnt/a\"b", "-rf"})
            QTest::newRow(path) << QString(path);
    }
    void aPathStaysOneWord() {
        QFETCH(QString, path);
        const std::string p = path.toStdString();
        QCOMPARE(words(expand("{path}/lmcache", p)), QStringList{path + "/lmcache"});
        QCOMPARE(words(expand("{path} {path}", p)), (QStringList{path, path}));
        QCOMPARE(words(ShellTemplate::quote(p)), QStringList{path});
    }

    // Quotes around the placeholder would become part of the text: refused, naming the variable
    // that carries the same value.
    void insideQuotesIsRefused() {
        for (const char* command : {"LMCACHE_LOCAL_DISK=\"file://{path}/lmcache/\"",
                                    "rm -rf '{path}'", "echo \"a \\\" {path}\""}) {
            const auto why = ShellTemplate::misplaced(command, "{path}", "TIERSCOPE_PATH");
            QVERIFY2(why, command);
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, expand(command, "/x"));
        }
        QVERIFY(ShellTemplate::misplaced("a \"b\" {path}", "{path}", "TIERSCOPE_PATH") ==
                std::nullopt);
        QVERIFY(ShellTemplate::misplaced("LMCACHE_LOCAL_DISK=\"file://{path}/\"", "{path}",
                                         "TIERSCOPE_PATH")
                    ->find("\"$TIERSCOPE_PATH\"") != std::string::npos);
        // Outside quotes again after a quoted part, and an escaped quote opens nothing.
        QCOMPARE(expand("echo 'x' {path} \\' {path}", "/a b"),
                 std::string("echo 'x' '/a b' \\' '/a b'"));
        QCOMPARE(expand("no placeholder", "/a"), std::string("no placeholder"));
    }
};

QTEST_GUILESS_MAIN(TestShellTemplate)
#include "tst_shelltemplate.moc"
