#pragma once

// The real-engine fixture (tests/fixtures/llama-engine): llama.cpp through node-llama-cpp behind
// an OpenAI-compatible server with vLLM-named /metrics and a KV tier on a directory. install()
// runs the fixture's setup.sh once per test process (npm packages and the generated model are
// cached between runs); start() runs the server on 127.0.0.1 and a port it picks itself, in its
// own process group, which stop() (and the destructor) ends, killing the group if it lingers.
// A missing npm or registry is a failure with the reason, never a skip: CI installs both.

#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <chrono>
#include <csignal>
#include <httplib.h>
#include <optional>
#include <string>
#include <sys/prctl.h>
#include <thread>
#include <unistd.h>

namespace tierscope::test {

class LlamaEngine {
  public:
    struct Install {
        QString node, server, model;
    };

    // setup.sh's answer, computed once: false with the reason (npm's own output included).
    static bool install(Install* out, QString* why) {
        static const std::pair<std::optional<Install>, QString> once = runSetup();
        if (once.first)
            *out = *once.first;
        else if (why)
            *why = once.second;
        return once.first.has_value();
    }

    LlamaEngine() = default;
    LlamaEngine(const LlamaEngine&) = delete;
    LlamaEngine& operator=(const LlamaEngine&) = delete;
    ~LlamaEngine() { stop(); }

    // Starts the server with `arguments` after --model and --port; false (with why and the
    // server's stderr) when it does not print its READY line within two minutes.
    bool start(const QStringList& arguments, QString* why) {
        Install in;
        if (!install(&in, why))
            return false;
        m_process.setProgram(in.node);
        m_process.setArguments(QStringList{in.server, "--model", in.model, "--port", "0"} +
                               arguments);
        m_process.setStandardErrorFile(m_dir.filePath("engine.log"));
        // Its own process group, so stop() reaches whatever it started; and a test process that
        // dies takes the engine with it.
        m_process.setChildProcessModifier([] {
            ::setpgid(0, 0);
            ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        });
        m_process.start();
        if (!m_process.waitForStarted(30000))
            return fail(why, "cannot start " + in.node + ": " + m_process.errorString());
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
        QByteArray out;
        while (std::chrono::steady_clock::now() < deadline) {
            m_process.waitForReadyRead(200);
            out += m_process.readAllStandardOutput();
            if (const auto at = out.indexOf("READY "); at >= 0 && out.indexOf('\n', at) > at) {
                m_url = QString::fromUtf8(out.mid(at + 6, out.indexOf('\n', at) - at - 6));
                return true;
            }
            if (m_process.state() == QProcess::NotRunning)
                return fail(why, "the engine exited: " + log());
        }
        return fail(why, "the engine did not get ready in 2 minutes: " + log());
    }

    QString url() const { return m_url; }
    qint64 pid() const { return m_process.processId(); }

    // The engine's /metrics text; empty when it does not answer.
    std::string metrics() const {
        httplib::Client client(m_url.toStdString());
        client.set_read_timeout(30, 0);
        const auto r = client.Get("/metrics");
        return r && r->status == 200 ? r->body : std::string();
    }

    QString log() const {
        QFile f(m_dir.filePath("engine.log"));
        f.open(QIODevice::ReadOnly);
        return QString::fromUtf8(f.readAll()).right(4000);
    }

    void stop() {
        if (m_process.state() == QProcess::NotRunning)
            return;
        const pid_t group = static_cast<pid_t>(m_process.processId());
        ::kill(-group, SIGTERM);
        if (!m_process.waitForFinished(10000))
            ::kill(-group, SIGKILL);
        m_process.waitForFinished(10000);
        ::kill(-group, SIGKILL); // anything of the group still there
    }

  private:
    static std::pair<std::optional<Install>, QString> runSetup() {
        QProcess p;
        p.setProgram("bash");
        p.setArguments({QStringLiteral(TIERSCOPE_FIXTURES "/llama-engine/setup.sh")});
        p.setChildProcessModifier([] { ::setpgid(0, 0); });
        p.start();
        // npm from the registry and the model: about a minute uncached on a busy machine.
        const bool finished = p.waitForStarted(30000) && p.waitForFinished(8 * 60 * 1000);
        if (!finished) {
            if (p.processId() > 0)
                ::kill(-static_cast<pid_t>(p.processId()), SIGKILL);
            p.waitForFinished(10000);
            return {std::nullopt, "the llama-engine setup did not finish in 8 minutes"};
        }
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        const QString err = QString::fromUtf8(p.readAllStandardError()).right(4000);
        if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
            return {std::nullopt, "tests/fixtures/llama-engine/setup.sh failed: " + err};
        Install in;
        for (const QString& line : out.split('\n')) {
            if (line.startsWith("node="))
                in.node = line.mid(5);
            else if (line.startsWith("server="))
                in.server = line.mid(7);
            else if (line.startsWith("model="))
                in.model = line.mid(6);
        }
        if (in.node.isEmpty() || in.server.isEmpty() || in.model.isEmpty())
            return {std::nullopt, "setup.sh printed no node=, server= and model= lines: " + out};
        return {in, QString()};
    }

    static bool fail(QString* why, const QString& text) {
        if (why)
            *why = text;
        return false;
    }

    QTemporaryDir m_dir;
    QProcess m_process;
    QString m_url;
};

} // namespace tierscope::test
