#include "ui/feeds/ProcessIoPanel.h"

#include "ui/feeds/ProcessIoTableModel.h"

#include <QHeaderView>
#include <QLabel>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace tierscope {

ProcessIoPanel::ProcessIoPanel(ProcessIoTableModel* model, QWidget* parent)
    : QWidget(parent), m_model(model) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    m_stack = new QStackedWidget(this);
    m_table = new QTableView(m_stack);
    m_table->setObjectName("processIoTable");
    m_table->setModel(model);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setFocusPolicy(Qt::NoFocus);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->verticalHeader()->hide();
    // Compact rows: ten processes fit without scrolling in a short dock.
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    auto* header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    // The name takes what is left, and is elided rather than widening the dock.
    header->setSectionResizeMode(ProcessIoTableModel::Name, QHeaderView::Stretch);
    header->setHighlightSections(false);
    m_table->setTextElideMode(Qt::ElideRight);
    m_message = new QLabel(m_stack);
    m_message->setObjectName("processIoMessage");
    m_message->setWordWrap(true);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setForegroundRole(QPalette::PlaceholderText);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_stack->addWidget(m_message);
    m_stack->addWidget(m_table);
    layout->addWidget(m_stack, 1);
    m_footnote = new QLabel(this);
    m_footnote->setObjectName("processIoFootnote");
    m_footnote->setWordWrap(true);
    m_footnote->setForegroundRole(QPalette::PlaceholderText);
    m_footnote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_footnote);
    connect(model, &QAbstractItemModel::modelReset, this, &ProcessIoPanel::refresh);
    refresh();
}

QSize ProcessIoPanel::sizeHint() const {
    // Wide enough for "4194304  python3  1.2 GB/s  830.0 MB/s  100 %" without eliding.
    const QFontMetrics fm(font());
    return {fm.horizontalAdvance(QLatin1Char('0')) * 52, fm.height() * 16};
}

void ProcessIoPanel::refresh() {
    const QString message = m_model->message();
    m_message->setText(message);
    m_stack->setCurrentWidget(message.isEmpty() ? static_cast<QWidget*>(m_table) : m_message);
    m_footnote->setText(m_model->footnote());
    m_footnote->setVisible(!m_footnote->text().isEmpty());
}

} // namespace tierscope
