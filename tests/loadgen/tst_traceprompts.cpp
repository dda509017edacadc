#include "TestSupport.h"
#include "loadgen/TracePrompts.h"

#include <set>
#include <sstream>

using namespace tierscope;

namespace {

std::vector<std::string> words(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string w; in >> w;)
        out.push_back(std::move(w));
    return out;
}

TraceRecord record(int input, std::vector<std::int64_t> ids, int blockTokens) {
    TraceRecord r;
    r.inputTokens = input;
    r.outputTokens = 1;
    r.hashIds = std::move(ids);
    r.blockTokens = blockTokens;
    return r;
}

// How many words two prompts share from their start.
std::size_t sharedWords(const std::string& a, const std::string& b) {
    const auto wa = words(a), wb = words(b);
    std::size_t n = 0;
    while (n < wa.size() && n < wb.size() && wa[n] == wb[n])
        ++n;
    return n;
}

} // namespace

// Prompts from hash ids: equal ids are equal words, so a prefix the trace shared is a prefix
// the engine sees; one word per token, so a block's boundary is a token boundary.
class TestTracePrompts : public QObject {
    Q_OBJECT
  private slots:
    void equalIdsAreEqualBlocks() {
        TracePrompts prompts(7);
        // Mooncake-sized blocks: [0, 1, 2] and [0, 1, 3] share two whole blocks, 1024 words;
        // [0, 4] only the first.
        const auto a = prompts.prompt(record(1200, {0, 1, 2}, 512));
        const auto b = prompts.prompt(record(1500, {0, 1, 3}, 512));
        const auto c = prompts.prompt(record(700, {0, 4}, 512));
        QCOMPARE(words(a).size(), std::size_t(1200));
        QCOMPARE(words(b).size(), std::size_t(1500));
        QCOMPARE(words(c).size(), std::size_t(700));
        QCOMPARE(sharedWords(a, b), std::size_t(1024));
        QCOMPARE(sharedWords(a, c), std::size_t(512));
        // A cut last block is the start of the whole block: 188 of block 2's words.
        const auto whole2 = prompts.block(2, 512, 512);
        QCOMPARE(words(a).back(), words(whole2)[1200 - 1024 - 1]);
        // The same seed gives the same text in another instance (another run, another arm).
        TracePrompts again(7);
        QCOMPARE(again.prompt(record(1200, {0, 1, 2}, 512)), a);
        // Another seed, other words: a new repetition is not served from an old cache.
        TracePrompts other(8);
        QVERIFY(sharedWords(other.prompt(record(1200, {0, 1, 2}, 512)), a) < 16);
    }

    void everyWordIsOneOfTheVocabulary() {
        TracePrompts prompts(1);
        const auto text = prompts.prompt(record(5000, {}, 0));
        std::set<std::string> seen;
        for (const auto& w : words(text))
            seen.insert(w);
        // 64 words, all drawn over 5000: the vocabulary whose words are one token each.
        QCOMPARE(seen.size(), std::size_t(64));
        QVERIFY(text.find("  ") == std::string::npos);
        QVERIFY(text.front() != ' ' && text.back() != ' ');
    }

    void bailianTurnsKeepTheirParentsPrefix() {
        TracePrompts prompts(3);
        // The fixture's chat 0 and its turn 2 (tests/fixtures/bailian): the child's ids start
        // with the parent's two full 16-token blocks; the parent's partial third block (8 of
        // its tokens) is rehashed in the child.
        const auto parent = prompts.prompt(record(40, {0, 1, 2}, 16));
        const auto child = prompts.prompt(record(90, {0, 1, 7, 8, 9, 10}, 16));
        const auto turn3 = prompts.prompt(record(130, {0, 1, 7, 8, 9, 16, 17, 18, 19}, 16));
        QCOMPARE(sharedWords(parent, child), std::size_t(32));
        QCOMPARE(sharedWords(child, turn3), std::size_t(80));
        QCOMPARE(words(turn3).size(), std::size_t(130));
    }

    void withoutIdsEveryPromptIsItsOwn() {
        TracePrompts prompts(5);
        const auto a = prompts.prompt(record(64, {}, 0));
        const auto b = prompts.prompt(record(64, {}, 0));
        QCOMPARE(words(a).size(), std::size_t(64));
        QVERIFY(sharedWords(a, b) < 16);
        // Ids that cover less than the input: the rest is the record's own words, so two
        // records with the same ids share exactly the ids' blocks.
        const auto c = prompts.prompt(record(600, {11}, 512));
        const auto d = prompts.prompt(record(600, {11}, 512));
        QCOMPARE(sharedWords(c, d), std::size_t(512));
        // Ids beyond the input are not sent.
        QCOMPARE(words(prompts.prompt(record(100, {1, 2, 3}, 512))).size(), std::size_t(100));
    }

    void theBlockCacheIsBounded() {
        TracePrompts prompts(9, 64 * 1024); // a few 512-word blocks
        std::string first;
        for (std::int64_t id = 0; id < 200; ++id) {
            const auto text = prompts.block(id, 512, 512);
            if (id == 0)
                first = text;
            QVERIFY(prompts.cachedBytes() <= 64 * 1024);
        }
        // An evicted block comes back with the same words.
        QCOMPARE(prompts.block(0, 512, 512), first);
    }
};

QTEST_GUILESS_MAIN(TestTracePrompts)
#include "tst_traceprompts.moc"
