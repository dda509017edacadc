#include "app/commands/AgentCommand.h"

#include "agent/Agent.h"
#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "core/util/DurationParser.h"

#include <iostream>
#include <thread>

namespace tierscope {

CLI::App* AgentCommand::attach(CLI::App& parent, Options& o) {
    auto* cmd = parent.add_subcommand(
        "agent", "Serve this machine's GPU, block-device (with NVMe transport and NQN), NVMe "
                 "controller and host metrics as Prometheus /metrics, for a Prometheus server "
                 "to scrape");
    cmd->add_option("--listen", o.listen,
                    "HOST:PORT to listen on, [IPV6]:PORT for IPv6 (e.g. [::]:9464). Loopback "
                    "by default; any other address exposes the metrics to the network and must "
                    "be given explicitly")
        ->capture_default_str();
    cmd->add_option("--interval", o.interval, "How often GPUs and the host are sampled")
        ->capture_default_str();
    cmd->footer("Block counters are read at each scrape. Stop with Ctrl-C.");
    return cmd;
}

int AgentCommand::run(const Options& o) {
    const auto colon = o.listen.rfind(':');
    const auto interval = DurationParser::parse(o.interval);
    Agent::Options options;
    try {
        if (colon == std::string::npos)
            throw std::invalid_argument("no port");
        options.host = o.listen.substr(0, colon);
        options.port = std::stoi(o.listen.substr(colon + 1));
        if (options.host.empty() || options.port < 0 || options.port > 65535)
            throw std::invalid_argument("bad port");
    } catch (const std::exception&) {
        std::cerr << "tierscope agent: --listen is HOST:PORT, e.g. 127.0.0.1:9464\n";
        return kExitUsage;
    }
    if (!interval || *interval < std::chrono::milliseconds(100)) {
        std::cerr << "tierscope agent: --interval is a duration of at least 100ms\n";
        return kExitUsage;
    }
    options.interval = std::chrono::duration_cast<std::chrono::milliseconds>(*interval);
    if (!Agent::isLoopback(options.host))
        std::cerr << "tierscope agent: listening on " << options.host
                  << ", reachable from the network: anyone who can connect reads this "
                     "machine's device names and load\n";
    Agent agent(options);
    CancelOnSignal cancel;
    int port = 0;
    try {
        port = agent.start();
    } catch (const std::exception& e) {
        std::cerr << "tierscope agent: " << e.what() << "\n";
        return kExitFailure;
    }
    const bool bare6 = options.host.find(':') != std::string::npos && options.host[0] != '[';
    const std::string shown = bare6 ? "[" + options.host + "]" : options.host;
    std::cerr << "tierscope agent: serving http://" << shown << ":" << port
              << "/metrics (Ctrl-C stops)\n";
    while (!CancelOnSignal::flag())
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    agent.stop();
    return kExitOk;
}

} // namespace tierscope
