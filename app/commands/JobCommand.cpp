#include "app/commands/JobCommand.h"

#include "app/common/ExitCode.h"
#include "remote/JobHost.h"
#include "remote/RemoteStreamReader.h"

#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

namespace tierscope {

namespace {

constexpr std::size_t kMaxPlan = 1 << 20;

std::filesystem::path jobsDirectory(const GlobalOptions& global) {
    return std::filesystem::path(global.dbPath()).parent_path() / "jobs";
}

int start(const JobHost& host, const GlobalOptions& global, const JobCommand::Options& o) {
    if (o.args.empty() || (o.args[0] != "run" && o.args[0] != "storage")) {
        std::cerr << "tierscope job start: only `run` and `storage` commands run as jobs\n";
        return kExitUsage;
    }
    std::optional<std::string> plan;
    if (o.planStdin) {
        std::ostringstream in;
        in << std::cin.rdbuf();
        plan = in.str();
        if (plan->size() > kMaxPlan) {
            std::cerr << "tierscope job start: the plan is larger than 1 MiB\n";
            return kExitUsage;
        }
    }
    const auto started = host.start(global.dbPath(), o.args, plan);
    if (started.status == JobHost::Started::Status::Started)
        return kExitOk;
    std::cerr << "tierscope job start: " << started.error << "\n";
    return started.status == JobHost::Started::Status::CannotWrite ? kExitCannotWrite
                                                                   : kExitFailure;
}

} // namespace

CLI::App* JobCommand::attach(CLI::App& parent, Options& o) {
    auto* job = parent.add_subcommand(
        "job", "Jobs on this machine started by a workstation's --target (run, storage run)");
    job->require_subcommand(1);
    auto* startCmd =
        job->add_subcommand("start", "Start tierscope ARGS... detached; prints its id");
    startCmd->add_flag("--plan-stdin", o.planStdin,
                       "Read the plan from stdin; {plan} in ARGS names its saved copy");
    startCmd->add_option("args", o.args, "The tierscope command, after --")->required();
    startCmd->callback([&o] { o.action = "start"; });
    for (const char* name : {"follow", "cancel", "output"}) {
        auto* cmd = job->add_subcommand(
            name, std::string(name) == "follow"   ? "Stream a job's progress from its start"
                  : std::string(name) == "cancel" ? "Stop a job (Ctrl-C to its process group)"
                                                  : "Print a job's report");
        cmd->add_option("id", o.id, "Job id")->required();
        if (std::string(name) == "cancel")
            cmd->add_flag("--force", o.force, "Kill the job's process group at once");
        cmd->callback([&o, name] { o.action = name; });
    }
    return job;
}

int JobCommand::run(const GlobalOptions& global, const Options& o) {
    const JobHost host(jobsDirectory(global));
    if (o.action == "start")
        return start(host, global, o);
    if (!RemoteStreamReader::validJobId(o.id)) {
        std::cerr << "tierscope job: \"" << o.id << "\" is not a job id\n";
        return kExitUsage;
    }
    if (!host.exists(o.id)) {
        std::cerr << "tierscope job: no job " << o.id << " in " << host.directory() << "\n";
        return kExitNotFound;
    }
    if (o.action == "follow") {
        host.follow(o.id);
        return kExitOk;
    }
    if (o.action == "cancel") {
        std::string error;
        switch (host.cancel(o.id, o.force, error)) {
        case JobHost::Cancel::AlreadyEnded:
            std::cout << "job " << o.id << " has already ended\n";
            return kExitOk;
        case JobHost::Cancel::Sent:
            std::cout << "job " << o.id << ": cancel sent\n";
            return kExitOk;
        case JobHost::Cancel::Failed:
            std::cerr << "tierscope job cancel: " << error << "\n";
            return kExitFailure;
        }
    }
    host.output(o.id);
    return kExitOk;
}

} // namespace tierscope
