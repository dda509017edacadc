#pragma once

#include <QString>

namespace tierscope {

// One line of what `tierscope run --target ssh://...` writes to stderr while it follows a job
// on the server, for the experiment dialog: the job it started, a run that started ("[3/8]
// arm, experiment, repetition 1"), the status of the run that just ended ("  completed:
// 12.1 s"), the experiment's last line with the server's session ("experiment "x": 4 runs, 0
// failed; session 7 in ..."), or any other line (shown as it is).
class RemoteRunLog {
  public:
    struct Line {
        enum class Kind { Job, RunStarted, RunFinished, Ended, Other };
        Kind kind = Kind::Other;
        QString jobId;      // Job
        QString host;       // Job
        int index = -1;     // RunStarted: from 0
        int total = 0;      // RunStarted
        QString status;     // RunFinished
        QString detail;     // RunFinished
        qint64 session = 0; // Ended: in the server's workspace
    };
    static Line parse(const QString& line);
};

} // namespace tierscope
