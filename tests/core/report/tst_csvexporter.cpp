#include "core/report/CsvExporter.h"

#include <QtTest>

using namespace tierscope;

class TestCsvExporter : public QObject {
    Q_OBJECT
  private slots:
    // OWASP, "CSV Injection": prefix such cells with a single quote.
    void cellsThatASpreadsheetWouldRunAreText() {
        QCOMPARE(CsvExporter::quote("=HYPERLINK(\"http://x\")"),
                 std::string("\"'=HYPERLINK(\"\"http://x\"\")\""));
        QCOMPARE(CsvExporter::quote("+cmd|' /C calc'!A0"), std::string("'+cmd|' /C calc'!A0"));
        QCOMPARE(CsvExporter::quote("-2+3+cmd"), std::string("'-2+3+cmd"));
        QCOMPARE(CsvExporter::quote("@SUM(1)"), std::string("'@SUM(1)"));
        QCOMPARE(CsvExporter::quote("\t=1"), std::string("'\t=1"));
        QCOMPARE(CsvExporter::quote("\r=1"), std::string("\"'\r=1\""));
        QCOMPARE(CsvExporter::quote("-"), std::string("'-"));
        QCOMPARE(CsvExporter::quote("-e5"), std::string("'-e5"));
    }

    void numbersAndPlainTextStayAsTheyAre() {
        for (const char* same : {"-1.5", "+2", "-0.25e-3", "-.5", "3.", "1E6", "gpu/0/busy_pct",
                                 "bytes/s", "a=b", "", "x,-y"})
            QCOMPARE(CsvExporter::neutralize(same), std::string(same));
        QCOMPARE(CsvExporter::quote("x,y"), std::string("\"x,y\""));
    }
};

QTEST_GUILESS_MAIN(TestCsvExporter)
#include "tst_csvexporter.moc"
