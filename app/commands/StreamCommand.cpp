#include "app/commands/StreamCommand.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "collectors/Recorder.h"
#include "core/store/Store.h"
#include "core/util/DurationParser.h"
#include "core/util/FileDescriptor.h"
#include "core/util/WallClock.h"
#include "remote/RemoteStreamWriter.h"

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <poll.h>
#include <unistd.h>

namespace tierscope {

namespace {

// True once stdin reached its end: the workstation closed it, or its connection is gone.
bool inputEnded(int waitMs) {
    pollfd p{STDIN_FILENO, POLLIN, 0};
    if (::poll(&p, 1, waitMs) <= 0)
        return false;
    char buffer[256];
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    return n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
}

} // namespace

CLI::App* StreamCommand::attach(CLI::App& parent, Options& o) {
    auto* cmd = parent.add_subcommand(
        "stream", "Record this machine into its workspace and stream the recording to stdout as "
                  "JSON lines (what a workstation's --target ssh://THIS-HOST runs here)");
    cmd->add_option("--interval", o.interval, "Sampling interval, 100ms..10s")
        ->capture_default_str();
    cmd->add_option("--duration", o.duration, "Stop after this long; default: until stdin ends");
    cmd->add_option("--label", o.label, "Session label");
    cmd->add_option("--storage-profile", o.storageProfile, "Storage configuration under test");
    return cmd;
}

int StreamCommand::run(const GlobalOptions& global, const Options& o) {
    const auto interval = DurationParser::parse(o.interval);
    if (!interval || *interval < std::chrono::milliseconds(100) ||
        *interval > std::chrono::seconds(10)) {
        std::cerr << "tierscope stream: --interval must be between 100ms and 10s\n";
        return kExitUsage;
    }
    std::optional<std::chrono::nanoseconds> duration;
    if (!o.duration.empty()) {
        duration = DurationParser::parse(o.duration);
        if (!duration || duration->count() <= 0) {
            std::cerr << "tierscope stream: --duration must be a positive duration\n";
            return kExitUsage;
        }
    }
    // A workstation that went away makes writes fail with EPIPE: an end, not a death.
    std::signal(SIGPIPE, SIG_IGN);
    const std::string db = global.dbPath();
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(db).parent_path(), ec);

    RemoteStreamWriter writer(
        [](const std::string& bytes) { return FileDescriptor::writeAll(STDOUT_FILENO, bytes); });
    Recorder::Options r;
    r.dbPath = db;
    r.label = o.label.empty() ? "streamed over ssh" : o.label;
    r.storageProfile = o.storageProfile;
    r.interval = *interval;
    r.observer = &writer;
    Recorder recorder(r);
    std::string host;
    {
        Store store(db, Store::Mode::ReadOnly);
        host = store.session(recorder.sessionId())->host;
    }
    writer.hello("stream", host, recorder.sessionId());
    for (const auto& d : recorder.devices())
        writer.device(d);

    CancelOnSignal cancel({SIGINT, SIGTERM, SIGHUP});
    const auto started = std::chrono::steady_clock::now();
    auto nextBeat = started + std::chrono::seconds(1);
    std::string reason = "stopped";
    recorder.start();
    for (;;) {
        if (CancelOnSignal::flag()) {
            reason = "stopped by a signal on the server";
            break;
        }
        if (writer.failed()) {
            reason = "the workstation went away";
            break;
        }
        if (recorder.error()) {
            reason = "the server's workspace refused a write: " + *recorder.error();
            break;
        }
        const auto now = std::chrono::steady_clock::now();
        if (duration && now - started >= *duration) {
            reason = "duration reached";
            break;
        }
        if (now >= nextBeat) {
            writer.heartbeat(WallClock::systemNowNs());
            nextBeat = now + std::chrono::seconds(1);
        }
        if (inputEnded(100)) {
            reason = "stopped by the workstation";
            break;
        }
    }
    recorder.stop();
    writer.end(reason + "; session " + std::to_string(recorder.sessionId()) + " kept in " + db);
    return recorder.error() ? kExitCannotWrite : kExitOk;
}

} // namespace tierscope
