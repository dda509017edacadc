#include "core/compare/SequentialLook.h"
#include "ui/experiment/GateLookTable.h"

#include <QtTest>

using namespace tierscope;

// The experiment dialog's gate looks: each look adds a row per gate with its verdict, its
// change and interval, and what it still needs, from the JSON the runner's look writes.
class TestGateLookTable : public QObject {
    Q_OBJECT
  private:
    static SequentialLook look(Gate::Verdict verdict, double lo, double hi, int have,
                               std::optional<int> needed) {
        SequentialLook l;
        SequentialLook::GateState g;
        g.comparison = "b vs a";
        g.gate = "ttft_p50 <= -25%";
        g.verdict = verdict;
        g.reason = "change -30.0 %";
        g.change = (lo + hi) / 2;
        g.lo = lo;
        g.hi = hi;
        g.runsPerArm = static_cast<std::size_t>(have);
        g.neededPerArm = needed;
        l.gates = {g};
        return l;
    }

  private slots:
    void eachLookAddsItsGatesAndTheIntervalNarrows() {
        GateLookTable table;
        QVERIFY(table.isHidden());
        table.addLook(2, QString::fromStdString(
                             look(Gate::Verdict::Inconclusive, -0.6, 0.1, 2, 9).toJsonText()));
        table.addLook(4, QString::fromStdString(
                             look(Gate::Verdict::Pass, -0.45, -0.3, 4, std::nullopt).toJsonText()));
        QVERIFY(!table.isHidden());
        QCOMPARE(table.rowCount(), 2);
        QCOMPARE(table.item(0, GateLookTable::After)->text(), QString("2 repetitions"));
        QCOMPARE(table.item(0, GateLookTable::Verdict)->text(), QString("undecided"));
        QCOMPARE(table.item(0, GateLookTable::Change)->text(),
                 QString("-25.0 % [-60.0 %, +10.0 %]"));
        QCOMPARE(table.item(0, GateLookTable::Needed)->text(), QString("about 9 (7 more)"));
        QCOMPARE(table.item(1, GateLookTable::Verdict)->text(), QString("pass"));
        QCOMPARE(table.item(1, GateLookTable::Change)->text(),
                 QString("-37.5 % [-45.0 %, -30.0 %]"));
        QCOMPARE(table.item(1, GateLookTable::Needed)->text(), QString("decided at 4"));
        QCOMPARE(table.item(1, GateLookTable::Gate)->toolTip(), QString("change -30.0 %"));
    }

    void anUnknownNeedAndHostileJsonAreShownOrIgnored() {
        GateLookTable table;
        table.addLook(
            2, QString::fromStdString(
                   look(Gate::Verdict::Inconclusive, -0.6, 0.1, 2, std::nullopt).toJsonText()));
        QCOMPARE(table.item(0, GateLookTable::Needed)->text(), QString("cannot say yet"));
        for (const char* hostile : {"", "not json", "[]", "{\"gates\": 3}", "{\"gates\": [7]}"})
            table.addLook(4, hostile);
        QCOMPARE(table.rowCount(), 1);
    }
};

QTEST_MAIN(TestGateLookTable)
#include "tst_gatelooktable.moc"
