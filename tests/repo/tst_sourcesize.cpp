#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QMap>
#include <QRegularExpression>
#include <QtTest>

// The house limits, checked on the sources: a product file has at most 600 lines and a
// function at most 120. The few that are longer are listed below, each with its reason; an
// entry that is no longer needed fails too, so the list only shrinks.
class TstSourceSize : public QObject {
    Q_OBJECT
  private:
    static constexpr int kFileLines = 600;
    static constexpr int kFunctionLines = 120;

    static QString root() { return QStringLiteral(TIERSCOPE_SOURCE_DIR); }

    // "path" or "path:Function" -> why it is longer. "debt" marks what is still to split.
    static QMap<QString, QString> allowed() {
        return {
            {"agent/AgentServer.cpp:AgentServer::loop",
             "the poll loop of a bounded HTTP server: every limit is a branch of one loop"},
            {"remote/RemoteStreamReader.cpp:RemoteStreamReader::line",
             "one branch per record kind of the versioned stream"},
            {"ui/compare/CompareDialog.cpp:CompareDialog::CompareDialog",
             "a form: every field, its tooltip and its connection"},
        };
    }

    // Comments, string and character literals (raw strings too) blanked, newlines kept, so
    // braces inside them are not counted.
    static QString codeOnly(const QString& text) {
        QString out = text;
        const qsizetype n = text.size();
        auto blank = [&](qsizetype from, qsizetype to) {
            for (qsizetype k = from; k < to && k < n; ++k)
                if (out[k] != '\n')
                    out[k] = ' ';
        };
        static const QRegularExpression raw("\\G(?:u8|u|U|L)?R\"([^(\\s]{0,16})\\(");
        qsizetype i = 0;
        while (i < n) {
            const QChar c = text[i];
            const bool wordBefore = i > 0 && (text[i - 1].isLetterOrNumber() || text[i - 1] == '_');
            if (text.mid(i, 2) == "//") {
                const qsizetype end = text.indexOf('\n', i);
                const qsizetype to = end < 0 ? n : end;
                blank(i, to);
                i = to;
            } else if (text.mid(i, 2) == "/*") {
                const qsizetype end = text.indexOf("*/", i + 2);
                const qsizetype to = end < 0 ? n : end + 2;
                blank(i, to);
                i = to;
            } else if (const auto m = raw.match(text, i); !wordBefore && m.hasMatch()) {
                const QString close = ")" + m.captured(1) + "\"";
                const qsizetype end = text.indexOf(close, m.capturedEnd());
                const qsizetype to = end < 0 ? n : end + close.size();
                blank(i, to);
                i = to;
            } else if (c == '"' || (c == '\'' && !(i > 0 && text[i - 1].isDigit()))) {
                qsizetype j = i + 1;
                while (j < n && text[j] != c && text[j] != '\n')
                    j += text[j] == '\\' ? 2 : 1;
                const qsizetype to = std::min(j + 1, n);
                blank(i, to);
                i = to;
            } else {
                ++i;
            }
        }
        return out;
    }

    struct Function {
        QString name;
        int lines = 0;
    };

    // Bodies opened outside any function whose head has a parameter list and is no
    // initializer: the functions, with their lengths from the opening to the closing brace.
    static QList<Function> functions(const QString& text) {
        static const QRegularExpression nameBeforeParen("([~\\w:]+)\\s*\\(");
        static const QRegularExpression typeHead(
            "^(template\\s*<.*>\\s*)?(struct|class|union|enum)\\b");
        static const QRegularExpression assignment("(^|[^=!<>])=([^=]|$)");
        const QString code = codeOnly(text);
        struct Open {
            bool function;
            int line;
            QString name;
        };
        QList<Open> stack;
        QList<Function> out;
        int line = 1;
        qsizetype headStart = 0;
        for (qsizetype i = 0; i < code.size(); ++i) {
            const QChar c = code[i];
            if (c == '\n')
                ++line;
            if (c != ';' && c != '{' && c != '}')
                continue;
            if (c == '{') {
                const QString head = code.mid(headStart, i - headStart).simplified();
                const bool inFunction = std::any_of(stack.begin(), stack.end(),
                                                    [](const Open& o) { return o.function; });
                const bool isFunction = !inFunction && head.contains('(') &&
                                        !head.contains(QRegularExpression("\\bnamespace\\b")) &&
                                        !typeHead.match(head).hasMatch() &&
                                        !assignment.match(head.section('(', 0, 0)).hasMatch();
                const auto name = nameBeforeParen.match(head);
                stack.append(
                    {isFunction, line, name.hasMatch() ? name.captured(1) : head.left(40)});
            } else if (c == '}' && !stack.isEmpty()) {
                const Open open = stack.takeLast();
                if (open.function)
                    out.append({open.name, line - open.line + 1});
            }
            headStart = i + 1;
        }
        return out;
    }

    static QStringList productFiles() {
        QStringList out;
        for (const QString& top : {"agent", "app", "collectors", "core", "experiments", "loadgen",
                                   "remote", "simulator", "ui", "workloads"}) {
            QDirIterator it(root() + "/" + top, {"*.cpp", "*.h"}, QDir::Files,
                            QDirIterator::Subdirectories);
            while (it.hasNext())
                out << QDir(root()).relativeFilePath(it.next());
        }
        out.sort();
        return out;
    }

  private slots:
    void theScannerFindsFunctionsAndTheirLengths() {
        const QString text = "namespace x {\n"
                             "const int table[] = {1, 2};\n"
                             "struct S {\n  int f() { return 1; }\n};\n"
                             "int Foo::bar(int a,\n             int b) {\n"
                             "    auto l = [](int q) { return q; };\n"
                             "    const char* s = \"}}}\"; // }\n"
                             "    /* { */ return R\"(})\"[0] + '}';\n"
                             "}\n"
                             "} // namespace x\n";
        const auto found = functions(text);
        QCOMPARE(found.size(), 2); // S::f (in a type, counted) and Foo::bar; not the table
        QCOMPARE(found[0].name, QString("f"));
        QCOMPARE(found[1].name, QString("Foo::bar"));
        QCOMPARE(found[1].lines, 5); // from the brace on its second line to the closing one
    }

    void productFilesAndFunctionsKeepTheLimits() {
        const auto allow = allowed();
        QStringList over;
        QSet<QString> used;
        for (const QString& path : productFiles()) {
            QFile f(root() + "/" + path);
            QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
            const QString text = QString::fromUtf8(f.readAll());
            const int lines = static_cast<int>(text.count('\n'));
            if (lines > kFileLines) {
                if (allow.contains(path))
                    used.insert(path);
                else
                    over << QString("%1: %2 lines").arg(path).arg(lines);
            }
            for (const auto& fn : functions(text)) {
                if (fn.lines <= kFunctionLines)
                    continue;
                const QString key = path + ":" + fn.name;
                if (allow.contains(key))
                    used.insert(key);
                else
                    over << QString("%1: %2 lines").arg(key).arg(fn.lines);
            }
        }
        QVERIFY2(over.isEmpty(), qPrintable("over the limit (split it, or list it with its "
                                            "reason in tst_sourcesize.cpp):\n" +
                                            over.join('\n')));
        QStringList stale;
        for (const QString& key : allow.keys())
            if (!used.contains(key))
                stale << key;
        QVERIFY2(stale.isEmpty(),
                 qPrintable("within the limits now; remove from the list:\n" + stale.join('\n')));
    }
};

QTEST_GUILESS_MAIN(TstSourceSize)
#include "tst_sourcesize.moc"
