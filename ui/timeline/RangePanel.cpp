#include "ui/timeline/RangePanel.h"

#include "core/store/Store.h"
#include "core/util/UnitFormat.h"
#include "core/view/ChartLayout.h"
#include "ui/timeline/UnitScale.h"

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

enum Column { Series, Unit, Count, Min, Mean, P50, P99, Last, MeanBefore, Change, Columns };

QString requestsOf(const RangeStatistics::Requests& r) {
    QString out = RangePanel::tr("%1 sent, %2 failed").arg(r.count).arg(r.failed);
    const auto kpi = [](std::optional<double> s) {
        return s ? QString::fromStdString(UnitFormat::kpi(*s, "s")) : QStringLiteral("-");
    };
    if (r.ttftP50S)
        out += RangePanel::tr(", TTFT p50 %1, p99 %2").arg(kpi(r.ttftP50S), kpi(r.ttftP99S));
    return out;
}

// One unit per row, chosen from its largest figure as a chart's axis is: "2.50 GB/s" rather
// than 2.5e+09, "12.3 ms" rather than 0.0123 s.
UnitScale rowScale(const RangeStatistics::Series& s) {
    double peak = 0;
    const auto take = [&peak](double v) {
        if (std::isfinite(v))
            peak = std::max(peak, std::abs(v));
    };
    if (s.now)
        for (double v : {s.now->min, s.now->mean, s.now->p50, s.now->p99, s.now->last})
            take(v);
    if (s.before)
        take(s.before->mean);
    return UnitScale::choose(ChartLayout::unitOf(s.metric.descriptor), peak);
}

QString scaled(std::optional<double> v, const UnitScale& scale) {
    return v ? QString::number(*v / scale.divisor, 'g', 4) : QStringLiteral("-");
}

} // namespace

RangePanel::RangePanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_title = new QLabel(this);
    m_title->setObjectName("rangeTitle");
    m_title->setWordWrap(true);
    layout->addWidget(m_title);
    m_table = new QTableWidget(0, Columns, this);
    m_table->setObjectName("rangeTable");
    m_table->setHorizontalHeaderLabels({tr("series"), tr("unit"), tr("n"), tr("min"), tr("mean"),
                                        tr("p50"), tr("p99"), tr("last"), tr("mean before"),
                                        tr("change")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(m_table, 1);
    m_requests = new QLabel(this);
    m_requests->setObjectName("rangeRequests");
    m_requests->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_requests);
    m_shares = new QLabel(this);
    m_shares->setObjectName("rangeShares");
    m_shares->setWordWrap(true);
    m_shares->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_shares);
    clear();
}

QString RangePanel::number(std::optional<double> v) {
    // As `analyze --range` prints them (%.6g).
    return v ? QString::asprintf("%.6g", *v) : QStringLiteral("-");
}

QString RangePanel::seconds(std::int64_t ns) {
    return QString::number(static_cast<double>(ns) / 1e9, 'f', 3);
}

void RangePanel::setSession(const QString& db, qint64 sessionId) {
    m_db = db;
    m_session = sessionId;
    clear();
}

void RangePanel::clear() {
    m_answered = ++m_asked; // an answer still under way is for a range no longer selected
    m_result.reset();
    m_table->setRowCount(0);
    m_title->setText(tr("Shift+drag across a chart, or double-click a run, to read a range; "
                        "Esc clears it."));
    m_requests->clear();
    m_shares->clear();
}

void RangePanel::setRange(double x0S, double x1S) {
    if (m_session == 0 || !(x1S > x0S))
        return;
    const quint64 request = ++m_asked;
    m_result.reset();
    const auto from = static_cast<std::int64_t>(std::llround(std::max(0.0, x0S) * 1e9));
    const auto to = static_cast<std::int64_t>(std::llround(x1S * 1e9));
    m_title->setText(tr("Range %1 s .. %2 s: reading ...").arg(seconds(from), seconds(to)));
    QPointer<RangePanel> guard(this);
    // The raw samples of every series in the range: a query on the pool, never on this thread.
    QThreadPool::globalInstance()->start([guard, request, db = m_db.toStdString(),
                                          session = m_session, from, to, ids = m_metricIds] {
        std::optional<RangeStatistics::Result> result;
        QString error;
        try {
            Store store(db, Store::Mode::ReadOnly);
            result = RangeStatistics::compute(store, session, from, to,
                                              RangeStatistics::kDefaultWindowNs, ids);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        if (!guard)
            return;
        QMetaObject::invokeMethod(guard, [guard, request, result, error] {
            if (!guard || request != guard->m_asked)
                return; // another range was selected since
            guard->m_answered = request;
            if (!result) {
                guard->m_title->setText(tr("Range not read: %1").arg(error));
                emit guard->failed(error);
                return;
            }
            guard->display(*result);
        });
    });
}

void RangePanel::display(const RangeStatistics::Result& r) {
    m_result = r;
    QString title = tr("Range %1 s .. %2 s").arg(seconds(r.fromNs), seconds(r.toNs));
    title += r.beforeFromNs < r.fromNs ? tr("; compared with %1 s .. %2 s before it")
                                             .arg(seconds(r.beforeFromNs), seconds(r.fromNs))
                                       : tr("; nothing before it to compare with");
    m_title->setText(title);
    m_table->setSortingEnabled(false);
    m_table->setRowCount(static_cast<int>(r.series.size()));
    for (int row = 0; row < static_cast<int>(r.series.size()); ++row) {
        const auto& s = r.series[static_cast<std::size_t>(row)];
        const auto& f = s.now;
        const auto of = [&f](double RangeStatistics::Figures::*member) {
            return f ? std::optional<double>((*f).*member) : std::nullopt;
        };
        const std::optional<double> exact[Columns] = {
            std::nullopt,
            std::nullopt,
            std::nullopt,
            of(&RangeStatistics::Figures::min),
            of(&RangeStatistics::Figures::mean),
            of(&RangeStatistics::Figures::p50),
            of(&RangeStatistics::Figures::p99),
            of(&RangeStatistics::Figures::last),
            s.before ? std::optional<double>(s.before->mean) : std::nullopt,
            std::nullopt};
        const UnitScale scale = rowScale(s);
        const QString unit = scale.suffix.trimmed().isEmpty()
                                 ? QString::fromStdString(s.metric.descriptor.unit)
                                 : scale.suffix.trimmed();
        for (int c = 0; c < Columns; ++c) {
            QString text = c == Series  ? QString::fromStdString(s.metric.descriptor.path)
                           : c == Unit  ? unit
                           : c == Count ? QString::number(f ? f->count : 0)
                           : c == Change
                               ? (s.meanChange ? QString::asprintf("%+.1f %%", *s.meanChange * 100)
                                               : QStringLiteral("-"))
                               : scaled(exact[c], scale);
            auto* item = new QTableWidgetItem(text);
            if (c >= Count)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (c == Series)
                item->setData(Qt::UserRole, QVariant::fromValue<qint64>(s.metric.id));
            if (exact[c]) {
                item->setData(ExactRole, *exact[c]);
                item->setToolTip(
                    tr("%1 %2 (as analyze --range prints it)")
                        .arg(number(exact[c]), QString::fromStdString(s.metric.descriptor.unit)));
            }
            m_table->setItem(row, c, item);
        }
    }
    m_requests->setText(requestsText());
    m_shares->setText(sharesText());
    emit computed();
}

QString RangePanel::requestsText() const {
    if (!m_result)
        return {};
    QString out = tr("Requests: ") + requestsOf(m_result->requests);
    if (m_result->requestsBefore)
        out += tr("; before it: ") + requestsOf(*m_result->requestsBefore);
    return out;
}

QString RangePanel::sharesText() const {
    if (!m_result)
        return {};
    QStringList parts;
    for (const auto& [cls, share] : m_result->shares)
        parts << QString("%1 %2 %").arg(BottleneckClassifier::name(cls),
                                        QString::number(share * 100, 'f', 1));
    return tr("Bottleneck shares (%1 s windows): %2")
        .arg(static_cast<double>(m_result->windowNs) / 1e9)
        .arg(parts.isEmpty() ? tr("none") : parts.join(", "));
}

} // namespace tierscope
