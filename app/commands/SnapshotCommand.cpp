#include "app/commands/SnapshotCommand.h"

#include "app/common/ExitCode.h"
#include "remote/RemoteStreamWriter.h"
#include "core/store/Store.h"
#include "core/store/WorkspaceMerge.h"

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace tierscope {

namespace {

bool writeAll(const char* data, std::size_t size) {
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(STDOUT_FILENO, data + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

} // namespace

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
    const auto temp =
        std::filesystem::path(db).parent_path() / ("snapshot-" + std::to_string(getpid()) + ".db");
    WorkspaceMerge::Selection selection;
    if (o.session > 0)
        selection.session = o.session;
    selection.experiment = o.experiment;
    std::size_t sessions = 0;
    try {
        sessions = WorkspaceMerge::extract(db, temp.string(), selection);
        Store(temp.string(), Store::Mode::ReadWrite).db().exec("PRAGMA journal_mode = DELETE");
    } catch (...) {
        std::error_code ec;
        std::filesystem::remove(temp, ec);
        throw;
    }
    const auto size = std::filesystem::file_size(temp);
    RemoteStreamWriter writer(
        [](const std::string& line) { return writeAll(line.data(), line.size()); });
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    writer.hello("snapshot", host, 0);
    const std::string header = "{\"type\":\"snapshot\",\"bytes\":" + std::to_string(size) +
                               ",\"sessions\":" + std::to_string(sessions) + "}\n";
    bool ok = !writer.failed() && writeAll(header.data(), header.size());
    std::ifstream in(temp, std::ios::binary);
    char buffer[65536];
    while (ok && (in.read(buffer, sizeof buffer) || in.gcount() > 0))
        ok = writeAll(buffer, static_cast<std::size_t>(in.gcount()));
    std::error_code ec;
    std::filesystem::remove(temp, ec);
    return ok ? kExitOk : kExitFailure;
}

} // namespace tierscope
