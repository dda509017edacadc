#include "TestSupport.h"
#include "core/store/ChunkCodec.h"

#include <cmath>
#include <limits>

using namespace tierscope;

class TestChunkCodec : public QObject {
    Q_OBJECT
  private slots:
    void roundTripsExactly() {
        std::vector<Sample> in;
        for (int i = 0; i < 1000; ++i)
            in.push_back(
                {1'700'000'000'000'000'000 + i * 100'000'000LL + (i % 7), std::sin(i) * 1e9});
        in.push_back({in.back().tNs - 5, -0.0}); // out of order and negative zero
        in.push_back(
            {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<double>::infinity()});
        in.push_back(
            {std::numeric_limits<std::int64_t>::max(), std::numeric_limits<double>::denorm_min()});
        const auto blob = ChunkCodec::encode(in);
        const auto out = ChunkCodec::decode(blob);
        QVERIFY(out);
        QCOMPARE(out->size(), in.size());
        for (std::size_t i = 0; i < in.size(); ++i) {
            QCOMPARE((*out)[i].tNs, in[i].tNs);
            QCOMPARE(std::memcmp(&(*out)[i].value, &in[i].value, sizeof(double)), 0);
        }
    }

    void regularSeriesIsCompact() {
        std::vector<Sample> in;
        for (int i = 0; i < 100; ++i)
            in.push_back({1'700'000'000'000'000'000 + i * 100'000'000LL, 1.0});
        // 8 bytes per value plus ~4 bytes per 100 ms delta, instead of 16 per sample.
        QVERIFY(ChunkCodec::encode(in).size() < 100 * 13);
    }

    void rejectsTruncatedAndHostileBlobs() {
        std::vector<Sample> in{{1, 1.0}, {2, 2.0}, {3, 3.0}};
        auto blob = ChunkCodec::encode(in);
        for (std::size_t cut = 0; cut < blob.size(); ++cut)
            QVERIFY(!ChunkCodec::decode(std::span(blob.data(), cut)));
        blob.push_back(0);
        QVERIFY(!ChunkCodec::decode(blob));
        // A count far larger than the blob must not allocate or read past the end.
        const std::vector<unsigned char> hostile{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
        QVERIFY(!ChunkCodec::decode(hostile));
        QVERIFY(ChunkCodec::decode(ChunkCodec::encode({}))->empty());
    }
};

QTEST_GUILESS_MAIN(TestChunkCodec)
#include "tst_chunkcodec.moc"
