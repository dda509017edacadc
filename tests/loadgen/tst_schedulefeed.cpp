#include "TestSupport.h"
#include "loadgen/ScheduleFeed.h"

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace tierscope;

namespace {

// Requests 1 ms apart, `count` of them; throws at `failAt` (0: never) as a trace that cannot
// be read further would.
class CountingSchedule : public RequestSchedule {
  public:
    CountingSchedule(int count, int failAt = 0) : m_count(count), m_failAt(failAt) {}
    std::optional<Request> next() override {
        const int n = ++m_calls;
        if (m_failAt > 0 && n == m_failAt)
            throw std::runtime_error("cannot read trace t.jsonl: Input/output error");
        if (n > m_count)
            return std::nullopt;
        return Request{std::chrono::milliseconds(n), {"", {"q" + std::to_string(n)}, {1}}};
    }
    int calls() const { return m_calls; }

  private:
    int m_count, m_failAt;
    std::atomic<int> m_calls{0};
};

std::string body(const std::shared_ptr<const Conversation>& c) {
    return "{\"prompt\":\"" + c->questions.at(0) + "\"}";
}

} // namespace

// The schedule read on a thread of its own: a bounded number ahead, in order, and what it threw
// handed over after the requests before it.
class TestScheduleFeed : public QObject {
    Q_OBJECT
  private slots:
    void readsABoundedNumberAhead() {
        CountingSchedule schedule(1000);
        ScheduleFeed feed(schedule, body, 8, 1 << 20);
        feed.waitFilled();
        // Filled: eight ready, and the thread waits instead of reading on.
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        QCOMPARE(schedule.calls(), 8);
        int taken = 0;
        for (;;) {
            const auto due = feed.nextOffset();
            if (!due) {
                if (feed.ended())
                    break;
                std::this_thread::yield();
                continue;
            }
            ++taken;
            QCOMPARE(*due, std::chrono::nanoseconds(std::chrono::milliseconds(taken)));
            const auto ready = feed.pop();
            QCOMPARE(ready.body, "{\"prompt\":\"q" + std::to_string(taken) + "\"}");
            QCOMPARE(ready.conversation->questions.at(0), "q" + std::to_string(taken));
            QVERIFY(schedule.calls() <= taken + 8 + 1);
        }
        QCOMPARE(taken, 1000);
    }

    void aBoundInBytesToo() {
        CountingSchedule schedule(1000);
        ScheduleFeed feed(schedule, body, 1000, 40); // about two bodies
        feed.waitFilled();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        QVERIFY2(schedule.calls() <= 3, qPrintable(QString::number(schedule.calls())));
    }

    void whatTheScheduleThrewComesAfterTheRequestsBeforeIt() {
        CountingSchedule schedule(1000, 4);
        ScheduleFeed feed(schedule, body, 16, 1 << 20);
        feed.waitFilled();
        for (int i = 1; i <= 3; ++i) {
            QVERIFY(feed.nextOffset());
            feed.pop();
        }
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, feed.nextOffset());
        QVERIFY(feed.ended());
    }

    // One lane per event loop: the requests dealt round robin, each lane in order, and every
    // request taken once.
    void lanesAreDealtRoundRobin() {
        CountingSchedule schedule(9);
        ScheduleFeed feed(schedule, body, 4, 1 << 20, 2);
        feed.waitFilled();
        std::vector<int> taken[2];
        while (!(feed.ended(0) && feed.ended(1))) {
            bool any = false;
            for (std::size_t lane = 0; lane < 2; ++lane)
                if (const auto due = feed.nextOffset(lane)) {
                    any = true;
                    const auto ready = feed.pop(lane);
                    QCOMPARE(ready.offset, *due);
                    const int ms = static_cast<int>(
                        std::chrono::duration_cast<std::chrono::milliseconds>(*due).count());
                    QCOMPARE(ready.sequence, static_cast<std::size_t>(ms - 1)); // its schedule row
                    taken[lane].push_back(ms);
                }
            if (!any)
                std::this_thread::yield();
        }
        QCOMPARE(taken[0], std::vector<int>({1, 3, 5, 7, 9}));
        QCOMPARE(taken[1], std::vector<int>({2, 4, 6, 8}));
    }

    void anUnfinishedFeedStopsWithItsOwner() {
        CountingSchedule schedule(1'000'000);
        {
            ScheduleFeed feed(schedule, body, 4, 1 << 20);
            feed.waitFilled();
        } // joins its thread, which was waiting for room
        QCOMPARE(schedule.calls(), 4);
    }
};

QTEST_GUILESS_MAIN(TestScheduleFeed)
#include "tst_schedulefeed.moc"
