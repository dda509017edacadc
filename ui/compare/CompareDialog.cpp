#include "ui/compare/CompareDialog.h"

#include "core/compare/ComparisonVerdict.h"
#include "core/compare/GatePresets.h"
#include "core/util/UnitFormat.h"
#include "ui/compare/CheckTable.h"
#include "ui/compare/CompareImage.h"
#include "ui/compare/ComparisonWorker.h"
#include "ui/compare/OverlayView.h"
#include "ui/timeline/StatusColor.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QSvgRenderer>
#include <QSvgWidget>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace tierscope {

namespace {

QColor verdictColor(Gate::Verdict v) {
    switch (v) {
    case Gate::Verdict::Pass:
        return StatusColor::fill(StatusColor::Kind::Good);
    case Gate::Verdict::Fail:
        return StatusColor::fill(StatusColor::Kind::Bad);
    case Gate::Verdict::Inconclusive:
        break;
    }
    return StatusColor::fill(StatusColor::Kind::Caution);
}

// Significance first: only a change whose interval excludes zero gets a colour, and a KPI
// without a better direction (a time share) gets a neutral one.
std::optional<StatusColor::Kind> toneKind(ComparisonVerdict::Tone tone) {
    switch (tone) {
    case ComparisonVerdict::Tone::Better:
        return StatusColor::Kind::Good;
    case ComparisonVerdict::Tone::Worse:
    case ComparisonVerdict::Tone::Invalid:
        return StatusColor::Kind::Bad;
    case ComparisonVerdict::Tone::Changed:
        return StatusColor::Kind::Changed;
    case ComparisonVerdict::Tone::NoDifference:
    case ComparisonVerdict::Tone::NoInterval:
        break;
    }
    return std::nullopt;
}

QString perRun(const std::vector<double>& values, const std::string& unit, const QString& side) {
    QStringList out;
    for (std::size_t i = 0; i < values.size(); ++i)
        out << QString("  run %1: %2")
                   .arg(i + 1)
                   .arg(QString::fromStdString(UnitFormat::kpi(values[i], unit)));
    return QObject::tr("%1, one value per measured run (in run order):\n%2")
        .arg(side, out.isEmpty() ? QObject::tr("  none") : out.join('\n'));
}

QTableWidgetItem* cell(const QString& text, Qt::Alignment align = Qt::AlignRight) {
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(align | Qt::AlignVCenter);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    return item;
}

QTableWidgetItem* badge(const QString& text, const QColor& color) {
    auto* item = cell(text, Qt::AlignCenter);
    item->setBackground(color);
    item->setForeground(Qt::white);
    QFont bold = item->font();
    bold.setBold(true);
    item->setFont(bold);
    return item;
}

// The height that shows every row of `table` (header, rows, frame); the most it may take.
int contentHeight(const QTableWidget* table) {
    int h = table->horizontalHeader()->height() + 2 * table->frameWidth();
    for (int row = 0; row < table->rowCount(); ++row)
        h += table->rowHeight(row);
    if (table->horizontalScrollBar()->isVisible())
        h += table->horizontalScrollBar()->height();
    return h;
}

// Sized to its rows: all of them where they fit, at least `minRows` where they do not.
void fitToRows(QTableWidget* table, int minRows) {
    table->resizeRowsToContents();
    const int all = contentHeight(table);
    const int row = table->rowCount() > 0 ? table->rowHeight(0) : table->fontMetrics().height();
    table->setMaximumHeight(all);
    table->setMinimumHeight(std::min(all, table->horizontalHeader()->height() +
                                              2 * table->frameWidth() + minRows * row));
}

QComboBox* sideBox(QWidget* parent) {
    auto* box = new QComboBox(parent);
    box->setEditable(true); // a spec can be typed: run:12, session:3, arm:EXP/ARM
    box->setInsertPolicy(QComboBox::NoInsert);
    box->setMinimumContentsLength(16);
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    return box;
}

// The spec of the chosen entry, or what the user typed.
QString specOf(const QComboBox* box) {
    const int i = box->findText(box->currentText());
    return i >= 0 && box->itemData(i).isValid() ? box->itemData(i).toString()
                                                : box->currentText().trimmed();
}

} // namespace

CompareDialog::CompareDialog(QString db, QWidget* parent) : QDialog(parent), m_db(std::move(db)) {
    setWindowTitle(tr("Compare A/B"));
    // Large enough for every KPI row on a 1080p screen, never larger than the screen.
    const QRect screen = this->screen()->availableGeometry();
    resize(std::min(1400, screen.width() * 9 / 10), std::min(1000, screen.height() * 9 / 10));
    m_worker = new ComparisonWorker;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start();

    m_workload = new QComboBox(this);
    m_workload->setVisible(false);
    m_a = sideBox(this);
    m_b = sideBox(this);
    m_gateText = new QLineEdit(this);
    m_gateText->setPlaceholderText(tr("ttft_p50 <= -25%; output_throughput >= +29%"));
    m_preset = new QComboBox(this);
    m_preset->setMinimumContentsLength(10);
    m_preset->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_preset->addItem(tr("no preset"), QString());
    for (const auto& [name, gates] : GatePresets::builtin())
        m_preset->addItem(QString::fromStdString(name), QString::fromStdString(name));
    m_run = new QPushButton(tr("Compare"), this);
    m_run->setDefault(true);
    auto* form = new QFormLayout;
    form->addRow(m_workload);
    form->addRow(tr("A (baseline)"), m_a);
    form->addRow(tr("B (candidate)"), m_b);
    auto* gateRow = new QHBoxLayout;
    gateRow->addWidget(m_gateText, 1);
    gateRow->addWidget(m_preset);
    gateRow->addWidget(m_run);
    form->addRow(tr("Gates"), gateRow);

    m_kpis = new QTableWidget(0, 9, this);
    m_kpis->setHorizontalHeaderLabels({tr("KPI"), tr("A"), tr("B"), tr("B - A"), tr("change"),
                                       tr("ratio"), tr("95 % CI"), tr("n (A / B)"), tr("gate")});
    // Names are short: the interval column, whose text varies most, takes the spare width.
    m_kpis->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_kpis->horizontalHeader()->setSectionResizeMode(6, QHeaderView::Stretch);
    m_kpis->horizontalHeader()->setMinimumSectionSize(90);
    m_kpis->verticalHeader()->hide();
    m_gates = new QTableWidget(0, 3, this);
    m_gates->setHorizontalHeaderLabels({tr("gate"), tr("verdict"), tr("evidence")});
    m_gates->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_gates->horizontalHeader()->setStretchLastSection(true);
    m_gates->verticalHeader()->hide();
    m_shares = new QLabel(this);
    m_shares->setWordWrap(true);
    m_tabs = new QTabWidget(this);
    m_tabs->setMinimumHeight(100); // the dialog fits a 1280x720 screen at scale factor 2
    m_verdict = new QLabel(tr("Pick A and B, then Compare."), this);
    m_verdict->setObjectName("verdict");
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdict->setMargin(6);
    QFont big = m_verdict->font();
    big.setPointSizeF(big.pointSizeF() * 1.25);
    big.setBold(true);
    m_verdict->setFont(big);

    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_kpis);
    topLayout->addWidget(m_shares);
    topLayout->addWidget(m_gates);
    topLayout->addStretch(1);
    m_top = top;
    // The tables scroll inside their pane when the screen is small, instead of pushing the
    // dialog's buttons off it.
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(top);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* split = m_split = new QSplitter(Qt::Vertical, this);
    split->addWidget(scroll);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setSizes({340, 520});

    m_status = new QLabel(tr("Pick A and B."), this);
    m_status->setWordWrap(true);
    m_status->setMinimumWidth(120);
    m_exportChart = new QPushButton(tr("Export chart…"), this);
    m_exportReport = new QPushButton(tr("Export report…"), this);
    m_saveImage = new QPushButton(tr("Save as image…"), this);
    m_saveImage->setToolTip(tr("The whole comparison as one PNG, SVG or PDF"));
    auto* overlay = new QPushButton(tr("Overlay…"), this);
    overlay->setToolTip(tr("A and B on one set of charts, aligned at their start"));
    connect(overlay, &QPushButton::clicked, this,
            [this] { OverlayView::open(m_db, specOf(m_a), specOf(m_b), this); });
    m_exportChart->setEnabled(false);
    m_exportReport->setEnabled(false);
    m_saveImage->setEnabled(false);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
        m_exportChart->setEnabled(index >= 0 && index < static_cast<int>(m_result.charts.size()));
    });
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_status, 1);
    buttons->addWidget(overlay);
    buttons->addWidget(m_exportChart);
    buttons->addWidget(m_exportReport);
    buttons->addWidget(m_saveImage);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_verdict);
    layout->addWidget(split, 1);
    layout->addLayout(buttons);

    connect(m_run, &QPushButton::clicked, this, &CompareDialog::compare);
    connect(m_workload, &QComboBox::activated, this, [this](int index) {
        if (index < 0 || index >= m_pairs.size())
            return;
        setSides(m_pairs[index].a, m_pairs[index].b);
        compare();
    });
    connect(m_worker, &ComparisonWorker::experimentListed, this,
            [this](const QList<ComparisonPair>& pairs, const QStringList& gates) {
                m_pairs = pairs;
                m_workload->clear();
                for (const auto& p : pairs)
                    m_workload->addItem(p.title);
                m_workload->setVisible(pairs.size() > 1);
                setGates(gates.join("; "));
                emit experimentLoaded();
                if (pairs.isEmpty()) {
                    m_status->setText(tr("The experiment has no two arms to compare."));
                    return;
                }
                setSides(pairs.front().a, pairs.front().b);
                compare();
            });
    connect(m_exportReport, &QPushButton::clicked, this, &CompareDialog::askExportReport);
    connect(m_exportChart, &QPushButton::clicked, this, &CompareDialog::askExportChart);
    connect(m_saveImage, &QPushButton::clicked, this, &CompareDialog::askSaveImage);
    connect(m_worker, &ComparisonWorker::choicesListed, this,
            [this](const QList<ComparisonChoice>& choices) {
                for (auto* box : {m_a, m_b}) {
                    const QString typed = box->currentText();
                    box->clear();
                    for (const auto& c : choices)
                        box->addItem(c.text, c.spec);
                    box->setEditText(typed.isEmpty() && box->count() ? box->itemText(0) : typed);
                }
                if (m_b->count() > 1 && m_b->currentText() == m_a->currentText())
                    m_b->setCurrentIndex(1);
                emit choicesLoaded();
            });
    connect(m_worker, &ComparisonWorker::compared, this,
            [this](quint64 request, const ComparisonResult& in, const QList<int>& notApplicable) {
                if (request == m_request) {
                    m_notApplicable = notApplicable;
                    showResult(in);
                }
            });
    connect(m_worker, &ComparisonWorker::failed, this,
            [this](quint64 request, const QString& message) {
                if (request != m_request)
                    return;
                m_run->setEnabled(true);
                m_status->setText(tr("Cannot compare: %1").arg(message));
                emit comparisonFailed(message);
            });
    connect(m_worker, &ComparisonWorker::exported, this,
            [this](const QString& path, const QString& error) {
                m_status->setText(error.isEmpty() ? tr("Wrote %1").arg(path) : error);
                emit exported(path, error);
            });
    // The pair compared last in this workspace, until the user picks another.
    QSettings settings("tierscope", "tierscope");
    if (settings.value("compare/db").toString() == m_db)
        setSides(settings.value("compare/a").toString(), settings.value("compare/b").toString());
    QMetaObject::invokeMethod(m_worker, [w = m_worker, db = m_db] { w->listChoices(db); });
}

QString CompareDialog::verdictText() const {
    return m_verdict->text();
}

QString CompareDialog::sideSpec(bool a) const {
    return specOf(a ? m_a : m_b);
}

void CompareDialog::compareExperiment(qint64 sessionId, const QString& planText) {
    m_status->setText(tr("Reading the runs of session %1…").arg(sessionId));
    QMetaObject::invokeMethod(m_worker, [w = m_worker, db = m_db, sessionId, planText] {
        w->experimentPairs(db, sessionId, planText);
    });
}

CompareDialog::~CompareDialog() {
    m_thread.quit();
    m_thread.wait();
}

QString CompareDialog::statusText() const {
    return m_status->text();
}

void CompareDialog::setSides(const QString& a, const QString& b) {
    m_a->setEditText(a);
    m_b->setEditText(b);
}

void CompareDialog::setGates(const QString& gates, const QString& preset) {
    m_gateText->setText(gates);
    m_preset->setCurrentIndex(std::max(0, m_preset->findData(preset)));
}

void CompareDialog::compare() {
    const QString a = specOf(m_a), b = specOf(m_b);
    QString labelA, labelB;
    for (const auto& p : m_pairs)
        if (p.a == a && p.b == b) {
            labelA = p.labelA;
            labelB = p.labelB;
        }
    if (a.isEmpty() || b.isEmpty()) {
        m_status->setText(m_workload->count() > 0
                              ? tr("%1: an arm has no completed run in this session.")
                                    .arg(m_workload->currentText())
                              : tr("Pick A and B."));
        return;
    }
    QSettings settings("tierscope", "tierscope");
    settings.setValue("compare/db", m_db);
    settings.setValue("compare/a", a);
    settings.setValue("compare/b", b);
    m_run->setEnabled(false);
    m_status->setText(tr("Comparing %1 with %2…").arg(b, a));
    const QStringList gates = m_gateText->text().split(';', Qt::SkipEmptyParts);
    const QStringList presets = m_preset->currentData().toString().isEmpty()
                                    ? QStringList()
                                    : QStringList{m_preset->currentData().toString()};
    m_pendingArgs = QStringList{a, b};
    for (const auto& gate : gates)
        m_pendingArgs << "--gate" << gate.trimmed();
    for (const auto& preset : presets)
        m_pendingArgs << "--gate-preset" << preset;
    const quint64 request = ++m_request;
    const SvgChart::Style style = CompareImage::chartStyle(m_tabs);
    const QSize size = CompareImage::chartSize(m_tabs);
    QMetaObject::invokeMethod(m_worker, [w = m_worker, db = m_db, a, b, gates, presets, request,
                                         labelA, labelB, style, size] {
        w->compare(db, a, b, gates, presets, request, labelA, labelB, style, size);
    });
}

void CompareDialog::showResult(const ComparisonResult& in) {
    m_result = in;
    m_comparedArgs = m_pendingArgs;
    const auto verdict =
        ComparisonVerdict::of(in, std::set<int>(m_notApplicable.begin(), m_notApplicable.end()));
    m_verdict->setText(QString::fromStdString(verdict.sentence));
    const auto kind = toneKind(verdict.tone);
    m_verdict->setStyleSheet(kind ? QString("background: %1; color: white; border-radius: 4px")
                                        .arg(StatusColor::fill(*kind).name())
                                  : QString("border: 1px solid palette(mid); border-radius: 4px"));
    fillKpis(in);
    fillGates(in);
    QStringList shares;
    auto pct = [](const std::optional<double>& v) {
        return v ? QString("%1 %").arg(*v * 100, 0, 'f', 0) : QString("n/a");
    };
    for (const auto& s : in.shares)
        shares << QString("%1: A %2 → B %3")
                      .arg(QString::fromStdString(s.bottleneck), pct(s.a), pct(s.b));
    m_shares->setText(shares.isEmpty() ? tr("No timeline to name bottlenecks from.")
                                       : tr("Bottleneck time shares — ") + shares.join(";  "));
    const int current = m_tabs->currentIndex();
    while (m_tabs->count() > 0) {
        QWidget* page = m_tabs->widget(0);
        m_tabs->removeTab(0);
        delete page;
    }
    for (const auto& chart : in.charts) {
        auto* svg = new QSvgWidget(m_tabs);
        svg->load(QByteArray::fromStdString(chart.svg));
        svg->renderer()->setAspectRatioMode(Qt::KeepAspectRatio);
        m_tabs->addTab(svg, QString::fromStdString(chart.title));
    }
    addCheckTab(in);
    // Storage-only sides have no TTFT: open on the KPI bars instead of an empty CDF.
    const bool ttft = std::any_of(in.kpis.begin(), in.kpis.end(),
                                  [](const KpiComparison& k) { return k.name == "ttft_p50"; });
    m_tabs->setCurrentIndex(current > 0 ? current : (ttft || m_tabs->count() < 2 ? 0 : 1));
    m_run->setEnabled(true);
    m_exportChart->setEnabled(m_tabs->currentIndex() < static_cast<int>(in.charts.size()));
    m_exportReport->setEnabled(true);
    m_saveImage->setEnabled(true);
    QString status = tr("A: %1    B: %2").arg(sideText(in, true), sideText(in, false));
    if (!in.invalid.empty()) {
        // A failed validity check outranks every number below it.
        QStringList why;
        for (const auto& line : in.invalid)
            why << QString::fromStdString(line);
        status = tr("INVALID, gates not judged: %1\n%2").arg(why.join("; "), status);
        m_status->setStyleSheet(
            QString("color: %1; font-weight: bold")
                .arg(StatusColor::text(StatusColor::Kind::Bad, m_status->palette()).name()));
    } else {
        m_status->setStyleSheet({});
    }
    m_status->setText(status);
    fitTables();
    emit comparisonShown();
}

// The side's label counts the measured runs, as the table does, and how many were left out;
// which ones and why follows, so the two never disagree unexplained.
QString CompareDialog::sideText(const ComparisonResult& in, bool a) const {
    QString text = QString::fromStdString(a ? in.labelA : in.labelB);
    QStringList left;
    const std::string prefix = a ? "A: " : "B: ";
    for (const auto& line : in.excluded)
        if (line.starts_with(prefix))
            left << QString::fromStdString(line.substr(prefix.size()));
    if (!left.isEmpty())
        text += tr("; left out: %1").arg(left.join(", "));
    return text;
}

// Every KPI and gate row in view where the dialog has the room; the charts get the rest.
void CompareDialog::fitTables() {
    fitToRows(m_kpis, 5);
    fitToRows(m_gates, 2);
    m_top->layout()->activate();
    const int total = m_split->height();
    const int top = std::min(m_top->sizeHint().height(), total * 2 / 3);
    m_split->setSizes({top, std::max(0, total - top)});
}

void CompareDialog::fillKpis(const ComparisonResult& in) {
    m_kpis->setRowCount(static_cast<int>(in.kpis.size()));
    // A sequential experiment's intervals are wider, at their per-look level: the header says it.
    m_kpis->setHorizontalHeaderItem(
        6, new QTableWidgetItem(QString::fromStdString(ComparisonReport::intervalHeader(in))));
    for (int row = 0; row < static_cast<int>(in.kpis.size()); ++row) {
        const auto& k = in.kpis[static_cast<std::size_t>(row)];
        auto value = [&](double v) { return QString::fromStdString(UnitFormat::kpi(v, k.unit)); };
        m_kpis->setItem(row, 0, cell(QString::fromStdString(k.name), Qt::AlignLeft));
        auto* a = cell(value(k.a));
        const QString meanKind = tr("the %1 of the runs").arg(k.meanKind());
        a->setToolTip(meanKind + "\n\n" + perRun(k.runsA, k.unit, tr("A")));
        m_kpis->setItem(row, 1, a);
        auto* b = cell(value(k.b));
        b->setToolTip(meanKind + "\n\n" + perRun(k.runsB, k.unit, tr("B")));
        m_kpis->setItem(row, 2, b);
        m_kpis->setItem(row, 3, cell(value(k.difference())));
        auto* change = cell(QString::fromStdString(ComparisonReport::changeCell(k)));
        // Coloured only where the interval excludes zero; otherwise the change may be noise.
        if (const auto tone = toneKind(ComparisonVerdict::tone(k)))
            change->setForeground(StatusColor::text(*tone, m_kpis->palette()));
        change->setToolTip(k.directional
                               ? tr("better: %1").arg(KpiComparison::verdictText(k.verdict()))
                               : tr("%1; a time share is neither better nor worse by itself")
                                     .arg(KpiComparison::verdictText(k.verdict())));
        m_kpis->setItem(row, 4, change);
        m_kpis->setItem(row, 5, cell(QString::fromStdString(ComparisonReport::ratioCell(k))));
        // The rig's noise floor beside the interval, where a calibration measured it.
        m_kpis->setItem(row, 6,
                        cell(QString::fromStdString(ComparisonReport::intervalCell(k) +
                                                    ComparisonReport::floorCell(k)),
                             Qt::AlignCenter));
        auto* n = cell(QString("%1 / %2 %3")
                           .arg(k.countA)
                           .arg(k.countB)
                           .arg(QString::fromStdString(k.sampleKind)));
        n->setToolTip(perRun(k.runsA, k.unit, tr("A")) + "\n\n" + perRun(k.runsB, k.unit, tr("B")));
        m_kpis->setItem(row, 7, n);
        m_kpis->setItem(row, 8, cell(QString(), Qt::AlignCenter));
        for (const auto& [gate, verdict] : in.gates)
            if (gate.kpi == k.name) // the last gate on a KPI shows; the gate table has all
                m_kpis->setItem(row, 8,
                                badge(Gate::name(verdict.verdict), verdictColor(verdict.verdict)));
    }
}

void CompareDialog::fillGates(const ComparisonResult& in) {
    m_gates->setRowCount(static_cast<int>(in.gates.size()));
    for (int row = 0; row < static_cast<int>(in.gates.size()); ++row) {
        const auto& [gate, verdict] = in.gates[static_cast<std::size_t>(row)];
        m_gates->setItem(row, 0, cell(QString::fromStdString(gate.text), Qt::AlignLeft));
        m_gates->setItem(row, 1,
                         m_notApplicable.contains(row)
                             ? badge(tr("n/a"), StatusColor::fill(StatusColor::Kind::Muted))
                             : badge(Gate::name(verdict.verdict), verdictColor(verdict.verdict)));
        m_gates->setItem(row, 2, cell(QString::fromStdString(verdict.reason), Qt::AlignLeft));
    }
    m_gates->setVisible(!in.gates.empty());
}

void CompareDialog::addCheckTab(const ComparisonResult& in) {
    QString title;
    m_checks = CheckTable::build(in, m_tabs, &title);
    m_tabs->addTab(m_checks, title);
}

} // namespace tierscope
