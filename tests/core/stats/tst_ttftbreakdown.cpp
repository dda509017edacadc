#include "core/stats/TtftBreakdown.h"

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
    // which KV retrieve 4.80 s per request (52 % of TTFT): the storage wait is taken out of the
    // prefill it lies in, and the residual is shown even where it is zero.
    void meansAddUp() {
        TtftBreakdown b;
        b.ttft = obs(93, 10);
        b.queue = obs(12, 10);
        b.prefill = obs(81, 10);
        b.retrieve = obs(48, 8); // 8 of the 10 requests read KV
        QCOMPARE(*b.meanTtftS(), 9.3);
        QCOMPARE(*b.retrievePerRequestS(), 4.8);
        QCOMPARE(*b.storageShare(), 48.0 / 93.0);
        QCOMPARE(*b.storageWaitS(), 4.8);
        QVERIFY(std::fabs(*b.prefillComputeS() - 3.3) < 1e-12);
        QCOMPARE(*b.residualS(), 0.0);
        QVERIFY(b.absent().empty());
        QCOMPARE(b.text(),
                 std::string("mean TTFT 9.30 s over 10 requests = queue 1.20 s + storage wait "
                             "4.80 s (52 %) + prefill compute 3.30 s + residual 0.0 ms; storage "
                             "wait: KV retrieve 4.80 s (in prefill)"));
    }

    // An engine without LMCache and without phase histograms: those parts are absent and said
    // so; no storage share (absent, not zero).
    void absentPartsAreSaid() {
        TtftBreakdown b;
        b.ttft = obs(2, 4);
        QVERIFY(!b.storageShare());
        QVERIFY(!b.otherS());
        QVERIFY(!b.residualS()); // nothing to explain the TTFT by: no residual either
        QCOMPARE(b.text(), std::string("mean TTFT 500.0 ms over 4 requests; absent: queue time, "
                                       "prefill time, storage wait"));
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

    // vLLM's OffloadingConnector defers a request while its lookup runs: that wait is queue
    // time, so it comes out of the queue, and LMCache's retrieve out of the prefill. 4
    // requests: TTFT 2.0 s = queue 0.6 s (0.25 s of it lookup wait) + prefill 1.2 s (0.5 s of
    // it retrieve) + 0.2 s the engine does not expose.
    void storageWaitsComeOutOfTheirPhases() {
        TtftBreakdown b;
        b.ttft = obs(8, 4);
        b.queue = obs(2.4, 4);
        b.prefill = obs(4.8, 4);
        b.lookupWait = obs(1.0, 2); // two requests waited 0.5 s each: 0.25 s per request
        b.retrieve = obs(2.0, 4);
        QCOMPARE(*b.storageWaitS(), 0.75);
        QCOMPARE(*b.storageShare(), 3.0 / 8.0);
        QVERIFY(std::fabs(*b.queueLessStorageS() - 0.35) < 1e-12);
        QVERIFY(std::fabs(*b.prefillComputeS() - 0.7) < 1e-12);
        QVERIFY(std::fabs(*b.residualS() - 0.2) < 1e-12);
        QCOMPARE(b.text(), std::string("mean TTFT 2.00 s over 4 requests = queue 350.0 ms + "
                                       "storage wait 750.0 ms (38 %) + prefill compute 700.0 ms "
                                       "+ residual 200.0 ms; storage wait: KV lookup wait 250.0 "
                                       "ms (in queue) + KV retrieve 500.0 ms (in prefill)"));
    }

    // SGLang has no prefill histogram: its load back is a part of its own, and what is left of
    // TTFT after queue and load back is the residual, never called prefill.
    void withoutAPhaseTheRestIsResidual() {
        TtftBreakdown b;
        b.ttft = obs(2.4, 8);       // 0.3 s each
        b.queue = obs(0.8, 8);      // 0.1 s
        b.loadBack = obs(0.016, 4); // 4 loads of 4 ms: 2 ms per request
        QVERIFY(!b.prefillComputeS());
        QVERIFY(std::fabs(*b.residualS() - 0.198) < 1e-12);
        QVERIFY(has(b.text(), "= queue 100.0 ms + storage wait 2.0 ms (1 %) + residual 198.0 ms; "
                              "storage wait: KV load back 2.0 ms; absent: prefill time"));
    }

    // A storage wait longer than the phase it should lie in is measured elsewhere by the
    // engine: it is not taken out of that phase, and the residual goes negative to show the
    // overlap rather than hide it in a part.
    void anOverlapShowsInTheResidual() {
        TtftBreakdown b;
        b.ttft = obs(1, 1);
        b.queue = obs(0.1, 1);
        b.prefill = obs(0.7, 1);
        b.retrieve = obs(0.9, 1); // longer than the prefill
        QCOMPARE(*b.prefillComputeS(), 0.7);
        QVERIFY(std::fabs(*b.residualS() - (1 - 0.1 - 0.9 - 0.7)) < 1e-12);
        QCOMPARE(b.text(), std::string("mean TTFT 1.00 s over 1 requests = queue 100.0 ms + "
                                       "storage wait 900.0 ms (90 %) + prefill compute 700.0 ms "
                                       "+ residual -700.0 ms; storage wait: KV retrieve 900.0 ms"));
    }

    // Whatever the engine exposes, the shown parts and the residual add up to the mean TTFT:
    // 500 random breakdowns with every combination of parts present or absent.
    void partsAndResidualAddUpToTheMean() {
        std::uint64_t state = 42;
        auto next = [&state]() {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            return static_cast<double>(state >> 11) / 9007199254740992.0;
        };
        for (int i = 0; i < 500; ++i) {
            TtftBreakdown b;
            const double n = 1 + std::floor(next() * 50);
            b.ttft = obs(n * (0.5 + next() * 5), n);
            for (const auto& part : TtftBreakdown::parts()) {
                if (part.member == &TtftBreakdown::ttft || next() < 0.4)
                    continue;
                b.*part.member = obs(n * next() * 2, n);
            }
            const auto r = b.residualS();
            if (!b.queue && !b.prefill && !b.hasStorage()) {
                QVERIFY(!r);
                continue;
            }
            const double sum = b.queueLessStorageS().value_or(0) + b.storageWaitS().value_or(0) +
                               b.prefillComputeS().value_or(0) + *r;
            QVERIFY2(std::fabs(sum - *b.meanTtftS()) < 1e-9, b.text().c_str());
            QVERIFY(b.queueLessStorageS().value_or(0) >= 0);
            QVERIFY(b.prefillComputeS().value_or(0) >= 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestTtftBreakdown)
#include "tst_ttftbreakdown.moc"
