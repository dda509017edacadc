#include "TestSupport.h"
#include "loadgen/TraceParser.h"
#include "loadgen/TraceReader.h"

#include <QTemporaryDir>
#include <fstream>

using namespace tierscope;

namespace {

using Format = TraceParser::Format;

std::string fixture(const char* name) {
    return std::string(TIERSCOPE_FIXTURES) + "/" + name;
}

// Every record of a file, and the reader that read it (its malformed lines).
struct Read {
    std::vector<TraceRecord> records;
    std::int64_t lines = 0, malformed = 0;
    std::vector<TraceReader::Malformed> kept;
};

Read readAll(const std::string& path, Format format) {
    TraceReader reader(path, format);
    Read out;
    while (auto r = reader.next())
        out.records.push_back(std::move(*r));
    out.lines = reader.lines();
    out.malformed = reader.malformedCount();
    out.kept = reader.malformed();
    return out;
}

std::vector<std::int64_t> malformedLines(const Read& r) {
    std::vector<std::int64_t> out;
    for (const auto& m : r.kept)
        out.push_back(m.line);
    return out;
}

} // namespace

// The four public trace layouts, line by line (pure functions) and through the file reader on
// fixtures written in each layout, malformed lines included (tests/fixtures/<source>/README.md).
class TestTraceParser : public QObject {
    Q_OBJECT
  private slots:
    void mooncakeFixture() {
        const auto r =
            readAll(fixture("mooncake/mooncake_trace-fast25-layout.jsonl"), Format::Mooncake);
        QCOMPARE(r.records.size(), std::size_t(6));
        QCOMPARE(r.lines, std::int64_t(12)); // the cut last line has no newline and still counts
        QCOMPARE(r.malformed, std::int64_t(5));
        QCOMPARE(malformedLines(r), (std::vector<std::int64_t>{4, 6, 8, 10, 12}));
        QCOMPARE(r.kept[0].why, std::string("not a JSON object"));
        QVERIFY2(r.kept[1].why.find("\"input_length\"") != std::string::npos,
                 r.kept[1].why.c_str());
        QVERIFY2(r.kept[2].why.find("\"input_length\"") != std::string::npos,
                 r.kept[2].why.c_str());
        QVERIFY2(r.kept[3].why.find("\"hash_ids\"") != std::string::npos, r.kept[3].why.c_str());
        const auto& first = r.records[0];
        QCOMPARE(first.line, std::int64_t(1));
        QCOMPARE(first.timeNs, std::int64_t(0));
        QCOMPARE(first.inputTokens, 1200);
        QCOMPARE(first.outputTokens, 12);
        QCOMPARE(first.hashIds, (std::vector<std::int64_t>{0, 1, 2}));
        QCOMPARE(first.blockTokens, 512);
        // Timestamps are ms: 4521 ms on line 7.
        QCOMPARE(r.records[4].line, std::int64_t(7));
        QCOMPARE(r.records[4].timeNs, std::int64_t(4'521'000'000));
        QCOMPARE(r.records[3].outputTokens, 0); // line 5: kept, the schedule decides
        QCOMPARE(r.records[5].line, std::int64_t(11));
        QCOMPARE(r.records[5].hashIds, (std::vector<std::int64_t>{0, 1, 9}));
    }

    void bailianFixture() {
        const auto r =
            readAll(fixture("bailian/qwen_traceA_blksz_16-layout.jsonl"), Format::Bailian);
        QCOMPARE(r.records.size(), std::size_t(5));
        QCOMPARE(malformedLines(r), (std::vector<std::int64_t>{4, 6}));
        QVERIFY2(r.kept[0].why.find("timestamp") != std::string::npos, r.kept[0].why.c_str());
        QVERIFY2(r.kept[1].why.find("chat_id") != std::string::npos, r.kept[1].why.c_str());
        const auto& child = r.records[2];
        QCOMPARE(child.chatId, std::int64_t(2));
        QCOMPARE(child.parentChatId, std::int64_t(0));
        QCOMPARE(child.turn, 2);
        QCOMPARE(child.type, std::string("text"));
        QCOMPARE(child.timeNs, std::int64_t(5'250'000'000)); // seconds
        QCOMPARE(child.blockTokens, 16);
        QCOMPARE(child.inputTokens, 90);
        QCOMPARE(r.records[0].parentChatId, std::int64_t(-1));
        QCOMPARE(r.records[3].type, std::string("image"));
        QCOMPARE(r.records[4].timeNs, std::int64_t(61'114'000'000));
        QCOMPARE(r.records[4].hashIds.size(), std::size_t(9));
    }

    void azure2023Fixture() {
        const auto r =
            readAll(fixture("azure/AzureLLMInferenceTrace_conv-2023-layout.csv"), Format::Azure);
        QCOMPARE(r.records.size(), std::size_t(4));
        QCOMPARE(malformedLines(r), (std::vector<std::int64_t>{4, 5, 7, 8}));
        QVERIFY2(r.kept[0].why.find("ContextTokens") != std::string::npos, r.kept[0].why.c_str());
        QVERIFY2(r.kept[1].why.find("2023-11-31") != std::string::npos, r.kept[1].why.c_str());
        QCOMPARE(r.kept[2].why, std::string("2 fields where the header has 3"));
        // 7 fractional digits, no zone: UTC, to the 100 ns the layout carries (python3:
        // datetime(2023, 11, 16, 18, 20, tzinfo=timezone.utc).timestamp() = 1700158800).
        QCOMPARE(r.records[0].timeNs, std::int64_t(1'700'158'800'123'456'700));
        QCOMPARE(r.records[2].timeNs, std::int64_t(1'700'158'802'045'001'200));
        QCOMPARE(r.records[3].timeNs, std::int64_t(1'700'158'803'000'000'100));
        QCOMPARE(r.records[1].inputTokens, 1310);
        QCOMPARE(r.records[1].outputTokens, 171);
        QVERIFY(r.records[0].hashIds.empty());
        QCOMPARE(r.records[0].blockTokens, 0);
    }

    void azure2024Fixture() {
        const auto r = readAll(fixture("azure/AzureLLMInferenceTrace_code_1week-2024-layout.csv"),
                               Format::Azure);
        QCOMPARE(r.records.size(), std::size_t(3));
        QCOMPARE(malformedLines(r), (std::vector<std::int64_t>{4, 6}));
        QCOMPARE(r.records[0].timeNs, std::int64_t(1'715'299'200'009'930'000));
        QCOMPARE(r.records[2].timeNs, std::int64_t(1'715'299'203'250'001'000));
        QCOMPARE(r.records[2].outputTokens, 0);
    }

    void burstGptFixture() {
        const auto r = readAll(fixture("burstgpt/BurstGPT_1-v1.1-layout.csv"), Format::BurstGpt);
        QCOMPARE(r.records.size(), std::size_t(6));
        QCOMPARE(malformedLines(r), (std::vector<std::int64_t>{6, 7, 10}));
        QVERIFY2(r.kept[0].why.find("Request tokens") != std::string::npos, r.kept[0].why.c_str());
        QCOMPARE(r.kept[1].why, std::string("5 fields where the header has 6"));
        QCOMPARE(r.records[0].timeNs, std::int64_t(3'000'000'000));
        QCOMPARE(r.records[0].model, std::string("ChatGPT"));
        QCOMPARE(r.records[0].inputTokens, 512);
        QCOMPARE(r.records[0].outputTokens, 40);
        QCOMPARE(r.records[2].inputTokens, 0); // a failed request, as the trace records it
        QCOMPARE(r.records[4].model, std::string("GPT-4")); // quoted
        QCOMPARE(r.records[4].inputTokens, 640);
        QCOMPARE(r.records[5].timeNs, std::int64_t(35'500'000'000));
    }

    void dateTimes() {
        using P = TraceParser;
        QCOMPARE(P::dateTimeNs("1970-01-01 00:00:00"), std::optional<std::int64_t>(0));
        QCOMPARE(P::dateTimeNs("2024-02-29 23:59:59"),
                 std::optional<std::int64_t>(1'709'251'199'000'000'000));
        QCOMPARE(P::dateTimeNs("2024-02-29T23:59:59.5Z"),
                 std::optional<std::int64_t>(1'709'251'199'500'000'000));
        // Local time 02:00 at +02:00 is midnight UTC; -0130 is 01:30 behind.
        QCOMPARE(P::dateTimeNs("2024-05-10 02:00:00+02:00"),
                 std::optional<std::int64_t>(1'715'299'200'000'000'000));
        QCOMPARE(P::dateTimeNs("2024-05-09 22:30:00-0130"),
                 std::optional<std::int64_t>(1'715'299'200'000'000'000));
        QCOMPARE(P::dateTimeNs("2024-05-10 00:00:00.123456789"),
                 std::optional<std::int64_t>(1'715'299'200'123'456'789));
        for (const char* bad :
             {"2023-02-29 00:00:00", "2024-13-01 00:00:00", "2024-05-10 24:00:00",
              "2024-05-10 00:00:00.", "2024-05-10 00:00:00.1234567891", "2024-05-10 00:00",
              "2024-05-10 00:00:00+2", "2024-05-10 00:00:00 UTC", "1969-12-31 23:59:59", ""})
            QVERIFY2(!P::dateTimeNs(bad), bad);
    }

    void csvQuoting() {
        using P = TraceParser;
        QCOMPARE(*P::csvFields("a,\"b,c\",\"d \"\"e\"\"\",\r"),
                 (std::vector<std::string>{"a", "b,c", "d \"e\"", ""}));
        QCOMPARE(*P::csvFields(""), (std::vector<std::string>{""}));
        QVERIFY(!P::csvFields("a,\"b"));
        // A CRLF file reads as an LF one.
        const auto crlf = P::header(Format::Azure, "TIMESTAMP,ContextTokens,GeneratedTokens\r");
        QVERIFY(crlf.columns);
        const auto row =
            P::parse(Format::Azure, "2023-11-16 18:20:00.1234567,412,38\r", *crlf.columns);
        QVERIFY2(row.record, row.error.c_str());
        QCOMPARE(row.record->outputTokens, 38);
    }

    void headers() {
        using P = TraceParser;
        // Matched by name, in any order, extra columns allowed (later BurstGPT releases), a
        // byte order mark ignored.
        const auto v2 = P::header(Format::BurstGpt, "\xEF\xBB\xBFTimestamp,Session ID,Model,"
                                                    "Request tokens,Response tokens,Total tokens,"
                                                    "Log Type,Elapsed time");
        QVERIFY2(v2.columns, v2.error.c_str());
        QCOMPARE(v2.columns->count, std::size_t(8));
        QCOMPARE(v2.columns->timestamp, 0);
        QCOMPARE(v2.columns->model, 2);
        QCOMPARE(v2.columns->input, 3);
        QCOMPARE(v2.columns->output, 4);
        const auto row =
            P::parse(Format::BurstGpt, "12,u7,GPT-4,100,20,120,API log,1.5", *v2.columns);
        QVERIFY2(row.record, row.error.c_str());
        QCOMPARE(row.record->inputTokens, 100);
        QCOMPARE(row.record->model, std::string("GPT-4"));
        // Azure's header is not BurstGPT's, and the reverse: the message names what is missing.
        const auto wrong = P::header(Format::BurstGpt, "TIMESTAMP,ContextTokens,GeneratedTokens");
        QVERIFY(!wrong.columns);
        QVERIFY2(wrong.error.find("no Timestamp, Model, Request tokens") != std::string::npos,
                 wrong.error.c_str());
        QVERIFY(!P::header(Format::Azure, "Timestamp,Model,Request tokens,Response tokens,"
                                          "Total tokens,Log Type")
                     .columns);
    }

    void jsonValues() {
        using P = TraceParser;
        // A converter's 512.0 is a whole number; 512.5 and 1e12 tokens are not.
        const auto whole = P::parse(Format::Mooncake,
                                    R"({"timestamp": 1.5, "input_length": 512.0, )"
                                    R"("output_length": 1, "hash_ids": [3], "extra": true})",
                                    {});
        QVERIFY2(whole.record, whole.error.c_str());
        QCOMPARE(whole.record->timeNs, std::int64_t(1'500'000)); // 1.5 ms
        QCOMPARE(whole.record->inputTokens, 512);
        for (const char* bad :
             {R"({"timestamp": 0, "input_length": 512.5, "output_length": 1})",
              R"({"timestamp": 0, "input_length": 1000000000000, "output_length": 1})",
              R"({"timestamp": -1, "input_length": 5, "output_length": 1})",
              R"({"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [-1]})",
              R"({"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1.5]})",
              R"([0, 5, 1])", R"({"input_length": 5, "output_length": 1})"}) {
            const auto p = P::parse(Format::Mooncake, bad, {});
            QVERIFY2(!p.record && !p.error.empty(), bad);
        }
        // Missing hash ids: a record whose prompt is all its own words.
        const auto noIds = P::parse(
            Format::Mooncake, R"({"timestamp": 0, "input_length": 5, "output_length": 1})", {});
        QVERIFY(noIds.record && noIds.record->hashIds.empty());
        // Blank lines are neither records nor malformed.
        const auto blank = P::parse(Format::Bailian, "  \r", {});
        QVERIFY(!blank.record && blank.error.empty());
        QCOMPARE(P::format("burstgpt"), std::optional<Format>(Format::BurstGpt));
        QVERIFY(!P::format("sharegpt"));
    }

    void unreadableFiles() {
        QTemporaryDir dir;
        const std::string none = dir.filePath("none.jsonl").toStdString();
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, TraceReader(none, Format::Mooncake));
        const std::string folder = dir.path().toStdString();
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, TraceReader(folder, Format::Mooncake));
        // A CSV without its header: nothing can be read, and the message says the line.
        const std::string csv = dir.filePath("b.csv").toStdString();
        std::ofstream(csv) << "\n3,ChatGPT,512,40,552,Conversation log\n";
        try {
            TraceReader reader(csv, Format::BurstGpt);
            QFAIL("a header-less BurstGPT file was read");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("b.csv:2: not a BurstGPT trace header") !=
                         std::string::npos,
                     e.what());
        }
        // A line over the limit is malformed and skipped without being held whole.
        const std::string big = dir.filePath("big.jsonl").toStdString();
        {
            std::ofstream out(big);
            out << R"({"timestamp": 0, "input_length": 5, "output_length": 1})"
                << "\n";
            out << std::string(TraceReader::kMaxLineBytes + 10, 'x') << "\n";
            out << R"({"timestamp": 1, "input_length": 6, "output_length": 1})"
                << "\n";
        }
        const auto r = readAll(big, Format::Mooncake);
        QCOMPARE(r.records.size(), std::size_t(2));
        QCOMPARE(malformedLines(r), (std::vector<std::int64_t>{2}));
        QCOMPARE(r.records[1].line, std::int64_t(3));
    }
};

QTEST_GUILESS_MAIN(TestTraceParser)
#include "tst_traceparser.moc"
