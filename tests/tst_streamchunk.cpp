#include "TestSupport.h"
#include "collectors/SseParser.h"
#include "collectors/StreamChunk.h"

using namespace tierscope;

namespace {

std::vector<StreamChunk> readStream(const std::string& stream, bool chat) {
    std::vector<StreamChunk> chunks;
    SseParser parser(
        [&](std::string_view data) {
            const bool idKnown = !chunks.empty() && chunks.front().id.has_value();
            chunks.push_back(StreamChunk::parse(data, chat, idKnown));
        },
        1 << 20);
    parser.feed(stream);
    return chunks;
}

} // namespace

// The load generator's reading of an engine's chunks, on captured and hostile input.
class TestStreamChunk : public QObject {
    Q_OBJECT
  private slots:
    void capturedVllmStream() {
        const auto chunks = readStream(test::fixture("sse/vllm-completions-0.8.txt"), false);
        QCOMPARE(chunks.size(), std::size_t(3));
        QCOMPARE(*chunks[0].id, std::string("cmpl-1"));
        QCOMPARE(chunks[0].text + chunks[1].text, std::string("Hello world"));
        QCOMPARE(*chunks[1].promptTokens, 5);
        QCOMPARE(*chunks[1].outputTokens, 2);
        QVERIFY(!chunks[0].promptTokens); // not reported: absent, not zero
        QVERIFY(chunks[2].done);
        for (const auto& c : chunks)
            QVERIFY(c.error.empty());
    }

    void chatDeltasAndTheFastPath() {
        const auto role = StreamChunk::parse(
            R"({"id":"c","choices":[{"delta":{"role":"assistant","content":""}}]})", true, false);
        QCOMPARE(*role.id, std::string("c"));
        QVERIFY(role.text.empty());
        // Once the id is known, a token chunk is read without a JSON document; escapes still
        // come out right.
        const auto fast = StreamChunk::parse(
            "{\"id\":\"c\",\"choices\":[{\"delta\":{\"content\":\"a\\\"b\\nc\"}}]}", true, true);
        QCOMPARE(fast.text, std::string("a\"b\nc"));
        QVERIFY(!fast.id);
        const auto unicode =
            StreamChunk::parse(R"({"choices":[{"text":"caf\u00e9"}]})", false, true);
        QCOMPARE(unicode.text, std::string("caf\xc3\xa9"));
    }

    // Fields of the wrong type are ignored, never thrown on (the SSE fuzz target found
    // {"text": 0}).
    void wrongTypesAndErrors() {
        const auto crash =
            readStream(test::fixture("sse/crash-text-not-a-string.txt").substr(1), false);
        for (const auto& c : crash)
            QVERIFY(c.text.empty() || c.error.empty());
        const auto numbers = StreamChunk::parse(
            R"({"id":7,"choices":[{"text":0}],"usage":{"prompt_tokens":"5"}})", false, false);
        QVERIFY(numbers.text.empty() && !numbers.id && !numbers.promptTokens);
        QVERIFY(numbers.error.empty());
        QCOMPARE(StreamChunk::parse(R"({"error":{"message":"overloaded"}})", false, true).error,
                 std::string("overloaded"));
        QCOMPARE(StreamChunk::parse(R"({"error":{"message":42}})", false, true).error,
                 std::string(R"({"message":42})"));
        QCOMPARE(StreamChunk::parse("{not json", false, false).error,
                 std::string("invalid JSON in the event stream"));
        QCOMPARE(StreamChunk::parse("{\"choices\":[{\"text\":\"\xff\"}]}", false, true).error,
                 std::string("invalid UTF-8 in the event stream"));
    }
};

QTEST_GUILESS_MAIN(TestStreamChunk)
#include "tst_streamchunk.moc"
