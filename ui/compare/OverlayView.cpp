#include "ui/compare/OverlayView.h"

#include "ui/compare/CompareImage.h"
#include "ui/compare/OverlayChart.h"
#include "ui/compare/OverlayHistogram.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QScreen>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

namespace tierscope {

namespace {

constexpr int kKeyRole = Qt::UserRole;

// What the overlay opens with: the requests' charts, then the first GPU's busy and VRAM and the
// first storage read, the series an A/B of storage tiers is about. More are a tick away.
QStringList defaults(const std::vector<OverlayFrame::Series>& series) {
    QStringList out;
    auto first = [&](const std::string& chart, const std::string& nameHas) {
        for (const auto& s : series)
            if (s.chart == chart && s.name.find(nameHas) != std::string::npos) {
                out << QString::fromStdString(s.key);
                return;
            }
    };
    for (const auto& s : series)
        if (s.key == OverlayFrame::kTtft || s.key == OverlayFrame::kTokens)
            out << QString::fromStdString(s.key);
    first("GPU busy", "");
    first("VRAM used", "");
    first("Storage bandwidth", " read");
    return out;
}

QString colorSquare(const QColor& color) {
    return QString("<span style=\"color:%1\">&#9632;</span>").arg(color.name());
}

} // namespace

OverlayView::OverlayView(QString db, const QString& a, const QString& b, QWidget* parent)
    : QDialog(parent), m_db(std::move(db)), m_dark(isDark()) {
    setWindowTitle(tr("A/B overlay"));
    const QRect screen = this->screen()->availableGeometry();
    resize(std::min(1500, screen.width() * 9 / 10), std::min(950, screen.height() * 9 / 10));
    m_worker = new OverlayWorker;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start();

    m_sides = new QLabel(this);
    m_sides->setObjectName("overlaySides");
    m_sides->setTextFormat(Qt::RichText);
    m_sides->setWordWrap(true);
    m_sides->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_offset = new QDoubleSpinBox(this);
    m_offset->setRange(-86400.0, 86400.0);
    m_offset->setDecimals(1);
    m_offset->setSingleStep(1.0);
    m_offset->setSuffix(tr(" s"));
    m_offset->setToolTip(tr("Shifts B along the time axis: a positive offset draws B later"));
    m_offset->setEnabled(false);
    m_status = new QLabel(tr("Reading both sides…"), this);
    m_status->setWordWrap(true);
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("B offset"), this));
    controls->addWidget(m_offset);
    auto* axis = new QLabel(tr("x: seconds since each run's (or session's) start"), this);
    axis->setEnabled(false); // a hint, drawn muted
    controls->addWidget(axis);
    controls->addStretch(1);
    controls->addWidget(m_status, 1);

    m_list = new QListWidget(this);
    m_list->setObjectName("overlaySeries");
    m_list->setToolTip(tr("Tick the series to draw, as the timeline names them"));
    m_chartBox = new QWidget(this);
    m_chartLayout = new QVBoxLayout(m_chartBox);
    m_chartLayout->setContentsMargins(0, 0, 0, 0);
    m_chartLayout->addStretch(1);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_chartBox);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_histogram = new OverlayHistogram(sideLabels(), m_dark, this);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_list);
    split->addWidget(scroll);
    split->addWidget(m_histogram);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 2);
    split->setSizes({220, 760, 420});

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_sides);
    layout->addLayout(controls);
    layout->addWidget(split, 1);
    layout->addWidget(buttons);

    connect(m_offset, &QDoubleSpinBox::valueChanged, this, [this] { redraw(); });
    connect(m_list, &QListWidget::itemChanged, this, [this] {
        if (!m_filling)
            redraw();
    });
    connect(m_worker, &OverlayWorker::loaded, this,
            [this](quint64 request, const OverlayData& data) {
                if (request == m_request)
                    showData(data);
            });
    connect(m_worker, &OverlayWorker::failed, this,
            [this](quint64 request, const QString& message) {
                if (request != m_request)
                    return;
                m_status->setText(tr("Cannot overlay: %1").arg(message));
                emit failed(message);
            });
    m_sides->setText(b.isEmpty() ? tr("A and B: the first two arms of %1").arg(a.toHtmlEscaped())
                                 : tr("A: %1<br>B: %2").arg(a.toHtmlEscaped(), b.toHtmlEscaped()));
    const quint64 request = ++m_request;
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, db = m_db, a, b, request] { w->load(db, a, b, request); });
}

OverlayView* OverlayView::open(const QString& db, const QString& a, const QString& b,
                               QWidget* parent) {
    auto* view = new OverlayView(db, a, b, parent);
    view->setAttribute(Qt::WA_DeleteOnClose);
    view->show();
    return view;
}

OverlayView::~OverlayView() {
    m_thread.quit();
    m_thread.wait();
}

bool OverlayView::isDark() const {
    return CompareImage::isDark(palette());
}

void OverlayView::changeEvent(QEvent* event) {
    QDialog::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && isDark() != m_dark) {
        m_dark = isDark();
        remake();
        if (m_loaded) {
            describeSides();
            redraw();
        }
    }
}

void OverlayView::describeSides() {
    const QStringList labels = sideLabels();
    m_sides->setText(
        QString("%1 <b>%2</b> (%3 range(s))<br>%4 <b>%5</b> (%6 range(s))")
            .arg(colorSquare(OverlayChart::sideColor(0, m_dark)), labels[0].toHtmlEscaped())
            .arg(m_data.a.ranges.size())
            .arg(colorSquare(OverlayChart::sideColor(1, m_dark)), labels[1].toHtmlEscaped())
            .arg(m_data.b.ranges.size()));
}

// The charts and the histogram take the theme and the sides' names when made: made again
// when either changes.
void OverlayView::remake() {
    if (!m_histogram) // still being made
        return;
    for (auto* chart : m_charts)
        delete chart;
    m_charts.clear();
    auto* histogram = new OverlayHistogram(sideLabels(), m_dark, this);
    if (auto* split = qobject_cast<QSplitter*>(m_histogram->parentWidget()))
        split->replaceWidget(split->indexOf(m_histogram), histogram);
    delete m_histogram;
    m_histogram = histogram;
}

QStringList OverlayView::sideLabels() const {
    return {"A: " + QString::fromStdString(m_data.a.label),
            "B: " + QString::fromStdString(m_data.b.label)};
}

QString OverlayView::statusText() const {
    return m_status->text();
}

QString OverlayView::sidesText() const {
    return m_sides->text();
}

double OverlayView::offset() const {
    return m_offset->value();
}

void OverlayView::setOffset(double seconds) {
    m_offset->setValue(seconds); // redraws through valueChanged when it changes
}

void OverlayView::showData(const OverlayData& data) {
    m_data = data;
    m_loaded = true;
    setWindowTitle(
        tr("A/B overlay: %1 vs %2")
            .arg(QString::fromStdString(data.a.label), QString::fromStdString(data.b.label)));
    describeSides();
    remake(); // the legends name the sides, known now
    m_filling = true;
    m_list->clear();
    const QStringList initial = defaults(data.series);
    for (const auto& s : data.series) {
        const QString key = QString::fromStdString(s.key);
        auto* item = new QListWidgetItem(s.key == OverlayFrame::kTtft
                                             ? QString::fromStdString(s.chart)
                                             : QString::fromStdString(s.chart + ": " + s.name),
                                         m_list);
        item->setData(kKeyRole, key);
        item->setToolTip(key);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(initial.contains(key) ? Qt::Checked : Qt::Unchecked);
    }
    m_filling = false;
    m_offset->setEnabled(true);
    m_status->setText(data.series.empty() ? tr("Neither side recorded a series to draw.")
                                          : QString());
    redraw();
    emit loaded();
}

void OverlayView::choose(const QStringList& keys) {
    m_filling = true;
    for (int i = 0; i < m_list->count(); ++i) {
        auto* item = m_list->item(i);
        item->setCheckState(keys.contains(item->data(kKeyRole).toString()) ? Qt::Checked
                                                                           : Qt::Unchecked);
    }
    m_filling = false;
    redraw();
}

QStringList OverlayView::chosen() const {
    QStringList out;
    for (int i = 0; i < m_list->count(); ++i)
        if (m_list->item(i)->checkState() == Qt::Checked)
            out << m_list->item(i)->data(kKeyRole).toString();
    return out;
}

void OverlayView::redraw() {
    const QStringList keys = chosen();
    std::vector<OverlayFrame::Series> series;
    for (const auto& key : keys)
        for (const auto& s : m_data.series)
            if (QString::fromStdString(s.key) == key)
                series.push_back(s);
    m_frame = OverlayFrame::build(m_data.a, m_data.b, series, m_offset->value());
    // The charts are made again only when the choice changed; an offset moves their points.
    bool same = m_charts.size() == series.size();
    for (std::size_t i = 0; same && i < series.size(); ++i)
        same = m_charts[i]->series().key == series[i].key;
    if (!same) {
        for (auto* chart : m_charts)
            delete chart;
        m_charts.clear();
        const QStringList labels = sideLabels();
        for (const auto& s : series) {
            auto* chart = new OverlayChart(s, labels, m_dark, m_chartBox);
            m_chartLayout->insertWidget(m_chartLayout->count() - 1, chart);
            m_charts.push_back(chart);
        }
    }
    for (std::size_t i = 0; i < m_charts.size(); ++i)
        m_charts[i]->setChart(m_frame.charts[i], m_frame.x0, m_frame.x1);
    m_histogram->setHistogram(m_frame.ttft);
    emit redrawn();
}

} // namespace tierscope
