#include "core/util/Utf8.h"

#include <QtTest>

using namespace tierscope;

class TestUtf8 : public QObject {
    Q_OBJECT
  private slots:
    void validIsUnchanged() {
        const std::string text = "plain, é, €, 😀";
        QVERIFY(Utf8::valid(text));
        QCOMPARE(Utf8::lossy(text), text);
    }

    // One U+FFFD per maximal subpart (Unicode 15, table 3-8).
    void eachIllFormedPartBecomesOneReplacement() {
        const std::string r = "\xEF\xBF\xBD";
        const std::pair<std::string, std::string> cases[] = {
            {"a\x80z", "a" + r + "z"},                 // a lone continuation byte
            {"\xC0\xAF", r + r},                       // overlong: C0 is never a lead
            {"\xE2\x82", r},                           // cut short at the end
            {"\xE2\x82z", r + "z"},                    // cut short inside
            {"\xED\xA0\x80", r + r + r},               // a surrogate
            {"\xF4\x90\x80\x80", r + r + r + r},       // past U+10FFFF
            {"\xF0\x9F\x98", r},                       // three of four bytes
            {"\xFF\xFE", r + r},                       // never in UTF-8
            {"\xE2\x82\xAC\xE2", "\xE2\x82\xAC" + r}}; // a good one, then a cut one
        for (const auto& [in, out] : cases) {
            QVERIFY(!Utf8::valid(in));
            QCOMPARE(Utf8::lossy(in), out);
            QVERIFY(Utf8::valid(Utf8::lossy(in)));
        }
    }
};

QTEST_GUILESS_MAIN(TestUtf8)
#include "tst_utf8.moc"
