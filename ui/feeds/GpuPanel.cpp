#include "ui/feeds/GpuPanel.h"

#include "ui/feeds/GpuDeviceTableModel.h"
#include "ui/feeds/GpuProcessTableModel.h"

#include <QHeaderView>
#include <QLabel>
#include <QStackedWidget>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>

namespace tierscope {

namespace {

QLabel* makeLabel(QWidget* parent, const char* name) {
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

} // namespace

GpuPanel::GpuPanel(QWidget* parent) : QWidget(parent) {
    m_devices = new GpuDeviceTableModel(this);
    m_processes = new GpuProcessTableModel(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    m_stack = new QStackedWidget(this);
    m_tables = new QWidget(m_stack);
    auto* tables = new QVBoxLayout(m_tables);
    tables->setContentsMargins(0, 0, 0, 0);
    tables->setSpacing(4);
    m_deviceTable = makeTable(m_devices, "gpuDeviceTable", GpuDeviceTableModel::Model);
    m_processTable = makeTable(m_processes, "gpuProcessTable", GpuProcessTableModel::Name);
    // As many device rows as there are GPUs, up to eight, without a scroll bar.
    m_deviceTable->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    tables->addWidget(m_deviceTable);
    m_processMessage = makeLabel(m_tables, "gpuProcessMessage");
    m_processMessage->setAlignment(Qt::AlignCenter);
    tables->addWidget(m_processMessage);
    tables->addWidget(m_processTable, 1);
    m_message = makeLabel(m_stack, "gpuMessage");
    m_message->setAlignment(Qt::AlignCenter);
    m_stack->addWidget(m_message);
    m_stack->addWidget(m_tables);
    layout->addWidget(m_stack, 1);
    m_footnote = makeLabel(this, "gpuFootnote");
    layout->addWidget(m_footnote);
    refresh();
}

QTableView* GpuPanel::makeTable(QAbstractItemModel* model, const char* name, int stretchColumn) {
    auto* table = new QTableView(m_tables);
    table->setObjectName(name);
    table->setModel(model);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setFocusPolicy(Qt::NoFocus);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    auto* header = table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(stretchColumn, QHeaderView::Stretch);
    header->setHighlightSections(false);
    table->setTextElideMode(Qt::ElideRight);
    return table;
}

void GpuPanel::setSnapshot(const GpuProcessSnapshot& snapshot) {
    m_devices->setGpus(snapshot.gpus);
    m_processes->setSnapshot(snapshot);
    refresh();
}

void GpuPanel::setFigures(const std::vector<GpuFigures>& figures) {
    m_devices->setFigures(figures);
    refresh();
}

void GpuPanel::setInactive() {
    m_devices->clear();
    m_processes->setInactive();
    refresh();
}

bool GpuPanel::showsTables() const {
    return m_stack->currentWidget() == m_tables;
}

QSize GpuPanel::sizeHint() const {
    // As wide as "Top I/O processes" above it, so the docks' column does not grow: a wider
    // GPU row scrolls. Tall enough for two GPUs and a few processes.
    const QFontMetrics fm(font());
    return {fm.horizontalAdvance(QLatin1Char('0')) * 52, fm.height() * 14};
}

void GpuPanel::refresh() {
    // With no GPU row at all, the reason is the whole panel; with GPUs, the process table's
    // own reason (none running, none listable) sits in its place under the GPU rows.
    const bool noGpu = m_devices->rowCount() == 0;
    const QString message = m_processes->message();
    m_message->setText(message);
    m_stack->setCurrentWidget(noGpu ? m_message : m_tables);
    m_processMessage->setText(message);
    m_processMessage->setVisible(!noGpu && !message.isEmpty());
    m_processTable->setVisible(message.isEmpty());
    // Every GPU's row stays in view in a short dock: the rows are what the panel is for. The
    // docks' column is narrower than a GPU row, so room is kept for the horizontal scroll bar
    // too (without it, that bar covered the second GPU).
    const int rows = std::min(m_devices->rowCount(), 8);
    const int rowsHeight =
        m_deviceTable->horizontalHeader()->sizeHint().height() +
        m_deviceTable->verticalHeader()->defaultSectionSize() * std::max(rows, 1) +
        2 * m_deviceTable->frameWidth() +
        m_deviceTable->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, m_deviceTable);
    m_deviceTable->setMinimumHeight(rowsHeight);
    m_deviceTable->setMaximumHeight(rowsHeight);
    // And three processes at least: the busiest first.
    m_processTable->setMinimumHeight(m_processTable->horizontalHeader()->sizeHint().height() +
                                     m_processTable->verticalHeader()->defaultSectionSize() * 3 +
                                     2 * m_processTable->frameWidth());
    m_footnote->setText(m_processes->footnote());
    m_footnote->setVisible(!m_footnote->text().isEmpty());
}

} // namespace tierscope
