#include "ui/timeline/SectionCompareDialog.h"

#include "core/store/Store.h"
#include "ui/timeline/RangePanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QTableWidget>
#include <QThreadPool>
#include <QVBoxLayout>
#include <cmath>
#include <exception>

namespace tierscope {

namespace {

using Figures = RangeStatistics::Figures;

std::optional<double> figure(const std::optional<Figures>& f, double Figures::*member) {
    return f ? std::optional<double>((*f).*member) : std::nullopt;
}

QTableWidgetItem* cell(const QString& text, bool number) {
    auto* item = new QTableWidgetItem(text);
    if (number)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

} // namespace

SectionCompareDialog::SectionCompareDialog(QWidget* parent) : QDialog(parent) {
    setObjectName("sectionCompare");
    setWindowTitle(tr("Compare sections"));
    auto* layout = new QVBoxLayout(this);
    m_title = new QLabel(this);
    m_title->setObjectName("sectionCompareTitle");
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_title);
    m_table = new QTableWidget(0, Columns, this);
    m_table->setObjectName("sectionCompareTable");
    m_table->setHorizontalHeaderLabels({tr("series"), tr("unit"), tr("n A"), tr("n B"),
                                        tr("mean A"), tr("mean B"), tr("change B vs A"),
                                        tr("p50 A"), tr("p50 B"), tr("p99 A"), tr("p99 B")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // A series' path can be 60 characters: cut (the whole path is its tooltip), so the figures
    // fit beside it.
    m_table->horizontalHeader()->setSectionResizeMode(Series, QHeaderView::Interactive);
    m_table->setColumnWidth(Series, 300);
    m_table->setTextElideMode(Qt::ElideMiddle);
    layout->addWidget(m_table, 1);
    m_requests = new QTableWidget(RequestRows, 3, this);
    m_requests->setObjectName("sectionCompareRequests");
    m_requests->setHorizontalHeaderLabels({tr("A"), tr("B"), tr("change B vs A")});
    m_requests->setVerticalHeaderLabels(
        {tr("requests sent"), tr("failed"), tr("TTFT p50 (s)"), tr("TTFT p99 (s)")});
    m_requests->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_requests->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_requests->setFixedHeight(m_requests->horizontalHeader()->sizeHint().height() +
                               RequestRows * m_requests->verticalHeader()->defaultSectionSize() +
                               4);
    layout->addWidget(m_requests);
    resize(1100, 480);
}

void SectionCompareDialog::setSession(const QString& db, qint64 sessionId,
                                      std::int64_t sessionStartNs) {
    m_db = db;
    m_session = sessionId;
    m_sessionStart = sessionStartNs;
}

std::optional<double> SectionCompareDialog::change(std::optional<double> a,
                                                   std::optional<double> b) {
    if (!a || !b || *a == 0)
        return std::nullopt;
    return (*b - *a) / std::abs(*a);
}

QString SectionCompareDialog::changeText(std::optional<double> change) {
    return change ? QString::asprintf("%+.1f %%", *change * 100) : QStringLiteral("-");
}

QString SectionCompareDialog::titleText() const {
    const auto line = [this](const char* side, const PhaseSections::Section& s) {
        return tr("%1: %2, %3 s .. %4 s")
            .arg(QString::fromLatin1(side), QString::fromStdString(s.name),
                 RangePanel::seconds(s.t0Ns - m_sessionStart),
                 RangePanel::seconds(s.t1Ns - m_sessionStart));
    };
    return line("A", m_sectionA) + "\n" + line("B", m_sectionB);
}

void SectionCompareDialog::compare(const PhaseSections::Section& a,
                                   const PhaseSections::Section& b) {
    m_sectionA = a;
    m_sectionB = b;
    m_a.reset();
    m_b.reset();
    m_table->setRowCount(0);
    m_title->setText(titleText() + "\n" + tr("reading ..."));
    if (m_session == 0)
        return;
    const quint64 request = ++m_asked;
    QPointer<SectionCompareDialog> guard(this);
    // Both sections' raw samples: queries on the pool, never on this thread.
    QThreadPool::globalInstance()->start(
        [guard, request, db = m_db.toStdString(), session = m_session, ids = m_metricIds,
         a0 = a.t0Ns - m_sessionStart, a1 = a.t1Ns - m_sessionStart, b0 = b.t0Ns - m_sessionStart,
         b1 = b.t1Ns - m_sessionStart] {
            std::optional<RangeStatistics::Result> ra, rb;
            QString error;
            try {
                Store store(db, Store::Mode::ReadOnly);
                ra = RangeStatistics::compute(store, session, a0, a1,
                                              RangeStatistics::kDefaultWindowNs, ids);
                rb = RangeStatistics::compute(store, session, b0, b1,
                                              RangeStatistics::kDefaultWindowNs, ids);
            } catch (const std::exception& e) {
                error = QString::fromStdString(e.what());
            }
            if (!guard)
                return;
            QMetaObject::invokeMethod(guard, [guard, request, ra, rb, error] {
                if (!guard || request != guard->m_asked)
                    return; // another pair was asked for since
                guard->m_answered = request;
                if (!ra || !rb) {
                    guard->m_title->setText(guard->titleText() + "\n" +
                                            tr("Not read: %1").arg(error));
                    emit guard->failed(error);
                    return;
                }
                guard->m_a = ra;
                guard->m_b = rb;
                guard->display();
            });
        });
}

void SectionCompareDialog::display() {
    m_title->setText(titleText());
    const auto& a = *m_a;
    const auto& b = *m_b;
    m_table->setSortingEnabled(false);
    m_table->setRowCount(static_cast<int>(a.series.size()));
    for (int row = 0; row < static_cast<int>(a.series.size()); ++row) {
        const auto& sa = a.series[static_cast<std::size_t>(row)];
        const auto* sb = b.find(sa.metric.id);
        const std::optional<Figures> fa = sa.now;
        const std::optional<Figures> fb = sb ? sb->now : std::nullopt;
        const QString cells[Columns] = {QString::fromStdString(sa.metric.descriptor.path),
                                        QString::fromStdString(sa.metric.descriptor.unit),
                                        QString::number(fa ? fa->count : 0),
                                        QString::number(fb ? fb->count : 0),
                                        RangePanel::number(figure(fa, &Figures::mean)),
                                        RangePanel::number(figure(fb, &Figures::mean)),
                                        changeText(RangeStatistics::change(fa, fb)),
                                        RangePanel::number(figure(fa, &Figures::p50)),
                                        RangePanel::number(figure(fb, &Figures::p50)),
                                        RangePanel::number(figure(fa, &Figures::p99)),
                                        RangePanel::number(figure(fb, &Figures::p99))};
        for (int c = 0; c < Columns; ++c) {
            auto* item = cell(cells[c], c >= CountA);
            if (c == Series) {
                item->setData(Qt::UserRole, QVariant::fromValue<qint64>(sa.metric.id));
                item->setToolTip(cells[c]);
            }
            m_table->setItem(row, c, item);
        }
    }
    const auto requestRow = [this](int row, std::optional<double> va, std::optional<double> vb) {
        m_requests->setItem(row, 0, cell(RangePanel::number(va), true));
        m_requests->setItem(row, 1, cell(RangePanel::number(vb), true));
        m_requests->setItem(row, 2, cell(changeText(change(va, vb)), true));
    };
    requestRow(Sent, static_cast<double>(a.requests.count), static_cast<double>(b.requests.count));
    requestRow(Failed, static_cast<double>(a.requests.failed),
               static_cast<double>(b.requests.failed));
    requestRow(TtftP50, a.requests.ttftP50S, b.requests.ttftP50S);
    requestRow(TtftP99, a.requests.ttftP99S, b.requests.ttftP99S);
    emit computed();
}

} // namespace tierscope
