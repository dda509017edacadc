#include "core/util/TerminalText.h"

#include <QtTest>

using namespace tierscope;

// Labels written by whoever could write the workspace, printed to a terminal.
class TestTerminalText : public QObject {
    Q_OBJECT
  private slots:
    void hostileStrings_data() {
        QTest::addColumn<QByteArray>("in");
        QTest::addColumn<QByteArray>("out");
        QTest::newRow("CSI colour") << QByteArray("\x1b[31mred\x1b[0m") << QByteArray("[31mred[0m");
        QTest::newRow("OSC window title")
            << QByteArray("\x1b]0;pwned\x07label") << QByteArray("]0;pwnedlabel");
        QTest::newRow("clear screen") << QByteArray("\x1b[2J\x1b[H") << QByteArray("[2J[H");
        QTest::newRow("carriage return overwrites")
            << QByteArray("ok\rFAIL") << QByteArray("okFAIL");
        QTest::newRow("backspaces") << QByteArray("pass\b\b\b\bfail") << QByteArray("passfail");
        QTest::newRow("NUL and DEL") << QByteArray("a\0b\x7f"
                                                   "c",
                                                   5)
                                     << QByteArray("abc");
        QTest::newRow("C1 CSI in UTF-8") << QByteArray("\xc2\x9b"
                                                       "31mx")
                                         << QByteArray("31mx");
        QTest::newRow("C1 NEL and ST") << QByteArray("a\xc2\x85"
                                                     "b\xc2\x9c")
                                       << QByteArray("ab");
        QTest::newRow("raw 0x9B is not UTF-8") << QByteArray("\x9b"
                                                             "31m")
                                               << QByteArray("\xef\xbf\xbd"
                                                             "31m");
        QTest::newRow("right-to-left override") << QByteArray("abc\xe2\x80\xae"
                                                              "fed")
                                                << QByteArray("abcfed");
        QTest::newRow("isolates") << QByteArray("\xe2\x81\xa6"
                                                "x\xe2\x81\xa9")
                                  << QByteArray("x");
        QTest::newRow("cut sequence") << QByteArray("ab\xe2\x80") << QByteArray("ab\xef\xbf\xbd");
        // What stays
        QTest::newRow("newline and tab") << QByteArray("a\tb\nc") << QByteArray("a\tb\nc");
        QTest::newRow("UTF-8 text")
            << QByteArray("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x9a\x80 \xc2\xa0")
            << QByteArray("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x9a\x80 \xc2\xa0");
        QTest::newRow("left-to-right mark stays")
            << QByteArray("\xe2\x80\x8e") << QByteArray("\xe2\x80\x8e");
        QTest::newRow("empty") << QByteArray() << QByteArray();
    }
    void hostileStrings() {
        QFETCH(QByteArray, in);
        QFETCH(QByteArray, out);
        const std::string cleaned =
            TerminalText::clean(std::string_view(in.constData(), in.size()));
        QCOMPARE(QByteArray::fromStdString(cleaned), out);
    }
};

QTEST_GUILESS_MAIN(TestTerminalText)
#include "tst_terminaltext.moc"
