#include "ui/ExperimentWorker.h"

#include "experiments/ExperimentRunner.h"

namespace tierscope {

void ExperimentWorker::run(const QString& db, const QString& planText) {
    m_cancel = false;
    try {
        const auto plan = ExperimentPlan::parse(planText.toStdString());
        ExperimentRunner::Callbacks callbacks;
        callbacks.started = [this](const ExperimentRunner::Step& s) {
            emit stepStarted(static_cast<int>(s.index));
        };
        callbacks.finished = [this](const ExperimentRunner::Step& s,
                                    const ExperimentRunner::StepResult& r) {
            emit stepFinished(static_cast<int>(s.index), QString::fromStdString(r.status),
                              QString::fromStdString(r.detail));
        };
        callbacks.message = [this](const std::string& text) {
            emit message(QString::fromStdString(text));
        };
        ExperimentRunner runner(plan, {db.toStdString(), planText.toStdString()}, callbacks);
        const auto result = runner.run(m_cancel);
        emit finished(result.sessionId, result.failed, result.incomplete, {});
    } catch (const std::exception& e) {
        emit finished(0, 0, true, QString::fromStdString(e.what()));
    }
}

} // namespace tierscope
