#include "remote/SshSession.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace tierscope {

namespace {

std::string env(const char* name, const char* fallback) {
    const char* value = std::getenv(name);
    return value && *value ? value : fallback;
}

// mkdtemp makes the directory 0700: nobody else can reach the control socket, which speaks
// for the authenticated connection.
std::string privateDirectory() {
    std::string base = env("XDG_RUNTIME_DIR", "");
    if (base.empty() || access(base.c_str(), W_OK) != 0)
        base = std::filesystem::temp_directory_path().string();
    std::string pattern = base + "/tierscope-ssh-XXXXXX";
    if (!mkdtemp(pattern.data()))
        throw std::runtime_error("cannot create a private directory in " + base);
    return pattern;
}

} // namespace

SshCommandLine::Options SshSession::lineOptions(const std::string& controlPath, Options options) {
    SshCommandLine::Options o;
    o.program = env("TIERSCOPE_SSH", "ssh");
    o.configFile = env("TIERSCOPE_SSH_CONFIG", "");
    o.remoteBinary = env("TIERSCOPE_REMOTE_BINARY", "tierscope");
    o.connectTimeout = options.connectTimeout;
    o.controlPath = controlPath;
    return o;
}

SshSession::SshSession(SshTarget target, Options options)
    : m_dir(privateDirectory()), m_line(std::move(target), lineOptions(m_dir + "/master", options)),
      m_options(options) {}

SshSession::~SshSession() {
    disconnect();
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
}

std::optional<SshDiagnosis::Result> SshSession::connect() {
    if (connected())
        return std::nullopt;
    disconnect();
    m_master = std::make_unique<SshProcess>(m_line.master(), false);
    if (!m_master->started())
        return SshDiagnosis::Result{SshDiagnosis::Kind::Other, "cannot start ssh"};
    // The master is up once its control socket answers; it exits by itself (255) when the
    // server cannot be reached or refuses us, ConnectTimeout bounding the wait for a reply.
    const auto deadline =
        std::chrono::steady_clock::now() + m_options.connectTimeout + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
        if (m_options.cancel && m_options.cancel->load()) {
            m_master.reset();
            return SshDiagnosis::Result{SshDiagnosis::Kind::Other,
                                        "interrupted while connecting to " + target().host};
        }
        if (const auto code = m_master->wait(std::chrono::milliseconds(50))) {
            const auto result = diagnose(*code == 0 ? 255 : *code, m_master->stderrText());
            m_master.reset();
            return result;
        }
        if (std::filesystem::exists(m_dir + "/master")) {
            SshProcess check(m_line.control("check"), false);
            const auto code = check.wait(std::chrono::seconds(5));
            if (code && *code == 0)
                return std::nullopt;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    m_master.reset();
    return SshDiagnosis::Result{SshDiagnosis::Kind::Unreachable,
                                "cannot reach " + target().host + ": no answer in time"};
}

bool SshSession::connected() {
    return m_master && !m_master->wait(std::chrono::milliseconds(0));
}

void SshSession::disconnect() {
    m_master.reset(); // SIGTERM to its group: the master closes its socket and exits
}

std::unique_ptr<SshProcess> SshSession::start(const std::vector<std::string>& args,
                                              bool withStdin) {
    return std::make_unique<SshProcess>(m_line.tierscope(args), withStdin);
}

SshSession::Captured SshSession::run(const std::vector<std::string>& args, const std::string& input,
                                     std::chrono::milliseconds timeout, std::size_t maxOutput) {
    Captured c;
    SshProcess p(m_line.tierscope(args), true);
    if (!p.started()) {
        c.err = "cannot start ssh";
        return c;
    }
    p.write(input);
    p.closeStdin();
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!p.eof()) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            c.timedOut = true;
            break;
        }
        c.out += p.read(std::min(left, std::chrono::milliseconds(200)));
        if (c.out.size() > maxOutput) {
            c.err = "the server's answer is larger than " + std::to_string(maxOutput) + " bytes";
            p.terminate();
            return c;
        }
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    const auto code =
        c.timedOut ? std::nullopt : p.wait(std::max(left, std::chrono::milliseconds(0)));
    if (!code) {
        c.timedOut = true;
        p.terminate();
    }
    c.exitCode = code.value_or(-1);
    c.err += p.stderrText();
    return c;
}

SshDiagnosis::Result SshSession::diagnose(int exitCode, const std::string& err) const {
    return SshDiagnosis::classify(target(), exitCode, err, m_line.options().remoteBinary);
}

} // namespace tierscope
