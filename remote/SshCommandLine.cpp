#include "remote/SshCommandLine.h"

#include "core/util/ShellTemplate.h"

namespace tierscope {

SshCommandLine::SshCommandLine(SshTarget target, Options options)
    : m_target(std::move(target)), m_options(std::move(options)) {}

std::vector<std::string> SshCommandLine::common() const {
    std::vector<std::string> argv{m_options.program};
    if (!m_options.configFile.empty())
        argv.insert(argv.end(), {"-F", m_options.configFile});
    for (const std::string& o :
         {std::string("BatchMode=yes"),
          "ConnectTimeout=" + std::to_string(m_options.connectTimeout.count()),
          std::string("ServerAliveInterval=5"), std::string("ServerAliveCountMax=3"),
          std::string("ClearAllForwardings=yes"), std::string("ForwardAgent=no"),
          std::string("ForwardX11=no"), std::string("PermitLocalCommand=no"),
          std::string("RequestTTY=no"), "ControlPath=" + m_options.controlPath})
        argv.insert(argv.end(), {"-o", o});
    if (!m_target.user.empty())
        argv.insert(argv.end(), {"-l", m_target.user});
    if (m_target.port)
        argv.insert(argv.end(), {"-p", std::to_string(*m_target.port)});
    return argv;
}

void SshCommandLine::addDestination(std::vector<std::string>& argv) const {
    argv.push_back("--");
    argv.push_back(m_target.host);
}

std::vector<std::string> SshCommandLine::master() const {
    auto argv = common();
    argv.insert(argv.end(), {"-o", "ControlMaster=yes", "-o", "ControlPersist=no", "-N"});
    addDestination(argv);
    return argv;
}

std::vector<std::string> SshCommandLine::control(const std::string& operation) const {
    auto argv = common();
    argv.insert(argv.end(), {"-O", operation});
    addDestination(argv);
    return argv;
}

std::vector<std::string> SshCommandLine::tierscope(const std::vector<std::string>& args) const {
    auto argv = common();
    argv.insert(argv.end(), {"-o", "ControlMaster=no", "-T"});
    addDestination(argv);
    std::string command = shellQuote(m_options.remoteBinary);
    for (const auto& a : args)
        command += " " + shellQuote(a);
    argv.push_back(command);
    return argv;
}

std::string SshCommandLine::shellQuote(const std::string& text) {
    return ShellTemplate::quote(text);
}

} // namespace tierscope
