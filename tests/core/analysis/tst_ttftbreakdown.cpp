#include "core/analysis/TtftBreakdown.h"

#include <QtTest>
#include <cmath>

using namespace tierscope;

namespace {

TtftBreakdown::Observed obs(double sumS, double count) {
    return {sumS, count};
}

bool has(const std::string& text, const char* part) {
    return text.find(part) != std::string::npos;
}

} // namespace

class TestTtftBreakdown : public QObject {
    Q_OBJECT
  private slots:
    // The example: 10 requests, mean TTFT 9.30 s = queue 1.20 s + prefill 8.10 s, of
    // which KV retrieve 4.80 s per request (52 % of TTFT).
    void meansAddUp() {
        TtftBreakdown b;
        b.ttft = obs(93, 10);
        b.queue = obs(12, 10);
        b.prefill = obs(81, 10);
        b.retrieve = obs(48, 8); // 8 of the 10 requests read KV
        QCOMPARE(*b.meanTtftS(), 9.3);
        QCOMPARE(*b.retrievePerRequestS(), 4.8);
        QCOMPARE(*b.storageShare(), 48.0 / 93.0);
        QVERIFY(b.absent().empty());
        QCOMPARE(b.text(), std::string("mean TTFT 9.30 s over 10 requests = queue 1.20 s + prefill "
                                       "8.10 s, of which KV retrieve 4.80 s (52 %)"));
    }

    // An engine without LMCache and without phase histograms: those parts are absent and said
    // so; no storage share (absent, not zero).
    void absentPartsAreSaid() {
        TtftBreakdown b;
        b.ttft = obs(2, 4);
        QVERIFY(!b.storageShare());
        QVERIFY(!b.otherS());
        QCOMPARE(b.text(), std::string("mean TTFT 500.0 ms over 4 requests; absent: queue time, "
                                       "prefill time, KV retrieve time"));
        QCOMPARE(TtftBreakdown().text(), std::string());
        QVERIFY(TtftBreakdown().empty());
    }

    // LMCache exposed but nothing retrieved: a real zero share. No request finished: no mean.
    void zeroIsNotAbsent() {
        TtftBreakdown b;
        b.ttft = obs(3, 3);
        b.retrieve = obs(0, 0);
        QCOMPARE(*b.storageShare(), 0.0);
        TtftBreakdown idle;
        idle.ttft = obs(0, 0);
        QVERIFY(!idle.meanTtftS());
        QVERIFY(!idle.storageShare());
        QVERIFY(has(idle.text(), "no request reached its first token"));
    }

    // Spans add as sums and counts, so a run's share is its time-weighted one, not the mean
    // of its windows' shares (here 0.5 s of 1.0 s and 0 of 9 s: 5 %, not 25 %).
    void spansAddAsSums() {
        TtftBreakdown a, b;
        a.ttft = obs(1, 1);
        a.retrieve = obs(0.5, 1);
        b.ttft = obs(9, 1);
        b.retrieve = obs(0, 0);
        a.add(b);
        QCOMPARE(*a.storageShare(), 0.05);
        QCOMPARE(*a.requests(), 2.0);
        TtftBreakdown none;
        none.add(TtftBreakdown());
        QVERIFY(none.empty());
    }

    // Each part's quantiles come from the spans' buckets summed by le, as Prometheus'
    // histogram_quantile(q, sum by (le) (increase(...))): one span of 10 fast requests and one
    // of 10 slow ones give p50 at the top of the fast bucket and p99 in the slow one. The mean
    // of the two spans' p50s (0.05 and 0.75) would be 0.40 s, a latency no request had.
    void quantilesOfTheSummedBuckets() {
        TtftBreakdown fast, slow;
        fast.ttft = obs(0.6, 10);
        fast.ttft->buckets = HistogramQuantile::Buckets{{0.1, 10}, {1, 10}, {INFINITY, 10}};
        slow.ttft = obs(8, 10);
        slow.ttft->buckets = HistogramQuantile::Buckets{{0.1, 0}, {1, 10}, {INFINITY, 10}};
        QCOMPARE(*fast.ttft->quantile(0.5), 0.05);
        QCOMPARE(*slow.ttft->quantile(0.5), 0.55);
        QCOMPARE(slow.quantileText(), std::string("p50 / p99: TTFT 550.0 ms / 991.0 ms"));
        // In the lowest bucket histogram_quantile interpolates from 0: the text says only what
        // the buckets know, an upper bound (the number itself stays histogram_quantile's).
        QCOMPARE(fast.quantileText(), std::string("p50 / p99: TTFT <= 100.0 ms / <= 100.0 ms"));
        fast.add(slow);
        QCOMPARE(*fast.ttft->quantile(0.5), 0.1);
        QCOMPARE(*fast.ttft->quantile(0.99), 0.1 + 0.9 * (19.8 - 10) / 10);
        QCOMPARE(fast.quantileText(), std::string("p50 / p99: TTFT <= 100.0 ms / 982.0 ms"));
    }

    // A span whose observations have no buckets (recorded before they were, or by an engine
    // with only _sum and _count) leaves the sum without quantiles: absent, never the quantile
    // of the other spans' requests alone. A span with no observations changes nothing.
    void quantilesNeedEveryObservationsBucket() {
        TtftBreakdown withBuckets, without, empty;
        withBuckets.queue = obs(1, 10);
        withBuckets.queue->buckets = HistogramQuantile::Buckets{{0.5, 10}, {INFINITY, 10}};
        without.queue = obs(2, 5);
        empty.queue = obs(0, 0);
        TtftBreakdown a = withBuckets;
        a.add(empty);
        QVERIFY(a.queue->quantile(0.5));
        a.add(without);
        QVERIFY(!a.queue->quantile(0.5));
        QCOMPARE(a.quantileText(), std::string());
        TtftBreakdown b = empty;
        b.add(withBuckets);
        QCOMPARE(*b.queue->quantile(0.5), 0.25);
        // Buckets that do not hold every counted observation are not the span's histogram.
        TtftBreakdown c;
        c.queue = obs(1, 12);
        c.queue->buckets = HistogramQuantile::Buckets{{0.5, 10}, {INFINITY, 10}};
        QVERIFY(!c.queue->quantile(0.5));
        // No observations: no quantile, not zero.
        QVERIFY(!empty.queue->quantile(0.5));
    }
};

QTEST_GUILESS_MAIN(TestTtftBreakdown)
#include "tst_ttftbreakdown.moc"
