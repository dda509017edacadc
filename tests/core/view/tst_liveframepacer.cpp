// The live view's frame pacing: a frame when the picture can differ by a pixel and something
// new was written, never twice for the same pixel column.
#include "core/view/LiveFramePacer.h"

#include <QtTest>

using namespace tierscope;

namespace {
constexpr std::int64_t kMs = 1000000LL;
constexpr std::int64_t kSecond = 1000 * kMs;
} // namespace

class TestLiveFramePacer : public QObject {
    Q_OBJECT
  private slots:
    void onePixelSpansTheWindowOverTheWidth() {
        QCOMPARE(LiveFramePacer::pixelNs(300 * kSecond, 1500), 200 * kMs);
        QCOMPARE(LiveFramePacer::pixelNs(60 * kSecond, 1500), 40 * kMs);
        // Never below a millisecond, and a plot not laid out yet (0 px) is one column.
        QCOMPARE(LiveFramePacer::pixelNs(1 * kSecond, 100000), 1 * kMs);
        QCOMPARE(LiveFramePacer::pixelNs(10 * kSecond, 0), 10 * kSecond);
    }

    void theEdgeIsNowSnappedDownToAPixel() {
        QCOMPARE(LiveFramePacer::edgeOf(1'000 * kSecond + 199 * kMs, 300 * kSecond, 1500),
                 1'000 * kSecond);
        QCOMPARE(LiveFramePacer::edgeOf(1'000 * kSecond + 200 * kMs, 300 * kSecond, 1500),
                 1'000 * kSecond + 200 * kMs);
        QCOMPARE(LiveFramePacer::edgeOf(-1, 300 * kSecond, 1500), -200 * kMs);
    }

    // 10 Hz samples into a 5 min window over 1,500 px (a pixel each 200 ms), a 100 ms timer:
    // a frame every second tick, not every tick.
    void tenHertzSamplesOnAFiveMinuteWindowDrawEveryOtherTick() {
        LiveFramePacer pacer;
        const std::int64_t start = 1'790'000'000LL * kSecond;
        int frames = 0;
        std::uint64_t version = 0;
        for (int tick = 0; tick < 100; ++tick) { // 10 s
            ++version;                           // a sample since the last tick
            const auto edge =
                pacer.due(start + tick * 100 * kMs + 50 * kMs, 300 * kSecond, 1500, version);
            if (edge) {
                ++frames;
                QVERIFY(*edge <= start + tick * 100 * kMs + 50 * kMs);
                QCOMPARE(*edge % (200 * kMs), 0);
            }
        }
        QCOMPARE(frames, 50);
        // The 1 min window moves a pixel each 40 ms: every tick draws.
        LiveFramePacer minute;
        frames = 0;
        for (int tick = 0; tick < 100; ++tick)
            frames += minute.due(start + tick * 100 * kMs, 60 * kSecond, 1500, tick + 1) ? 1 : 0;
        QCOMPARE(frames, 100);
    }

    // A 500 ms period over 200 ms pixels: the edge moves 600 ms (three whole pixels) at a
    // time, so 10 s of 10 Hz ticks draw 17 frames, not 50; a period below a pixel changes
    // nothing.
    void aPeriodSpacesFramesByWholePixels() {
        QCOMPARE(LiveFramePacer::stepNs(300 * kSecond, 1500, 500 * kMs), 600 * kMs);
        QCOMPARE(LiveFramePacer::stepNs(300 * kSecond, 1500, 600 * kMs), 600 * kMs);
        QCOMPARE(LiveFramePacer::stepNs(300 * kSecond, 1500, 100 * kMs), 200 * kMs);
        QCOMPARE(LiveFramePacer::stepNs(300 * kSecond, 1500, 0), 200 * kMs);
        LiveFramePacer pacer;
        pacer.setPeriod(500 * kMs);
        const std::int64_t start = 1'790'000'000LL * kSecond;
        int frames = 0;
        std::int64_t last = 0;
        for (int tick = 0; tick < 100; ++tick) {
            const auto edge =
                pacer.due(start + tick * 100 * kMs + 50 * kMs, 300 * kSecond, 1500, tick + 1);
            if (!edge)
                continue;
            ++frames;
            QCOMPARE(*edge % (600 * kMs), 0);
            if (last != 0)
                QCOMPARE(*edge - last, 600 * kMs);
            last = *edge;
        }
        QCOMPARE(frames, 17); // the first frame, then one per 600 ms in 9.95 s
        // Setting a period asks for a frame: the view shows the new pacing at once.
        pacer.setPeriod(100 * kMs);
        QVERIFY(pacer.due(start + 9950 * kMs, 300 * kSecond, 1500, 100));
    }

    // Nothing written since the last frame: the view stays still even as time passes (a
    // stopped recording), until something asks for a frame.
    void nothingNewDrawsNothingUntilInvalidated() {
        LiveFramePacer pacer;
        QVERIFY(pacer.due(10 * kSecond, 60 * kSecond, 600, 7)); // the first frame always
        QVERIFY(!pacer.due(11 * kSecond, 60 * kSecond, 600, 7));
        QVERIFY(!pacer.due(12 * kSecond, 60 * kSecond, 600, 7));
        pacer.invalidate(); // scrolled: a chart came into view
        const auto edge = pacer.due(12 * kSecond, 60 * kSecond, 600, 7);
        QVERIFY(edge);
        QCOMPARE(*edge, 12 * kSecond);
        QVERIFY(!pacer.due(12 * kSecond, 60 * kSecond, 600, 8)); // same pixel: wait for it
        QVERIFY(pacer.due(12 * kSecond + 100 * kMs, 60 * kSecond, 600, 8));
    }
};

QTEST_GUILESS_MAIN(TestLiveFramePacer)
#include "tst_liveframepacer.moc"
