#include "TestSupport.h"
#include "loadgen/SseParser.h"

#include <string>
#include <vector>

using namespace tierscope;

class TestSseParser : public QObject {
    Q_OBJECT
  private slots:
    void anySplitGivesTheSameEvents() {
        const std::string stream =
            ": keep-alive\r\ndata: {\"a\":1}\r\n\r\nevent: x\ndata: line one\ndata: line two\n\n"
            "data: [DONE]\n\n";
        for (std::size_t step = 1; step <= stream.size(); ++step) {
            std::vector<std::string> events;
            SseParser parser([&](std::string_view d) { events.emplace_back(d); });
            for (std::size_t at = 0; at < stream.size(); at += step)
                QVERIFY(parser.feed(std::string_view(stream).substr(at, step)));
            QCOMPARE(events.size(), std::size_t(3));
            QCOMPARE(events[0], std::string("{\"a\":1}"));
            QCOMPARE(events[1], std::string("line one\nline two"));
            QCOMPARE(events[2], std::string("[DONE]"));
        }
    }

    void overlongLineStopsTheStream() {
        int events = 0;
        SseParser parser([&](std::string_view) { ++events; }, 1000);
        QVERIFY(parser.feed("data: short\n\n"));
        QVERIFY(!parser.feed("data: " + std::string(600, 'x')) ||
                !parser.feed(std::string(600, 'y')));
        QVERIFY(parser.error().find("longer than 1000 bytes") != std::string::npos);
        QVERIFY(!parser.feed("\n\ndata: more\n\n")); // stays stopped
        QCOMPARE(events, 1);
    }

    void noEventWithoutBlankLine() {
        int events = 0;
        SseParser parser([&](std::string_view) { ++events; });
        QVERIFY(parser.feed("data: partial"));
        QVERIFY(parser.feed("\n"));
        QCOMPARE(events, 0);
        QVERIFY(parser.feed("\n"));
        QCOMPARE(events, 1);
    }

    // At the end of the stream a last event without its blank line still counts (vLLM's client
    // takes it too); a line cut short is the sign of a cut stream.
    void theEndOfTheStream() {
        std::vector<std::string> events;
        SseParser whole([&](std::string_view d) { events.emplace_back(d); });
        QVERIFY(whole.feed("data: a\n\ndata: [DONE]\n"));
        QVERIFY(whole.finish());
        QCOMPARE(events, (std::vector<std::string>{"a", "[DONE]"}));
        SseParser cut([&](std::string_view d) { events.emplace_back(d); });
        QVERIFY(cut.feed("data: a\n\ndata: {\"id\":\"x\",\"o"));
        QVERIFY(!cut.finish());
        QCOMPARE(events.size(), std::size_t(3)); // "a" only
    }
};

QTEST_GUILESS_MAIN(TestSseParser)
#include "tst_sseparser.moc"
