#include "ui/experiment/GateLookTable.h"

#include "core/compare/KpiComparison.h"
#include "ui/timeline/StatusColor.h"

#include <QHeaderView>
#include <nlohmann/json.hpp>

namespace tierscope {

GateLookTable::GateLookTable(QWidget* parent) : QTableWidget(0, 5, parent) {
    setObjectName("gateLooks");
    setHorizontalHeaderLabels({tr("after"), tr("gate"), tr("verdict"), tr("change [interval]"),
                               tr("runs per arm to decide")});
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(true);
    verticalHeader()->hide();
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setToolTip(tr("Each look judges every gate on the runs so far at the design's per-look "
                  "level; the experiment stops once each gate passes or fails"));
    hide();
}

void GateLookTable::addLook(int repetitions, const QString& lookJson) {
    const auto look = nlohmann::json::parse(lookJson.toStdString(), nullptr, false);
    if (!look.is_object() || !look.contains("gates") || !look["gates"].is_array())
        return;
    for (const auto& g : look["gates"]) {
        if (!g.is_object())
            continue;
        auto field = [&g](const char* name) {
            const auto it = g.find(name);
            return it != g.end() && it->is_string() ? it->get<std::string>() : std::string();
        };
        const int row = rowCount();
        insertRow(row);
        auto text = [&](int column, const QString& value) {
            auto* item = new QTableWidgetItem(value);
            item->setToolTip(QString::fromStdString(field("reason")));
            setItem(row, column, item);
            return item;
        };
        text(After, tr("%1 repetitions").arg(repetitions));
        text(Gate, QString::fromStdString(field("gate")));
        const std::string verdict = field("verdict");
        auto* badge = text(Verdict, QString::fromStdString(verdict));
        badge->setBackground(StatusColor::fill(verdict == "pass"   ? StatusColor::Kind::Good
                                               : verdict == "fail" ? StatusColor::Kind::Bad
                                                                   : StatusColor::Kind::Caution));
        QString change = tr("n/a");
        if (g.contains("change") && g["change"].is_number()) {
            change = QString::fromStdString(KpiComparison::percent(g["change"].get<double>()));
            const auto& ci = g.contains("ci_change") ? g["ci_change"] : nlohmann::json();
            if (ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number())
                change +=
                    QString(" [%1, %2]")
                        .arg(QString::fromStdString(KpiComparison::percent(ci[0].get<double>())),
                             QString::fromStdString(KpiComparison::percent(ci[1].get<double>())));
        }
        text(Change, change);
        const int have = g.contains("runs_per_arm") && g["runs_per_arm"].is_number_integer()
                             ? g["runs_per_arm"].get<int>()
                             : 0;
        const bool known =
            g.contains("needed_runs_per_arm") && g["needed_runs_per_arm"].is_number_integer();
        text(Needed, verdict != "undecided" ? tr("decided at %1").arg(have)
                     : known                ? tr("about %1 (%2 more)")
                                   .arg(g["needed_runs_per_arm"].get<int>())
                                   .arg(g["needed_runs_per_arm"].get<int>() - have)
                             : tr("cannot say yet"));
    }
    show();
    scrollToBottom();
}

} // namespace tierscope
