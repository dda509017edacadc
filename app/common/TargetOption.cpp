#include "app/common/TargetOption.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"

#include <iostream>

namespace tierscope {

namespace {

std::vector<std::string>& commandLine() {
    static std::vector<std::string> argv;
    return argv;
}

} // namespace

void TargetOption::setCommandLine(int argc, char** argv) {
    commandLine().assign(argv, argv + argc);
}

std::vector<std::string> TargetOption::forwardedArgs(const std::string& subcommand,
                                                     const std::string& plan) {
    return forwardedArgs(commandLine(), subcommand, plan);
}

std::vector<std::string> TargetOption::forwardedArgs(const std::vector<std::string>& argv,
                                                     const std::string& subcommand,
                                                     const std::string& plan) {
    std::vector<std::string> out;
    bool found = false;
    bool planDone = false;
    for (std::size_t i = 1; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (!found) {
            found = a == subcommand;
            if (found)
                out.push_back(a);
            continue;
        }
        bool dropped = false;
        for (const std::string option : {"--target", "--attach", "--report"}) {
            if (a == option) {
                ++i; // and its value
                dropped = true;
            } else if (a.rfind(option + "=", 0) == 0) {
                dropped = true;
            }
        }
        if (dropped)
            continue;
        if (!plan.empty() && !planDone && a == plan) {
            out.push_back("{plan}");
            planDone = true;
            continue;
        }
        out.push_back(a);
    }
    return out;
}

std::unique_ptr<SshSession> TargetOption::connect(const std::string& text, const char* command,
                                                  int& exitCode) {
    const auto parsed = SshTarget::parse(text);
    if (!parsed.target) {
        std::cerr << "tierscope " << command << ": " << parsed.error << "\n";
        exitCode = kExitUsage;
        return nullptr;
    }
    SshSession::Options options;
    options.cancel = &CancelOnSignal::flag();
    auto session = std::make_unique<SshSession>(*parsed.target, options);
    if (const auto failure = session->connect()) {
        std::cerr << "tierscope " << command << ": " << failure->line << "\n";
        exitCode = CancelOnSignal::flag() ? 128 + CancelOnSignal::signalNumber() : kExitRemote;
        return nullptr;
    }
    return session;
}

} // namespace tierscope
