#include "app/common/RemoteJob.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "app/common/TargetOption.h"
#include "app/common/TerminalOutput.h"
#include "core/report/ReportFile.h"
#include "remote/RemoteStreamReader.h"
#include "remote/SshDiagnosis.h"
#include "remote/SshSession.h"

#include <algorithm>
#include <iostream>

namespace tierscope {

namespace {

// The report as the terminal may show it: the server's text without control sequences.

std::optional<std::string> startJob(SshSession& session, const RemoteJob::Request& r,
                                    std::string& error) {
    std::vector<std::string> args{"job", "start"};
    const bool withPlan =
        std::find(r.args.begin(), r.args.end(), std::string("{plan}")) != r.args.end();
    if (withPlan)
        args.push_back("--plan-stdin");
    args.push_back("--");
    args.insert(args.end(), r.args.begin(), r.args.end());
    const auto c =
        session.run(args, withPlan ? r.planText : std::string(), std::chrono::seconds(60));
    std::string id;
    RemoteStreamReader::Callbacks callbacks;
    callbacks.job = [&id](const std::string& j) { id = j; };
    RemoteStreamReader reader(callbacks);
    reader.feed(c.out);
    if (c.timedOut) {
        error = "the server did not start the job within 60 s";
        return std::nullopt;
    }
    if (c.exitCode != 0 || !reader.helloSeen()) {
        error = reader.incompatible() ? reader.error() : session.diagnose(c.exitCode, c.err).line;
        return std::nullopt;
    }
    if (reader.broken() || id.empty()) {
        error = reader.broken() ? reader.error() : "the server named no job";
        return std::nullopt;
    }
    return id;
}

} // namespace

int RemoteJob::start(const std::string& target, const std::string& command,
                     const std::vector<std::string>& args, const std::string& planText,
                     const std::string& reportPath) {
    int rc = kExitOk;
    const auto session = TargetOption::connect(target, command.c_str(), rc);
    if (!session)
        return rc;
    return run(*session, {command, args, planText, {}, reportPath, target});
}

int RemoteJob::attach(const std::string& target, const std::string& command, const std::string& id,
                      const std::string& reportPath) {
    if (!RemoteStreamReader::validJobId(id)) {
        std::cerr << "tierscope " << command << ": \"" << id << "\" is not a job id\n";
        return kExitUsage;
    }
    int rc = kExitOk;
    const auto session = TargetOption::connect(target, command.c_str(), rc);
    if (!session)
        return rc;
    return run(*session, {command, {}, {}, id, reportPath, target});
}

int RemoteJob::run(SshSession& session, const Request& r) {
    const std::string host = session.target().host;
    std::string id = r.attachId;
    if (id.empty()) {
        std::string error;
        const auto started = startJob(session, r, error);
        if (!started) {
            std::cerr << "tierscope " << r.command << ": " << error << "\n";
            return kExitRemote;
        }
        id = *started;
    }
    std::cerr << "job " << id << " on " << host << " (reattach: tierscope run --target "
              << r.targetText << " --attach " << id << ")\n";

    std::optional<int> exitCode;
    std::string ended;
    RemoteStreamReader::Callbacks callbacks;
    callbacks.log = [](const std::string& line) {
        std::cerr << TerminalOutput::shown(STDERR_FILENO, line) << "\n";
    };
    callbacks.exit = [&exitCode](int code) { exitCode = code; };
    callbacks.end = [&ended](const std::string& reason) {
        ended = reason.empty() ? "end" : reason;
    };
    RemoteStreamReader reader(callbacks);
    CancelOnSignal cancel;
    bool cancelSent = false;
    auto follow = session.start({"job", "follow", id});
    auto lastLine = std::chrono::steady_clock::now();
    bool silent = false;
    bool leftStopping = false;
    std::chrono::steady_clock::time_point stopDeadline;
    while (!follow->eof() && !reader.broken() && ended.empty()) {
        // Ctrl-C stops the job's group on the server and shows its end when that comes within
        // 2 s; a job whose teardown takes longer finishes there, and this command does not
        // keep the user waiting for it.
        if (cancelSent && std::chrono::steady_clock::now() > stopDeadline) {
            leftStopping = true;
            break;
        }
        if (CancelOnSignal::flag() && !cancelSent) {
            cancelSent = true;
            stopDeadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
            std::cerr << "stopping job " << id << " on " << host << " ...\n";
            const auto c = session.run({"job", "cancel", id}, {}, std::chrono::seconds(5));
            if (c.exitCode != 0)
                std::cerr << "tierscope " << r.command << ": "
                          << session.diagnose(c.exitCode, c.err).line << "\n";
        }
        const auto bytes = follow->read(std::chrono::milliseconds(200));
        const auto now = std::chrono::steady_clock::now();
        if (!bytes.empty()) {
            lastLine = now;
            reader.feed(bytes);
        } else if (now - lastLine > std::chrono::seconds(15)) {
            silent = true;
            break;
        }
    }
    if (leftStopping) {
        follow->terminate();
        std::cerr << "tierscope " << r.command << ": job " << id << " on " << host
                  << " is stopping (its teardown goes on there; what ran is kept): tierscope run "
                  << "--target " << r.targetText << " --attach " << id << " shows its end\n";
        return 128 + CancelOnSignal::signalNumber();
    }
    const int code =
        follow->eof() ? follow->wait(std::chrono::seconds(5)).value_or(255) : 255; // 255: lost
    follow->terminate();
    if (!exitCode) {
        std::string why;
        if (reader.broken())
            why = reader.error();
        else if (!ended.empty())
            why = "the job on " + host + " ended: " + ended;
        else if (silent || code == 255)
            why = "the connection to " + host + " was lost; job " + id +
                  " goes on there: reattach with tierscope run --target " + r.targetText +
                  " --attach " + id;
        else
            why = session.diagnose(code, follow->stderrText()).line;
        std::cerr << "tierscope " << r.command << ": " << why << "\n";
        return kExitRemote;
    }
    const auto report =
        session.run({"job", "output", id}, {}, std::chrono::seconds(120), std::size_t(16) << 20);
    if (report.exitCode == 0) {
        if (r.reportPath.empty()) {
            std::cout << TerminalOutput::shown(STDOUT_FILENO, report.out);
        } else {
            try {
                ReportFile::write(r.reportPath, report.out);
            } catch (const std::exception& e) {
                std::cerr << "tierscope " << r.command << ": " << e.what() << "\n";
                return kExitCannotWrite;
            }
        }
    }
    return *exitCode;
}

} // namespace tierscope
