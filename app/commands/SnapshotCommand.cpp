#include "app/commands/SnapshotCommand.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "core/store/Store.h"
#include "core/store/WorkspaceMerge.h"
#include "core/util/FileDescriptor.h"
#include "remote/RemoteStreamWriter.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace tierscope {

CLI::App* SnapshotCommand::attach(CLI::App& parent, Options& o) {
    auto* cmd = parent.add_subcommand(
        "snapshot", "Write sessions of this workspace to stdout as a workspace file (what a "
                    "workstation's `tierscope pull` runs here)");
    cmd->add_option("--session", o.session, "Only this session");
    cmd->add_option("--experiment", o.experiment, "Only the sessions of this experiment");
    return cmd;
}

int SnapshotCommand::run(const GlobalOptions& global, const Options& o) {
    std::signal(SIGPIPE, SIG_IGN);
    const std::string db = global.dbPath();
    if (!std::filesystem::exists(db)) {
        std::cerr << "tierscope snapshot: no workspace at " << db << "\n";
        return kExitNotFound;
    }
    // The copy is made in a private directory under TMPDIR, not beside the workspace: a
    // read-only workspace can be snapshot, and nothing is left beside it. It is unlinked as
    // soon as it is open for streaming, so only a kill during the copy leaves it, in TMPDIR.
    const char* tmp = std::getenv("TMPDIR");
    std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/tierscope-snapshot-XXXXXX";
    if (!mkdtemp(dir.data())) {
        std::cerr << "tierscope snapshot: cannot create a directory in " << dir << ": "
                  << std::strerror(errno) << "\n";
        return kExitCannotWrite;
    }
    const auto temp = std::filesystem::path(dir) / "snapshot.db";
    auto removeAll = [&] {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    };
    WorkspaceMerge::Selection selection;
    if (o.session > 0)
        selection.session = o.session;
    selection.experiment = o.experiment;
    std::size_t sessions = 0;
    try {
        sessions = WorkspaceMerge::extract(db, temp.string(), selection);
        Store(temp.string(), Store::Mode::ReadWrite).db().exec("PRAGMA journal_mode = DELETE");
    } catch (...) {
        removeAll();
        throw;
    }
    const int fd = open(temp.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    const bool opened = fd >= 0 && fstat(fd, &st) == 0;
    removeAll();
    if (!opened || CancelOnSignal::flag()) {
        if (fd >= 0)
            close(fd);
        if (CancelOnSignal::flag())
            return 128 + CancelOnSignal::signalNumber();
        std::cerr << "tierscope snapshot: cannot read its copy\n";
        return kExitIo;
    }
    const auto size = static_cast<std::uintmax_t>(st.st_size);
    RemoteStreamWriter writer(
        [](const std::string& line) { return FileDescriptor::writeAll(STDOUT_FILENO, line); });
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    writer.hello("snapshot", host, 0);
    const std::string header = "{\"type\":\"snapshot\",\"bytes\":" + std::to_string(size) +
                               ",\"sessions\":" + std::to_string(sessions) + "}\n";
    bool ok = !writer.failed() && FileDescriptor::writeAll(STDOUT_FILENO, header);
    char buffer[65536];
    while (ok && !CancelOnSignal::flag()) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ok = n == 0;
            break;
        }
        ok = FileDescriptor::writeAll(STDOUT_FILENO,
                                      std::string_view(buffer, static_cast<std::size_t>(n)));
    }
    close(fd);
    if (CancelOnSignal::flag())
        return 128 + CancelOnSignal::signalNumber();
    return ok ? kExitOk : kExitFailure;
}

} // namespace tierscope
