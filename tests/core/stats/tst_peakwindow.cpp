#include "core/stats/PeakWindow.h"

#include <QtTest>
#include <cmath>

using namespace tierscope;

namespace {

constexpr std::int64_t kMs = 1'000'000;

std::vector<Sample> steady(double rate, int n, std::int64_t stepNs, std::int64_t t0 = 0) {
    std::vector<Sample> out;
    for (int i = 0; i < n; ++i)
        out.push_back({t0 + i * stepNs, rate});
    return out;
}

} // namespace

class TestPeakWindow : public QObject {
    Q_OBJECT
  private slots:
    void aSpikeIsAveragedOverOneSecond() {
        auto s = steady(1e9, 101, 100 * kMs); // 10 s at 1 GB/s, a sample every 100 ms
        s[50].value = 2e9;                    // one 100 ms interval at 2 GB/s
        const auto peak = PeakWindow::highestMean({s});
        QVERIFY(peak);
        QVERIFY2(std::abs(*peak - 1.1e9) < 1, qPrintable(QString::number(*peak)));
    }

    // The same traffic sampled at 100 ms or 1 s gives the same peak: it does not depend on
    // the sampling or the run's length.
    void independentOfSamplingAndLength() {
        std::vector<Sample> fine, coarse;
        for (int i = 0; i <= 600; ++i) // 60 s; 3 GB/s during seconds 20-22, else 1 GB/s
            fine.push_back({i * 100 * kMs, i > 200 && i <= 220 ? 3e9 : 1e9});
        for (int i = 0; i <= 60; ++i)
            coarse.push_back({i * 1000 * kMs, i > 20 && i <= 22 ? 3e9 : 1e9});
        QCOMPARE(*PeakWindow::highestMean({fine}), 3e9);
        QCOMPARE(*PeakWindow::highestMean({coarse}), 3e9);
        fine.resize(251); // a shorter run holding the same burst
        QCOMPARE(*PeakWindow::highestMean({fine}), 3e9);
    }

    void seriesAddUpWhereTheyOverlap() {
        const auto a = steady(1e9, 21, 100 * kMs);
        const auto b = steady(2e9, 21, 100 * kMs, 50 * kMs); // offset by half a step
        QVERIFY(std::abs(*PeakWindow::highestMean({a, b}) - 3e9) < 1);
    }

    void shortSpansAndNothing() {
        const auto half = steady(4e9, 6, 100 * kMs); // 0.5 s
        QCOMPARE(*PeakWindow::highestMean({half}), 4e9);
        QVERIFY(!PeakWindow::highestMean({}));
        QVERIFY(!PeakWindow::highestMean({{{5, 1e9}}})); // one sample: no interval
        // A run shorter than one sampling interval: its one sample covers it from its start.
        const auto one = PeakWindow::highestMean({{{80 * kMs, 2e9}}}, 1000 * kMs, 0);
        QVERIFY(one);
        QCOMPARE(*one, 2e9);
    }
};

QTEST_GUILESS_MAIN(TestPeakWindow)
#include "tst_peakwindow.moc"
