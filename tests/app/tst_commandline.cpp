#include "TestSupport.h"
#include "app/BuildInfo.h"
#include "app/CommandLine.h"
#include "core/util/Version.h"

#include <QProcess>
#include <QTemporaryDir>
#include <functional>
#include <map>
#include <memory>
#include <sqlite3.h>

using namespace tierscope;

namespace {

// Every visible command path of the app ("storage prepare"), walked with CLI11's own API and
// not with the generators' CommandTree, so a command the generators miss shows up here.
void commandPaths(const CLI::App& app, const QStringList& prefix, QList<QStringList>& out) {
    for (const CLI::App* sub :
         app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
        const QStringList path = prefix + QStringList{QString::fromStdString(sub->get_name())};
        out.append(path);
        commandPaths(*sub, path, out);
    }
}

const CLI::App& appAt(const CLI::App& root, const QStringList& path) {
    const CLI::App* app = &root;
    for (const auto& name : path)
        app = const_cast<CLI::App*>(app)->get_subcommand(name.toStdString());
    return *app;
}

// The long and short names a user may type at this path: its own options and its parents'.
QStringList optionNames(const CLI::App& root, const QStringList& path) {
    QStringList names;
    for (int depth = path.size(); depth >= 0; --depth) {
        for (const CLI::Option* o : appAt(root, path.mid(0, depth)).get_options()) {
            if (o->get_group().empty() || o->get_positional())
                continue;
            for (const auto& l : o->get_lnames())
                names << QString::fromStdString("--" + l);
            for (const auto& s : o->get_snames())
                names << QString::fromStdString("-" + s);
        }
    }
    names.removeDuplicates();
    return names;
}

QString readGenerated(const char* name) {
    QFile file(QStringLiteral(TIERSCOPE_GENERATED_HELP_DIR "/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing generated file %s", name);
    return QString::fromUtf8(file.readAll());
}

struct Parsed {
    QString error; // extras, mismatch, validation or other; empty when the parse succeeded
    QString db;
    QString logLevel;
};

Parsed parse(const QStringList& args) {
    CommandLine cli;
    std::vector<std::string> reversed;
    for (auto it = args.rbegin(); it != args.rend(); ++it)
        reversed.push_back(it->toStdString());
    Parsed out;
    try {
        cli.app().parse(reversed);
    } catch (const CLI::ExtrasError&) {
        out.error = "extras";
    } catch (const CLI::ArgumentMismatch&) {
        out.error = "mismatch";
    } catch (const CLI::ValidationError&) {
        out.error = "validation";
    } catch (const CLI::ParseError&) {
        out.error = "other";
    }
    const auto* db = cli.app().get_option("--db");
    const auto* level = cli.app().get_option("--log-level");
    if (db->count() == 1)
        out.db = QString::fromStdString(db->results().front());
    if (level->count() == 1)
        out.logLevel = QString::fromStdString(level->results().front());
    return out;
}

QByteArray runShell(const QString& shell, const QString& script) {
    QProcess p;
    p.start(shell, {shell == "bash" ? "--norc" : "-f", "-c", script});
    if (!p.waitForFinished(60000))
        qFatal("%s hung", qPrintable(shell));
    if (p.exitCode() != 0)
        qWarning("%s: %s", qPrintable(shell), p.readAllStandardError().constData());
    return p.readAllStandardOutput();
}

} // namespace

class TestCommandLine : public QObject {
    Q_OBJECT
  private:
    QList<QStringList> m_paths;
    std::unique_ptr<CommandLine> m_cli = std::make_unique<CommandLine>();

  private slots:
    void initTestCase() {
        commandPaths(m_cli->app(), {}, m_paths);
        QVERIFY(m_paths.size() > 20);
        QVERIFY(m_paths.contains(QStringList{"storage", "prepare"}));
    }

    // `tierscope sessions --db X` is how most users type it: every command takes the global
    // options before and after its name, and after its own options.
    void globalOptionsBeforeOrAfterEveryCommand() {
        for (const auto& path : m_paths) {
            for (const QStringList& args :
                 {QStringList{"--db", "/x/w.db", "--log-level", "debug"} + path,
                  path + QStringList{"--db", "/x/w.db", "--log-level", "debug"},
                  QStringList{"--log-level", "debug"} + path + QStringList{"--db", "/x/w.db"}}) {
                const auto r = parse(args);
                // A command may still miss its own required arguments; nothing may be extra.
                QVERIFY2(r.error != "extras" && r.error != "mismatch",
                         qPrintable(args.join(' ') + ": " + r.error));
                QCOMPARE(r.db, QString("/x/w.db"));
                QCOMPARE(r.logLevel, QString("debug"));
            }
        }
        QCOMPARE(parse({"sessions", "--json", "--db", "w.db"}).error, QString());
        QCOMPARE(parse({"storage", "geometries", "--db", "w.db"}).error, QString());
        QCOMPARE(parse({"sessions", "--log-level", "loud"}).error, QString("validation"));
    }

    // Two commands on one line used to run only the first and ignore the second.
    void oneCommandAtATime() {
        QCOMPARE(parse({"sessions", "devices"}).error, QString("extras"));
        QCOMPARE(parse({"sessions"}).error, QString());
    }

    void globalOptionsEndToEnd() {
        QTemporaryDir dir;
        const QString db = dir.filePath("absent.db");
        for (const QStringList& args :
             {QStringList{"sessions", "--db", db}, QStringList{"--db", db, "sessions"}}) {
            QProcess p;
            p.start(TIERSCOPE_BINARY, args);
            QVERIFY(p.waitForFinished(60000));
            QCOMPARE(p.exitCode(), 6); // not found: the --db given, not the default workspace
            QVERIFY(p.readAllStandardError().contains(db.toUtf8()));
        }
    }

    // A command's own footer (its exit statuses, the bottleneck rules) stays in its --help,
    // with the note on global options after it.
    void helpKeepsEachCommandsOwnFooter() {
        const std::map<QString, QString> own = {
            {"analyze", "Bottleneck rules, per window, first match wins."},
            {"run", "Exit status: 0 when the plan ran and every gate passed"},
            {"sessions", ""}};
        for (const auto& [command, footer] : own) {
            QProcess p;
            p.start(TIERSCOPE_BINARY, {command, "--help"});
            QVERIFY(p.waitForFinished(60000));
            QCOMPARE(p.exitCode(), 0);
            const QString help = QString::fromUtf8(p.readAllStandardOutput());
            QVERIFY2(help.contains(footer), qPrintable(command + ": " + help));
            QVERIFY2(help.trimmed().endsWith("`tierscope --help` lists them."),
                     qPrintable(command + ": " + help));
            if (!footer.isEmpty())
                QVERIFY2(help.indexOf(footer) < help.indexOf("Global options ("),
                         qPrintable(command + ": " + help));
        }
    }

    void versionNamesTheBuild() {
        const QString text = QString::fromStdString(BuildInfo::versionText());
        QVERIFY(text.startsWith(QString("tierscope %1\n").arg(kToolVersion)));
        for (const char* line : {"\nsource:   ", "\nbuild:    ", "\nQt:       ", "\nSQLite:   ",
                                 "\nlibnvme:  ", "\nrocm-smi: ", "\nCLI11:    "})
            QVERIFY2(text.contains(line), line);
        QVERIFY(text.contains(QString("SQLite:   ") + sqlite3_libversion()));
        QVERIFY(text.contains(QString("Qt:       ") + qVersion()));
        QVERIFY(text.contains(QString("C++20")));
        QVERIFY(!text.contains("libnvme:  unknown"));
        QVERIFY(!text.contains("rocm-smi: unknown"));
        const QString source = text.section('\n', 1, 1);
        QVERIFY2(source.startsWith("source:   git ") || source == "source:   not a git checkout",
                 qPrintable(source));
        // Where git can describe the source, the build said which commit it was.
        QProcess git;
        git.start("git", {"-C", TIERSCOPE_SOURCE_DIR, "describe", "--always"});
        if (git.waitForFinished(60000) && git.exitStatus() == QProcess::NormalExit &&
            git.exitCode() == 0)
            QVERIFY2(source.startsWith("source:   git "), qPrintable(source));

        QProcess p;
        p.start(TIERSCOPE_BINARY, {"--version"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        // The same text, but for the commit: a commit reconfigures, and the binary may have
        // been rebuilt since this suite was.
        const QStringList printed = QString::fromUtf8(p.readAllStandardOutput()).split('\n');
        const QStringList expected = text.split('\n');
        QCOMPARE(printed.size(), expected.size() + 1); // and a newline at the end
        for (int i = 0; i < expected.size(); ++i)
            if (i != 1)
                QCOMPARE(printed[i], expected[i]);
        QVERIFY(printed[1].startsWith("source:   "));
        p.start(TIERSCOPE_BINARY, {"sessions", "--version"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(p.readAllStandardOutput().startsWith("tierscope "));
    }

    // The files the build generated are what this command line writes now.
    void generatedFilesAreCurrent() {
        const QString dir = m_dir.path();
        for (const char* what : {"bash", "zsh", "man"}) {
            QProcess p;
            const QString out = dir + "/" + what;
            p.start(TIERSCOPE_BINARY, {"generate", what, "--out", out});
            QVERIFY(p.waitForFinished(60000));
            QCOMPARE(p.exitCode(), 0);
            QFile file(out);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const char* built = std::string(what) == "bash"  ? "tierscope.bash"
                                : std::string(what) == "zsh" ? "_tierscope"
                                                             : "tierscope.1";
            QCOMPARE(QString::fromUtf8(file.readAll()), readGenerated(built));
        }
        // Hidden from the help and the generated files: a build tool, not a user command.
        const QString bash = readGenerated("tierscope.bash");
        const int top = bash.indexOf("\n        '') echo '");
        QVERIFY(top > 0);
        QVERIFY(bash.mid(top, bash.indexOf('\n', top + 1) - top).contains("sessions"));
        QVERIFY(!bash.mid(top, bash.indexOf('\n', top + 1) - top).contains("generate"));
    }

    // bash completes every command and every option (its own and the global ones) at every
    // command path, and the choices of an option with a fixed set.
    void bashCompletesEveryCommandAndOption() {
        QString script = ". '" TIERSCOPE_GENERATED_HELP_DIR "/tierscope.bash' || exit 1\n"
                         "t() { COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
                         "COMPREPLY=(); _tierscope; echo \"${COMPREPLY[*]}\"; }\n";
        QList<QStringList> cases{{}};
        cases += m_paths;
        for (const auto& path : cases) {
            const QString words = QStringList(path).join(' ');
            script += "t tierscope " + words + " ''\n";
            script += "t tierscope --db w.db " + words + " -\n";
        }
        script += "t tierscope sessions --log-level ''\n";
        script += "t tierscope storage prepare ''\n";
        const QStringList lines = QString::fromUtf8(runShell("bash", script)).split('\n');
        QCOMPARE(lines.size(), cases.size() * 2 + 3); // the last is empty
        for (int i = 0; i < cases.size(); ++i) {
            const auto& app = appAt(m_cli->app(), cases[i]);
            const QStringList commands = lines[2 * i].split(' ', Qt::SkipEmptyParts);
            for (const CLI::App* sub :
                 app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
                QVERIFY2(commands.contains(QString::fromStdString(sub->get_name())),
                         qPrintable(cases[i].join(' ') + ": " + lines[2 * i]));
            const QStringList options = lines[2 * i + 1].split(' ', Qt::SkipEmptyParts);
            for (const auto& name : optionNames(m_cli->app(), cases[i]))
                QVERIFY2(options.contains(name),
                         qPrintable(cases[i].join(' ') + " misses " + name));
        }
        QCOMPARE(lines[cases.size() * 2], QString("trace debug info warn error off"));
        QCOMPARE(lines[cases.size() * 2 + 1], QString("model-load kv-restore"));
    }

    // The same for zsh, with its completion functions stubbed to print what they are given.
    void zshCompletesEveryCommandAndOption() {
        if (QStandardPaths::findExecutable("zsh").isEmpty())
            QSKIP("zsh is not installed (scripts/install-deps.sh installs it)");
        QString script = "_describe() { print -r -- \"${(P)4}\"; }\n"
                         "compadd() { print -r -- \"${(P)2}\"; }\n"
                         "_files() { print files; }\n"
                         ". '" TIERSCOPE_GENERATED_HELP_DIR "/_tierscope' >/dev/null || exit 1\n"
                         "t() { words=(\"$@\"); CURRENT=${#words}; _tierscope; }\n";
        QList<QStringList> cases{{}};
        cases += m_paths;
        for (const auto& path : cases) {
            const QString words = QStringList(path).join(' ');
            script += "t tierscope " + words + " ''\n";
            script += "t tierscope --db w.db " + words + " -\n";
        }
        script += "t tierscope sessions --log-level ''\n";
        const QStringList lines = QString::fromUtf8(runShell("zsh", script)).split('\n');
        QCOMPARE(lines.size(), cases.size() * 2 + 2);
        const auto names = [](const QString& line) {
            QStringList out;
            // "name:description name:description"; descriptions hold spaces, names do not.
            for (const auto& word : line.split(' ', Qt::SkipEmptyParts))
                if (word.contains(':'))
                    out << word.section(':', 0, 0);
            return out;
        };
        for (int i = 0; i < cases.size(); ++i) {
            const auto& app = appAt(m_cli->app(), cases[i]);
            const auto subs =
                app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); });
            const QStringList commands = names(lines[2 * i]);
            for (const CLI::App* sub : subs)
                QVERIFY2(commands.contains(QString::fromStdString(sub->get_name())),
                         qPrintable(cases[i].join(' ') + ": " + lines[2 * i]));
            const QStringList options = names(lines[2 * i + 1]);
            for (const auto& name : optionNames(m_cli->app(), cases[i]))
                QVERIFY2(options.contains(name),
                         qPrintable(cases[i].join(' ') + " misses " + name));
        }
        QCOMPARE(lines[cases.size() * 2], QString("trace debug info warn error off"));
    }

    // The man page has a section per command that names each of its options, and groff reads
    // it without a warning.
    void manPageDocumentsEveryCommandAndOption() {
        const QString page = readGenerated("tierscope.1");
        QVERIFY(page.startsWith(".\\\"") && page.contains("\n.TH TIERSCOPE 1 "));
        const auto roff = [](const QString& name) { return QString(name).replace("-", "\\-"); };
        const int global = page.indexOf("\n.SH GLOBAL OPTIONS\n");
        const int commands = page.indexOf("\n.SH COMMANDS\n");
        QVERIFY(global > 0 && commands > global);
        for (const auto& name : optionNames(m_cli->app(), {}))
            QVERIFY2(page.mid(global, commands - global).contains("\\fB" + roff(name) + "\\fR"),
                     qPrintable(name));
        for (const auto& path : m_paths) {
            const QString header = "\n.SS \"tierscope " + roff(path.join(' ')) + "\"\n";
            const int start = page.indexOf(header);
            QVERIFY2(start > 0, qPrintable(path.join(' ')));
            const int end = page.indexOf("\n.S", start + header.size());
            const QString section = page.mid(start, end - start);
            for (const CLI::Option* o : appAt(m_cli->app(), path).get_options()) {
                if (o->get_group().empty())
                    continue;
                for (const auto& l : o->get_lnames())
                    QVERIFY2(section.contains("\\fB\\-\\-" + roff(QString::fromStdString(l))),
                             qPrintable(path.join(' ') + " --" + QString::fromStdString(l)));
                if (o->get_positional())
                    QVERIFY(section.contains(
                        "\\fI" + roff(QString::fromStdString(o->get_name(true))) + "\\fR"));
            }
        }
        if (QStandardPaths::findExecutable("groff").isEmpty())
            return;
        QProcess groff;
        groff.start("groff",
                    {"-man", "-Tutf8", "-ww", "-z", TIERSCOPE_GENERATED_HELP_DIR "/tierscope.1"});
        QVERIFY(groff.waitForFinished(60000));
        QCOMPARE(groff.exitCode(), 0);
        QCOMPARE(groff.readAllStandardError(), QByteArray());
    }

    // `cmake --install` (and so the .deb, which cpack makes from it) puts them where bash,
    // zsh and man look.
    void installPutsThemWhereShellsLook() {
        QProcess install;
        install.start(CMAKE_COMMAND,
                      {"--install", TIERSCOPE_BUILD_DIR, "--prefix", m_dir.path() + "/usr"});
        QVERIFY(install.waitForFinished(120000));
        QVERIFY2(install.exitCode() == 0, install.readAllStandardError().constData());
        for (const char* file : {"/usr/share/bash-completion/completions/tierscope",
                                 "/usr/share/zsh/vendor-completions/_tierscope",
                                 "/usr/share/man/man1/tierscope.1", "/usr/bin/tierscope"})
            QVERIFY2(QFileInfo::exists(m_dir.path() + file), file);
        QFile installed(m_dir.path() + "/usr/share/bash-completion/completions/tierscope");
        QVERIFY(installed.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(installed.readAll()), readGenerated("tierscope.bash"));
    }

  private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
