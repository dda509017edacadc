#include "ui/compare/ComparisonWorker.h"

#include "core/compare/ComparisonBuilder.h"
#include "core/compare/RunKpis.h"
#include "core/report/ComparisonCharts.h"
#include "core/report/ReportFile.h"
#include "core/store/Store.h"
#include "core/util/UnitFormat.h"
#include "core/util/Version.h"
#include "core/util/WallClock.h"
#include "experiments/ExperimentRunner.h"
#include "ui/timeline/ChartRenderer.h"

#include <QFileInfo>
#include <QSaveFile>
#include <algorithm>
#include <set>

namespace tierscope {

namespace {

std::vector<std::string> strings(const QStringList& list) {
    std::vector<std::string> out;
    for (const auto& s : list)
        if (!s.trimmed().isEmpty())
            out.push_back(s.trimmed().toStdString());
    return out;
}

// Whether any measured run of the side has a value for the KPI.
bool measures(const ComparisonSide& side, const std::string& kpi) {
    static const std::vector<StoredRequest> none;
    for (std::size_t i = 0; i < side.runs.size(); ++i) {
        if (!RunKpis::isMeasurement(side.runs[i]))
            continue;
        const auto& requests = i < side.requests.size() ? side.requests[i] : none;
        const RunTimeline* timeline = i < side.timelines.size() ? &side.timelines[i] : nullptr;
        if (RunKpis::of(side.runs[i], requests, timeline).count(kpi))
            return true;
    }
    return false;
}

} // namespace

ComparisonWorker::ComparisonWorker(QObject* parent) : QObject(parent) {
    qRegisterMetaType<tierscope::ComparisonChoice>();
    qRegisterMetaType<QList<tierscope::ComparisonChoice>>();
    qRegisterMetaType<QList<tierscope::ComparisonPair>>();
    qRegisterMetaType<tierscope::ComparisonResult>();
}

void ComparisonWorker::listChoices(const QString& db) {
    QList<ComparisonChoice> out;
    if (!QFileInfo::exists(db)) {
        emit choicesListed(out);
        return;
    }
    try {
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        // An arm executed in several sessions is one choice per execution, newest first.
        for (const auto& [experiment, arm] : store.arms()) {
            const std::string spec = "arm:" + experiment + "/" + arm;
            std::set<std::int64_t> sessions;
            for (const auto& run : store.runsOfArm(experiment, arm))
                sessions.insert(run.sessionId);
            if (sessions.size() <= 1) {
                out.push_back({QString::fromStdString(spec), QString::fromStdString(spec)});
                continue;
            }
            for (auto it = sessions.rbegin(); it != sessions.rend(); ++it) {
                const QString one = QString::fromStdString(spec + "@" + std::to_string(*it));
                out.push_back({one, one});
            }
        }
        const auto sessions = store.sessions();
        for (auto it = sessions.rbegin(); it != sessions.rend(); ++it) {
            const auto runs = store.runsOfSession(it->id);
            if (runs.empty())
                continue; // nothing was measured in it: nothing to compare
            out.push_back({QString("session:%1").arg(it->id),
                           QString("session:%1  %2 [%3], %4 run(s)")
                               .arg(it->id)
                               .arg(QString::fromStdString(it->label),
                                    QString::fromStdString(it->storageProfile))
                               .arg(runs.size())});
            for (const auto& r : runs)
                out.push_back(
                    {QString("run:%1").arg(r.id),
                     QString("run:%1  %2 %3 %4")
                         .arg(r.id)
                         .arg(QString::fromStdString(r.workload), QString::fromStdString(r.arm),
                              QString::fromStdString(r.status))});
        }
    } catch (const std::exception& e) {
        emit failed(0, QString::fromStdString(e.what()));
    }
    emit choicesListed(out);
}

void ComparisonWorker::compare(const QString& db, const QString& a, const QString& b,
                               const QStringList& gates, const QStringList& presets,
                               quint64 request, const QString& labelA, const QString& labelB,
                               const SvgChart::Style& style, QSize chartSize) {
    try {
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        ComparisonBuilder::Options options;
        options.gates = ComparisonBuilder::gates(strings(gates), strings(presets));
        const auto sideA = ComparisonBuilder::resolve(store, a.trimmed().toStdString());
        const auto sideB = ComparisonBuilder::resolve(store, b.trimmed().toStdString());
        auto in = ComparisonBuilder::build(store, sideA, sideB, options);
        ComparisonCharts::attach(in, sideA, sideB, chartSize.width(), chartSize.height(), style);
        if (!labelA.isEmpty())
            in.labelA = labelA.toStdString();
        if (!labelB.isEmpty())
            in.labelB = labelB.toStdString();
        in.toolVersion = kToolVersion;
        in.generatedUtc = UnitFormat::utcTime(WallClock().nowNs());
        // Measured on one side only is undecided; measured on neither, the gate is for
        // another workload and does not apply here.
        QList<int> notApplicable;
        for (std::size_t i = 0; i < in.gates.size(); ++i) {
            const Gate& gate = in.gates[i].first;
            Gate::Result& verdict = in.gates[i].second;
            const bool row =
                std::any_of(in.kpis.begin(), in.kpis.end(),
                            [&](const KpiComparison& k) { return k.name == gate.kpi; });
            if (verdict.verdict != Gate::Verdict::Inconclusive || row ||
                measures(sideA, gate.kpi) || measures(sideB, gate.kpi))
                continue;
            notApplicable << static_cast<int>(i);
            verdict.reason = "does not apply: neither side measured " + gate.kpi;
        }
        emit compared(request, in, notApplicable);
    } catch (const std::exception& e) {
        emit failed(request, QString::fromStdString(e.what()));
    }
}

void ComparisonWorker::experimentPairs(const QString& db, qint64 sessionId,
                                       const QString& planText) {
    QList<ComparisonPair> out;
    QStringList gates;
    try {
        const auto plan = ExperimentPlan::parse(planText.toStdString());
        for (const auto& g : plan.gates)
            gates << QString::fromStdString(g);
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        const auto runs = store.runsOfSession(sessionId);
        for (const auto& variant : plan.variants()) {
            const std::string experiment = ExperimentRunner::experimentName(plan, variant);
            auto spec = [&](const ExperimentPlan::Arm& arm) {
                QStringList ids;
                for (const auto& r : runs)
                    if (r.experiment == experiment && r.arm == arm.label && r.status == "completed")
                        ids << QString::number(r.id);
                return ids.isEmpty() ? QString() : "run:" + ids.join(',');
            };
            auto label = [&](const ExperimentPlan::Arm& arm) {
                return QString::fromStdString(
                    arm.label +
                    (arm.storageProfile.empty() ? "" : " [" + arm.storageProfile + "]") + ", " +
                    experiment + ", session " + std::to_string(sessionId));
            };
            for (std::size_t b = 1; b < plan.arms.size(); ++b)
                out.push_back({QString::fromStdString(experiment + ": " + plan.arms[0].label +
                                                      " vs " + plan.arms[b].label),
                               spec(plan.arms[0]), spec(plan.arms[b]), label(plan.arms[0]),
                               label(plan.arms[b])});
        }
    } catch (const std::exception& e) {
        emit failed(0, QString::fromStdString(e.what()));
    }
    emit experimentListed(out, gates);
}

void ComparisonWorker::exportReport(const ComparisonResult& in, const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    const std::string format = suffix == "htm" ? "html" : suffix.toStdString();
    const std::string text = ComparisonReport::render(format, in);
    try {
        ReportFile::write(path.toStdString(), text);
    } catch (const std::exception& e) {
        emit exported(path, QString::fromStdString(e.what()));
        return;
    }
    emit exported(path, {});
}

void ComparisonWorker::exportChart(const QByteArray& svg, const QString& path, QSize size,
                                   int dpi) {
    const auto format = ChartRenderer::formatOf(path);
    if (!format) {
        emit exported(path, tr("%1: charts export as .svg, .png or .pdf").arg(path));
        return;
    }
    emit exported(path, ChartRenderer::write(svg, path, *format, size, dpi));
}

} // namespace tierscope
