#include "ui/experiment/ExperimentWorker.h"

#include "core/util/WallClock.h"
#include "experiments/ExperimentRunner.h"

namespace tierscope {

void ExperimentWorker::run(const QString& db, const QString& planText) {
    m_cancel = false;
    try {
        const auto plan = ExperimentPlan::parse(planText.toStdString());
        ExperimentRunner::Callbacks callbacks;
        callbacks.recording = [this](std::int64_t id, const std::vector<DeviceRecord>& devices) {
            emit recording(id, devices);
        };
        callbacks.started = [this](const ExperimentRunner::Step& s) {
            const std::string experiment =
                s.point.empty() ? s.experiment : s.experiment + " (" + s.point + ")";
            emit stepDescribed(static_cast<int>(s.index), QString::fromStdString(s.arm),
                               QString::fromStdString(experiment), s.warmup, s.repetition);
            emit stepStarted(static_cast<int>(s.index), WallClock().nowNs());
        };
        callbacks.finished = [this](const ExperimentRunner::Step& s,
                                    const ExperimentRunner::StepResult& r) {
            emit stepFinished(static_cast<int>(s.index), QString::fromStdString(r.status),
                              QString::fromStdString(r.detail));
        };
        callbacks.message = [this](const std::string& text) {
            emit message(QString::fromStdString(text));
        };
        ExperimentRunner::Options options;
        options.dbPath = db.toStdString();
        options.planText = planText.toStdString();
        options.observer = m_observer;
        ExperimentRunner runner(plan, options, callbacks);
        const auto result = runner.run(m_cancel);
        emit finished(result.sessionId, result.failed, result.incomplete, {});
    } catch (const std::exception& e) {
        emit finished(0, 0, true, QString::fromStdString(e.what()));
    }
}

} // namespace tierscope
