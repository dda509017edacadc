#include "app/commands/PullCommand.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "app/common/TargetOption.h"
#include "app/common/TerminalOutput.h"
#include "core/store/Store.h"
#include "core/store/WorkspaceMerge.h"
#include "core/util/FileDescriptor.h"
#include "remote/RemoteStreamReader.h"
#include "remote/SshProcess.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace tierscope {

namespace {

constexpr std::uint64_t kMaxSnapshot = std::uint64_t(64) << 30;
constexpr std::size_t kMaxHeader = 64 * 1024;

// Ctrl-C or SIGTERM: the ssh processes end with their objects, the partial copy is removed.
int interrupted() {
    std::cerr << "tierscope pull: interrupted, nothing pulled\n";
    return 128 + CancelOnSignal::signalNumber();
}

// The snapshot's two header lines, and the bytes of its body that came with them.
std::pair<std::string, std::string> readHeader(SshProcess& p) {
    std::string header;
    std::string body;
    std::size_t newlines = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (newlines < 2 && !p.eof() && std::chrono::steady_clock::now() < deadline &&
           header.size() < kMaxHeader && !CancelOnSignal::flag()) {
        const auto bytes = p.read(std::chrono::milliseconds(500));
        for (std::size_t i = 0; i < bytes.size(); ++i) {
            if (newlines == 2) {
                body.append(bytes, i);
                break;
            }
            header += bytes[i];
            newlines += bytes[i] == '\n';
        }
    }
    return {std::move(header), std::move(body)};
}

void printMerged(const std::vector<WorkspaceMerge::Merged>& merged, const std::string& host,
                 const std::string& db) {
    std::size_t added = 0;
    for (const auto& m : merged) {
        if (m.to > 0) {
            ++added;
            std::cout << "session " << m.from << " on " << host << " -> session " << m.to
                      << (m.label.empty()
                              ? ""
                              : " (" + TerminalOutput::shown(STDOUT_FILENO, m.label) + ")")
                      << "\n";
        }
    }
    std::cout << "pulled " << added << " session" << (added == 1 ? "" : "s") << " from " << host
              << " into " << db;
    if (merged.size() > added)
        std::cout << "; " << merged.size() - added << " already here";
    std::cout << "\n";
}

} // namespace

CLI::App* PullCommand::attach(CLI::App& parent, Options& o) {
    auto* cmd = parent.add_subcommand(
        "pull", "Copy sessions, runs, requests and devices from a server's workspace into this "
                "one, with new ids and their origin (pulling twice adds nothing)");
    cmd->add_option("target", o.target, "ssh://[user@]host[:port]")->required();
    cmd->add_option("--session", o.session, "Only this session (the server's id)");
    cmd->add_option("--experiment", o.experiment, "Only the sessions of this experiment");
    return cmd;
}

int PullCommand::run(const GlobalOptions& global, const Options& o) {
    if (!TargetOption::remote(o.target)) {
        std::cerr << "tierscope pull: name a server, ssh://[user@]host[:port]\n";
        return kExitUsage;
    }
    int rc = kExitOk;
    const auto session = TargetOption::connect(o.target, "pull", rc);
    if (!session)
        return rc;
    std::vector<std::string> args{"snapshot"};
    if (o.session > 0)
        args.insert(args.end(), {"--session", std::to_string(o.session)});
    if (!o.experiment.empty())
        args.insert(args.end(), {"--experiment", o.experiment});
    auto p = session->start(args, false);

    // Two lines, then exactly the announced bytes into a private temporary file.
    auto [header, body] = readHeader(*p);
    if (CancelOnSignal::flag())
        return interrupted();
    std::string host;
    RemoteStreamReader::Callbacks callbacks;
    callbacks.hello = [&host](const RemoteStreamReader::Hello& h) { host = h.host; };
    RemoteStreamReader reader(callbacks);
    const auto firstEnd = header.find('\n');
    reader.feed(header.substr(0, firstEnd == std::string::npos ? header.size() : firstEnd + 1));
    if (!reader.helloSeen()) {
        const auto code = p->wait(std::chrono::seconds(10));
        std::cerr << "tierscope pull: "
                  << (reader.incompatible() || !code || *code == 0
                          ? reader.error()
                          : session->diagnose(*code, p->stderrText()).line)
                  << "\n";
        return kExitRemote;
    }
    const auto second = nlohmann::json::parse(
        firstEnd == std::string::npos ? std::string() : header.substr(firstEnd + 1), nullptr,
        false);
    if (!second.is_object() || second.value("type", "") != "snapshot" ||
        !second.contains("bytes") || !second["bytes"].is_number_unsigned() ||
        second["bytes"].get<std::uint64_t>() > kMaxSnapshot || host.empty()) {
        std::cerr << "tierscope pull: the server's snapshot header is malformed\n";
        return kExitRemote;
    }
    const std::uint64_t size = second["bytes"].get<std::uint64_t>();
    const std::string db = global.dbPath();
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(db).parent_path(), ec);
    // The server's workspace lands in a new private file beside ours: created here (never
    // through a name someone planted), 0600, removed on every way out but success.
    const std::string temp = db + ".pull-" + std::to_string(getpid());
    const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        std::cerr << "tierscope pull: cannot create " << temp << ": " << std::strerror(errno)
                  << "\n";
        return kExitCannotWrite;
    }
    auto fail = [&](int code, const std::string& why) {
        close(fd);
        std::filesystem::remove(temp, ec);
        if (!why.empty())
            std::cerr << "tierscope pull: " << why << "\n";
        return code;
    };
    std::uint64_t written = std::min<std::uint64_t>(body.size(), size);
    bool ok = FileDescriptor::writeAll(fd, std::string_view(body.data(), written));
    auto heard = std::chrono::steady_clock::now();
    while (ok && written < size && !p->eof()) {
        if (CancelOnSignal::flag())
            return fail(interrupted(), {});
        const auto bytes = p->read(std::chrono::milliseconds(200));
        const auto now = std::chrono::steady_clock::now();
        if (bytes.empty()) {
            if (now - heard > std::chrono::seconds(30))
                return fail(kExitRemote, "the server went silent for 30 s");
            continue;
        }
        heard = now;
        const auto take = std::min<std::uint64_t>(bytes.size(), size - written);
        ok = FileDescriptor::writeAll(fd, std::string_view(bytes.data(), take));
        written += take;
    }
    if (!ok)
        return fail(kExitCannotWrite, "cannot write " + temp + ": " + std::strerror(errno));
    if (written < size) {
        const auto code = p->wait(std::chrono::seconds(10));
        return fail(kExitRemote, code && *code == 255 ? session->diagnose(255, p->stderrText()).line
                                                      : "the snapshot arrived incomplete");
    }
    if (close(fd) != 0) {
        std::filesystem::remove(temp, ec);
        std::cerr << "tierscope pull: cannot write " << temp << "\n";
        return kExitCannotWrite;
    }
    p->wait(std::chrono::seconds(10));
    std::vector<WorkspaceMerge::Merged> merged;
    try {
        Store local(db, Store::Mode::ReadWrite);
        merged = WorkspaceMerge::merge(local, temp, host);
    } catch (...) {
        std::filesystem::remove(temp, ec);
        throw;
    }
    std::filesystem::remove(temp, ec);
    printMerged(merged, host, db);
    return kExitOk;
}

} // namespace tierscope
