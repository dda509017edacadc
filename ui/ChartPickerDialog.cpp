#include "ui/ChartPickerDialog.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <map>

namespace tierscope {

namespace {

constexpr int kIdRole = Qt::UserRole;
constexpr int kCustomRole = Qt::UserRole + 1; // index into the layout's custom charts, or -1
constexpr int kMetricRole = Qt::UserRole + 2; // index into m_all

} // namespace

ChartPickerDialog::ChartPickerDialog(const std::vector<ChartCatalog::Chart>& charts,
                                     const std::vector<MetricInfo>& metrics, ChartLayout layout,
                                     QWidget* parent)
    : QDialog(parent), m_layout(std::move(layout)), m_all(metrics) {
    setWindowTitle(tr("Charts"));
    auto* columns = new QHBoxLayout;

    auto* left = new QVBoxLayout;
    left->addWidget(new QLabel(tr("Charts shown (untick to hide):"), this));
    m_charts = new QListWidget(this);
    left->addWidget(m_charts, 1);
    columns->addLayout(left, 1);

    auto* right = new QVBoxLayout;
    right->addWidget(new QLabel(tr("Recorded metrics: tick some and add them as a chart"), this));
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter, e.g. iops, await, nvme0n1"));
    m_filter->setClearButtonEnabled(true);
    right->addWidget(m_filter);
    m_metrics = new QTreeWidget(this);
    m_metrics->setHeaderLabels({tr("metric"), tr("unit")});
    right->addWidget(m_metrics, 1);
    auto* add = new QHBoxLayout;
    m_title = new QLineEdit(tr("My chart"), this);
    add->addWidget(new QLabel(tr("Title:"), this));
    add->addWidget(m_title, 1);
    auto* addButton = new QPushButton(tr("Add chart"), this);
    add->addWidget(addButton);
    right->addLayout(add);
    columns->addLayout(right, 2);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    auto* all = new QVBoxLayout(this);
    all->addLayout(columns, 1);
    all->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(addButton, &QPushButton::clicked, this, &ChartPickerDialog::addPicked);
    connect(m_filter, &QLineEdit::textChanged, this, &ChartPickerDialog::filter);

    for (const auto& c : charts) {
        const auto custom = ChartLayout::customIndex(c.id);
        addChartItem(QString::fromStdString(c.id), QString::fromStdString(c.title), true,
                     custom ? static_cast<int>(*custom) : -1);
    }
    for (const auto& id : m_layout.hidden) // hidden now: listed, unticked, to bring back
        addChartItem(QString::fromStdString(id), QString::fromStdString(id), false, -1);

    std::map<std::string, QTreeWidgetItem*> groups; // by the path's first part: gpu, block, ...
    for (std::size_t i = 0; i < m_all.size(); ++i) {
        const auto& d = m_all[i].descriptor;
        const std::string group = d.path.substr(0, d.path.find('/'));
        auto*& parentItem = groups[group];
        if (!parentItem) {
            parentItem = new QTreeWidgetItem(m_metrics, {QString::fromStdString(group)});
            parentItem->setFlags(Qt::ItemIsEnabled);
        }
        auto* item = new QTreeWidgetItem(
            parentItem, {QString::fromStdString(d.path), QString::fromStdString(d.unit)});
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(0, Qt::Unchecked);
        item->setData(0, kMetricRole, static_cast<int>(i));
    }
    m_charts->setMinimumWidth(m_charts->sizeHintForColumn(0) + 40); // every id readable
    m_metrics->sortItems(0, Qt::AscendingOrder);
    m_metrics->expandAll();
    m_metrics->resizeColumnToContents(0);
    resize(900, 560);
}

void ChartPickerDialog::addChartItem(const QString& id, const QString& title, bool shown,
                                     int custom) {
    auto* item = new QListWidgetItem(title == id ? id : QString("%1  (%2)").arg(title, id));
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    item->setCheckState(shown ? Qt::Checked : Qt::Unchecked);
    item->setData(kIdRole, id);
    item->setData(kCustomRole, custom);
    m_charts->addItem(item);
}

void ChartPickerDialog::filter(const QString& text) {
    for (int g = 0; g < m_metrics->topLevelItemCount(); ++g) {
        auto* group = m_metrics->topLevelItem(g);
        int shown = 0;
        for (int i = 0; i < group->childCount(); ++i) {
            auto* item = group->child(i);
            const bool match = item->text(0).contains(text, Qt::CaseInsensitive);
            item->setHidden(!match);
            shown += match;
        }
        group->setHidden(shown == 0);
    }
}

void ChartPickerDialog::addPicked() {
    std::vector<MetricInfo> picked;
    for (int g = 0; g < m_metrics->topLevelItemCount(); ++g) {
        auto* group = m_metrics->topLevelItem(g);
        for (int i = 0; i < group->childCount(); ++i) {
            auto* item = group->child(i);
            if (item->checkState(0) != Qt::Checked)
                continue;
            picked.push_back(m_all[static_cast<std::size_t>(item->data(0, kMetricRole).toInt())]);
            item->setCheckState(0, Qt::Unchecked);
        }
    }
    const QString title = m_title->text().trimmed().isEmpty() ? tr("My chart") : m_title->text();
    for (auto& chart : ChartLayout::chartsFor(title.trimmed().toStdString(), picked)) {
        m_layout.custom.push_back(chart);
        const auto index = static_cast<int>(m_layout.custom.size()) - 1;
        addChartItem(QString::fromStdString(ChartLayout::customId(static_cast<std::size_t>(index))),
                     QString::fromStdString(chart.title), true, index);
    }
}

ChartLayout ChartPickerDialog::layout() const {
    ChartLayout out = m_layout;
    out.hidden.clear();
    out.custom.clear();
    for (int row = 0; row < m_charts->count(); ++row) {
        const auto* item = m_charts->item(row);
        const bool shown = item->checkState() == Qt::Checked;
        const int custom = item->data(kCustomRole).toInt();
        if (custom >= 0) { // an unticked custom chart is removed, not hidden
            if (shown)
                out.custom.push_back(m_layout.custom[static_cast<std::size_t>(custom)]);
        } else if (!shown) {
            out.hidden.insert(item->data(kIdRole).toString().toStdString());
        }
    }
    return out;
}

} // namespace tierscope
