#include "ui/experiment/RemoteRunLog.h"

#include <QRegularExpression>

namespace tierscope {

RemoteRunLog::Line RemoteRunLog::parse(const QString& text) {
    static const QRegularExpression job(R"(^job ([0-9]+-[0-9]+) on (\S+) \(reattach: )");
    static const QRegularExpression started(R"(^\[([0-9]{1,6})/([0-9]{1,6})\] )");
    static const QRegularExpression finished(R"(^  ([a-z][a-z-]*): (.*)$)");
    static const QRegularExpression ended(
        R"(^experiment ".*": [0-9]+ runs, .*; session ([0-9]{1,18}) in )");
    Line line;
    if (const auto m = job.match(text); m.hasMatch()) {
        line.kind = Line::Kind::Job;
        line.jobId = m.captured(1);
        line.host = m.captured(2);
    } else if (const auto s = started.match(text); s.hasMatch()) {
        line.index = s.captured(1).toInt() - 1;
        line.total = s.captured(2).toInt();
        if (line.index >= 0 && line.index < line.total)
            line.kind = Line::Kind::RunStarted;
    } else if (const auto e = ended.match(text); e.hasMatch()) {
        line.kind = Line::Kind::Ended;
        line.session = e.captured(1).toLongLong();
    } else if (const auto f = finished.match(text); f.hasMatch()) {
        line.kind = Line::Kind::RunFinished;
        line.status = f.captured(1);
        line.detail = f.captured(2);
    }
    return line;
}

} // namespace tierscope
