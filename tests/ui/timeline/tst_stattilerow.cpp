// The stat tile row: the value now in display units (or "-" and the reason), and the
// sparkline drawn from the tile's bins with gaps left open.
#include "ui/timeline/StatTileRow.h"

#include <QtTest>

using namespace tierscope;

namespace {

StatTiles::Tile ttft() {
    StatTiles::Tile t{"ttft", "TTFT p50 / p99", ChartCatalog::Unit::Seconds};
    t.value = 0.35;
    t.second = 1.4;
    t.secondLabel = "p99";
    for (int i = 0; i < 30; ++i) // every other bin empty: samples sparser than the bins
        t.sparkline.push_back(i % 2 ? std::nullopt : std::optional<double>(0.2 + 0.01 * i));
    return t;
}

StatTiles::Tile absentGpu() {
    StatTiles::Tile t{"gpu", "GPU busy", ChartCatalog::Unit::Percent};
    t.absentReason = "No AMD GPU: rocm-smi could not initialise";
    return t;
}

int highlightPixels(const QImage& image, const QRect& r, QColor color) {
    int n = 0;
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x) {
            const QColor c = image.pixelColor(x, y);
            n += std::abs(c.red() - color.red()) + std::abs(c.green() - color.green()) +
                     std::abs(c.blue() - color.blue()) <
                 40;
        }
    return n;
}

} // namespace

class StatTileRowTest : public QObject {
    Q_OBJECT

  private slots:
    void showsValuesInDisplayUnitsOrTheReason() {
        StatTileRow row;
        StatTiles::Tile tokens{"tokens", "Output tokens/s", ChartCatalog::Unit::TokensPerSecond};
        tokens.value = 1520;
        StatTiles::Tile read{"storage", "Storage read", ChartCatalog::Unit::BytesPerSecond};
        read.value = 2.5e9;
        read.detail = "NVMe/RDMA, 2 devices";
        StatTiles::Tile kv{"kv", "KV-cache usage", ChartCatalog::Unit::Ratio};
        kv.value = 0.62;
        row.setTiles({ttft(), tokens, absentGpu(), read, kv});
        QCOMPARE(row.valueText("ttft"), QString("350 ms"));
        QCOMPARE(row.detailText("ttft"), QString("p99 1.40 s"));
        QCOMPARE(row.valueText("tokens"), QString("1.52 k tok/s"));
        QCOMPARE(row.valueText("storage"), QString("2.50 GB/s"));
        QCOMPARE(row.detailText("storage"), QString("NVMe/RDMA, 2 devices"));
        QCOMPARE(row.valueText("kv"), QString("62.0%"));
        QCOMPARE(row.valueText("gpu"), QString("-")); // absent, not 0 %
        QCOMPARE(row.detailText("gpu"), QString("No AMD GPU: rocm-smi could not initialise"));
    }

    // The tile with bins draws a line in the highlight colour; the absent one draws none.
    void drawsTheSparklineOnlyWhereThereIsData() {
        StatTileRow row;
        row.setTiles({ttft(), absentGpu()});
        row.resize(600, row.sizeHint().height());
        row.show();
        QVERIFY(QTest::qWaitForWindowExposed(&row));
        const QImage image = row.grab().toImage();
        const QColor line = row.palette().color(QPalette::Highlight);
        const QRect first = row.tileRect(0), second = row.tileRect(1);
        QVERIFY(first.width() > 200 && second.left() > first.right());
        QVERIFY2(highlightPixels(image, first, line) > first.width() / 2,
                 qPrintable(QString::number(highlightPixels(image, first, line))));
        QCOMPARE(highlightPixels(image, second, line), 0);
    }
};

QTEST_MAIN(StatTileRowTest)
#include "tst_stattilerow.moc"
