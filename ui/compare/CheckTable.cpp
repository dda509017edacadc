#include "ui/compare/CheckTable.h"

#include "core/compare/ComparisonResult.h"
#include "ui/timeline/StatusColor.h"

#include <QHeaderView>
#include <QObject>
#include <QTableWidget>
#include <map>

namespace tierscope {

// Each check with its result and numbers, pass and warn as well as fail: a verdict is only as
// good as the evidence that the runs measured what they claim.
QTableWidget* CheckTable::build(const ComparisonResult& in, QWidget* parent, QString* title) {
    auto* table = new QTableWidget(0, 5, parent);
    table->setHorizontalHeaderLabels({QObject::tr("side"), QObject::tr("run"), QObject::tr("check"),
                                      QObject::tr("result"), QObject::tr("numbers")});
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setWordWrap(true);
    std::map<std::string, int> counts;
    for (const auto& [side, check] : in.runChecks) {
        const int row = table->rowCount();
        table->insertRow(row);
        const QStringList cells = {
            QString(QChar(side)), check.run > 0 ? QString::number(check.run) : QObject::tr("all"),
            QString::fromStdString(check.name), QString::fromStdString(check.status),
            QString::fromStdString(check.detail)};
        for (int c = 0; c < cells.size(); ++c)
            table->setItem(row, c, new QTableWidgetItem(cells[c]));
        const bool bad = check.status == "fail" || check.status == "failed";
        const bool good = check.status == "pass" || check.status == "ok";
        if (bad || good || check.status == "warn") {
            auto* result = table->item(row, 3);
            result->setForeground(Qt::white);
            result->setBackground(StatusColor::fill(bad    ? StatusColor::Kind::Bad
                                                    : good ? StatusColor::Kind::Good
                                                           : StatusColor::Kind::Caution));
        }
        ++counts[check.status];
    }
    table->resizeRowsToContents();
    QString text = QObject::tr("Checks");
    if (in.runChecks.empty()) {
        // Absent, not passed: runs of `load` or `storage run` alone carry no checks.
        table->setRowCount(1);
        auto* none = new QTableWidgetItem(
            QObject::tr("The measured runs carry no validity checks (only experiment runs do)."));
        table->setItem(0, 0, none);
        table->setSpan(0, 0, 1, 5);
        text += QObject::tr(" (none)");
    } else {
        text += QObject::tr(" (%1 fail, %2 warn, %3 pass)")
                    .arg(counts["fail"] + counts["failed"])
                    .arg(counts["warn"])
                    .arg(counts["pass"] + counts["ok"]);
    }
    if (title)
        *title = text;
    return table;
}

} // namespace tierscope
