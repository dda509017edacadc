#include "TestSupport.h"
#include "loadgen/Datasets.h"

#include <QTemporaryDir>
#include <algorithm>
#include <set>
#include <sstream>

using namespace tierscope;

namespace {

int wordCount(const std::string& text) {
    std::istringstream in(text);
    int n = 0;
    for (std::string w; in >> w;)
        ++n;
    return n;
}

} // namespace

class TestDatasets : public QObject {
    Q_OBJECT
  private slots:
    void syntheticLengthsAndSeeds() {
        const auto fixed = Datasets::synthetic(20, 128, 128, 64, 7);
        QCOMPARE(fixed.size(), std::size_t(20));
        for (const auto& c : fixed) {
            QCOMPARE(wordCount(c.questions.at(0)), 128);
            QCOMPARE(c.maxTokens.at(0), 64);
        }
        const auto ranged = Datasets::synthetic(200, 10, 20, 8, 7);
        int lo = 100, hi = 0;
        for (const auto& c : ranged) {
            lo = std::min(lo, wordCount(c.questions[0]));
            hi = std::max(hi, wordCount(c.questions[0]));
        }
        QCOMPARE(lo, 10);
        QCOMPARE(hi, 20);
        QCOMPARE(Datasets::synthetic(3, 5, 9, 1, 42)[2].questions,
                 Datasets::synthetic(3, 5, 9, 1, 42)[2].questions);
    }

    // Runs with different seeds must not send the same prompts, or the engine's prefix cache
    // serves the "new" run: seeds 2 and 3, and 0 and 1, once shared one stream.
    void everySeedItsOwnPrompts() {
        std::set<std::string> first;
        for (std::uint64_t seed = 0; seed < 64; ++seed) {
            QVERIFY2(first.insert(Datasets::synthetic(1, 50, 50, 1, seed)[0].questions[0]).second,
                     qPrintable(QString::number(seed)));
            QVERIFY(Datasets::sharedPrefix(1, 50, 1, 5, 1, seed)[0].system !=
                    Datasets::sharedPrefix(1, 50, 1, 5, 1, seed + 1)[0].system);
        }
    }

    void sharedPrefixConversations() {
        const auto users = Datasets::sharedPrefix(4, 300, 3, 20, 32, 1);
        QCOMPARE(users.size(), std::size_t(4));
        for (const auto& c : users) {
            QCOMPARE(c.system, users[0].system); // one system prompt shared by every user
            QCOMPARE(wordCount(c.system), 300);
            QCOMPARE(c.questions.size(), std::size_t(3));
        }
        QVERIFY(users[0].questions[0] != users[1].questions[0]);
    }

    // Sizes are refused before anything is allocated, with the limit in the message:
    // --rounds 0 once made conversations of no rounds (a crash), --input-len 100000000 took
    // 3 GB.
    // Every measured prompt starts with its document, whole; documents differ from their first
    // word; measured requests go round the documents.
    void coldRecoveryDocumentsAreTheQuestionsPrefix() {
        const auto d = Datasets::coldRecovery(3, 100, 2, 5, 7, 1);
        QCOMPARE(d.populate.size(), std::size_t(3));
        QCOMPARE(d.measured.size(), std::size_t(6));
        for (const auto& c : d.populate) {
            QCOMPARE(std::count(c.system.begin(), c.system.end(), ' ') + 1, 100L);
            QCOMPARE(c.maxTokens, std::vector<int>{7});
        }
        QVERIFY(d.populate[0].system.substr(0, 11) != d.populate[1].system.substr(0, 11));
        for (std::size_t i = 0; i < d.measured.size(); ++i) {
            QCOMPARE(d.measured[i].system, d.populate[i % 3].system);
            QCOMPARE(d.measured[i].questions.size(), std::size_t(1));
        }
        QVERIFY(d.measured[0].questions[0] != d.measured[3].questions[0]);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Datasets::coldRecovery(0, 100, 1, 1, 1, 1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 Datasets::coldRecovery(1000, 1'000'000, 1000, 1, 1, 1));
    }

    void absurdSizesAreRefusedWithTheLimit() {
        auto message = [](auto make) {
            try {
                make();
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
            return std::string("accepted");
        };
        const auto rounds0 = message([] { Datasets::sharedPrefix(4, 10, 0, 5, 8, 1); });
        QVERIFY2(rounds0.find("rounds") != std::string::npos &&
                     rounds0.find("between 1 and 1000") != std::string::npos,
                 rounds0.c_str());
        QVERIFY(message([] { Datasets::sharedPrefix(4, 10, -3, 5, 8, 1); }) != "accepted");
        QVERIFY(message([] { Datasets::sharedPrefix(0, 10, 2, 5, 8, 1); }) != "accepted");
        const auto longPrompt =
            message([] { Datasets::synthetic(10, 100'000'000, 100'000'000, 8, 1); });
        QVERIFY2(longPrompt.find("between 0 and 1000000") != std::string::npos, longPrompt.c_str());
        const auto many = message([] { Datasets::synthetic(2'000'000, 512, 512, 8, 1); });
        QVERIFY2(many.find("100000000") != std::string::npos, many.c_str());
        const auto users = message([] { Datasets::sharedPrefix(100'000, 1000, 4, 64, 8, 1); });
        QVERIFY2(users.find("100000000") != std::string::npos, users.c_str());
        QVERIFY(message([] { Datasets::synthetic(1, 20, 10, 8, 1); }) != "accepted"); // MIN > MAX
        QVERIFY(message([] { Datasets::synthetic(1, 10, 10, 0, 1); }) != "accepted");
        QCOMPARE(Datasets::sharedPrefix(1, 0, 1, 0, 1, 1).size(), std::size_t(1)); // the edges
    }

    void jsonlAndShareGpt() {
        QTemporaryDir dir;
        test::writeFile(dir.filePath("d.jsonl"),
                        "{\"prompt\": \"hello world\", \"max_tokens\": 7}\n\n"
                        "{\"conversations\": [{\"from\": \"human\", \"value\": \"q1\"}, {\"from\": "
                        "\"gpt\", \"value\": \"a1\"},"
                        " {\"from\": \"human\", \"value\": \"q2\"}]}\n");
        const auto d = Datasets::jsonl(dir.filePath("d.jsonl").toStdString(), 100);
        QCOMPARE(d.size(), std::size_t(2));
        QCOMPARE(d[0].questions[0], std::string("hello world"));
        QCOMPARE(d[0].maxTokens[0], 7);
        QCOMPARE(d[1].questions.size(), std::size_t(2));
        QCOMPARE(d[1].maxTokens[1], 100);
        test::writeFile(dir.filePath("bad.jsonl"), "{\"prompt\": \"ok\"}\n{\"text\": \"no\"}\n");
        try {
            Datasets::jsonl(dir.filePath("bad.jsonl").toStdString(), 1);
            QFAIL("a line without prompt must be refused");
        } catch (const std::runtime_error& e) {
            QVERIFY(std::string(e.what()).find("bad.jsonl:2") != std::string::npos);
        }
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, Datasets::jsonl("/nonexistent.jsonl", 1));
    }
};

QTEST_GUILESS_MAIN(TestDatasets)
#include "tst_datasets.moc"
