#include "ui/experiment/ExperimentWorker.h"

#include "core/compare/SequentialLook.h"
#include "core/util/WallClock.h"
#include "experiments/CalibrationPlan.h"
#include "experiments/ExperimentRunner.h"

namespace tierscope {

void ExperimentWorker::run(const QString& db, const QString& planText) {
    m_cancel = false;
    try {
        auto plan = ExperimentPlan::parse(planText.toStdString());
        // Steps are numbered across the calibration and the experiment, as the dialog lists them.
        int offset = 0;
        ExperimentRunner::Callbacks callbacks;
        callbacks.recording = [this](std::int64_t id, const std::vector<DeviceRecord>& devices) {
            emit recording(id, devices);
        };
        callbacks.started = [this, &offset](const ExperimentRunner::Step& s) {
            const std::string experiment =
                s.point.empty() ? s.experiment : s.experiment + " (" + s.point + ")";
            emit stepDescribed(offset + static_cast<int>(s.index), QString::fromStdString(s.arm),
                               QString::fromStdString(experiment), s.warmup, s.repetition);
            emit stepStarted(offset + static_cast<int>(s.index), WallClock().nowNs());
        };
        callbacks.finished = [this, &offset](const ExperimentRunner::Step& s,
                                             const ExperimentRunner::StepResult& r) {
            emit stepFinished(offset + static_cast<int>(s.index), QString::fromStdString(r.status),
                              QString::fromStdString(r.detail));
        };
        callbacks.message = [this](const std::string& text) {
            emit message(QString::fromStdString(text));
        };
        callbacks.looked = [this](int repetitions, const std::vector<ComparisonResult>& in) {
            emit looked(repetitions, QString::fromStdString(SequentialLook::of(in).toJsonText()));
        };
        ExperimentRunner::Options options;
        options.dbPath = db.toStdString();
        options.planText = planText.toStdString();
        options.observer = m_observer;
        if (plan.calibrate) {
            const auto calibration = CalibrationPlan::of(plan);
            emit message(tr("A/A calibration first: %1 against itself")
                             .arg(QString::fromStdString(plan.arms.front().label)));
            ExperimentRunner first(calibration, options, callbacks);
            const auto done = first.run(m_cancel);
            if (done.incomplete) {
                emit finished(done.sessionId, done.failed, true, {});
                return;
            }
            plan.noiseFloorSession = done.sessionId;
            offset = static_cast<int>(done.runs);
        }
        ExperimentRunner runner(plan, options, callbacks);
        const auto result = runner.run(m_cancel);
        emit finished(result.sessionId, result.failed, result.incomplete, {});
    } catch (const std::exception& e) {
        emit finished(0, 0, true, QString::fromStdString(e.what()));
    }
}

} // namespace tierscope
