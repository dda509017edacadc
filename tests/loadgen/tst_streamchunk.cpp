#include "TestSupport.h"
#include "loadgen/SseParser.h"
#include "loadgen/StreamChunk.h"

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

    // Reasoning models stream their thinking before the answer, under reasoning_content
    // (vLLM, SGLang) or reasoning (newer vLLM): those chunks carry text, a role-only one none.
    void reasoningDeltasCarryText() {
        const auto chunks = readStream(test::fixture("sse/vllm-chat-reasoning.txt"), true);
        QCOMPARE(chunks.size(), std::size_t(8));
        QVERIFY(!chunks[0].carriesText()); // {"role":"assistant","content":""}
        QCOMPARE(chunks[1].reasoning, std::string("Let me"));
        QVERIFY(chunks[1].text.empty() && chunks[1].carriesText());
        QCOMPARE(chunks[2].reasoning, std::string(" think"));
        QCOMPARE(chunks[3].reasoning, std::string("."));
        QCOMPARE(chunks[4].text, std::string("Yes"));
        QVERIFY(chunks[4].reasoning.empty());
        QVERIFY(!chunks[5].carriesText()); // finish_reason only
        QCOMPARE(*chunks[6].outputTokens, 4);
        QCOMPARE(*chunks[6].promptTokens, 9);
        QVERIFY(!chunks[6].carriesText());
        QVERIFY(chunks[7].done);
        // vLLM's client counts every chunk with a choice as an arrival, text or not; the usage
        // chunk ("choices": []) and [DONE] are none.
        for (const std::size_t i : {0, 1, 2, 3, 4, 5})
            QVERIFY2(chunks[i].choice, qPrintable(QString::number(i)));
        QVERIFY(!chunks[6].choice && !chunks[7].choice);
        // Once the id is known the fast path must not skip reasoning beside an empty content.
        const auto both = StreamChunk::parse(
            R"({"choices":[{"delta":{"content":"","reasoning":"hm"}}]})", true, true);
        QCOMPARE(both.reasoning, std::string("hm"));
        QVERIFY(both.carriesText());
        const auto nullContent = StreamChunk::parse(
            R"({"choices":[{"delta":{"content":null,"reasoning_content":"x"}}]})", true, true);
        QCOMPARE(nullContent.reasoning, std::string("x"));
        // Completions streams have no reasoning field; a chat-shaped delta there is ignored.
        QVERIFY(!StreamChunk::parse(R"({"choices":[{"delta":{"reasoning":"x"}}]})", false, true)
                     .carriesText());
    }

    void absurdTokenCountsAreNotReported() {
        const auto c = StreamChunk::parse(
            R"({"usage":{"prompt_tokens":-4,"completion_tokens":99999999999}})", false, true);
        QVERIFY(!c.promptTokens);
        QVERIFY(!c.outputTokens);
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
