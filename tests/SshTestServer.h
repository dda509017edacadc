#pragma once

// A real OpenSSH sshd for the remote-target tests, on 127.0.0.1 and a free port, with a
// temporary host key and an authorized client key, all in a temporary directory: the user's
// ~/.ssh and agent are never read (the client gets its own ssh_config through
// TIERSCOPE_SSH_CONFIG). The server side's tierscope is the built binary
// (TIERSCOPE_REMOTE_BINARY) and its workspace is under the directory (sshd's SetEnv).
// The test process is made a child subreaper, so whatever the server side detached (sshd's
// per-connection processes, remote jobs) is reparented here; stop() kills and reaps it all.

#include "TestSupport.h"

#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <cerrno>
#include <csignal>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <set>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace tierscope::test {

class SshTestServer {
  public:
    SshTestServer() { prctl(PR_SET_CHILD_SUBREAPER, 1); }
    ~SshTestServer() { stop(); }

    static bool available() { return QFile::exists("/usr/sbin/sshd") && geteuid() == 0; }

    // Keys, configs and the daemon; false (with why) when sshd does not come up.
    bool start(QString* why) {
        if (!m_dir.isValid())
            return fail(why, "no temporary directory");
        m_port = freePort();
        for (const char* key : {"host_key", "client_key", "other_key"})
            if (!run({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path(key)}))
                return fail(why, "ssh-keygen failed");
        QFile::copy(path("client_key.pub"), path("authorized_keys"));
        QDir().mkpath(path("server"));
        QDir().mkpath("/run/sshd"); // sshd's privilege-separation directory
        writeFile(path("sshd_config"),
                  QString("Port %1\nListenAddress 127.0.0.1\nHostKey %2\nAuthorizedKeysFile %3\n"
                          "PidFile %4\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                          "PubkeyAuthentication yes\nPermitRootLogin prohibit-password\n"
                          "StrictModes no\nUsePAM no\nMaxSessions 50\nMaxStartups 50\n"
                          "SetEnv XDG_DATA_HOME=%5%6\n")
                      .arg(m_port)
                      .arg(path("host_key"), path("authorized_keys"), path("sshd.pid"),
                           path("server"), sanitizerEnvironment())
                      .toUtf8());
        QFile hostPub(path("host_key.pub"));
        hostPub.open(QIODevice::ReadOnly);
        const QByteArray hostKey = hostPub.readAll().trimmed();
        writeFile(path("known_hosts"),
                  QString("[127.0.0.1]:%1 ").arg(m_port).toUtf8() + hostKey + "\n");
        writeConfig("ssh_config", "client_key");
        writeConfig("ssh_config_other", "other_key");

        m_sshd = fork();
        if (m_sshd == 0) {
            setpgid(0, 0);
            // Dies with the test, even one that aborts (a QFATAL skips stop()), and holds none
            // of the test's output: ctest reads that pipe until every writer is gone, and an
            // orphaned sshd once kept it open until the suite's 20-minute timeout.
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            const int log = open(path("sshd.log").toLocal8Bit().constData(),
                                 O_WRONLY | O_CREAT | O_TRUNC, 0600);
            const int null = open("/dev/null", O_RDONLY);
            dup2(null, STDIN_FILENO);
            dup2(log, STDOUT_FILENO);
            dup2(log, STDERR_FILENO);
            const QByteArray config = path("sshd_config").toLocal8Bit();
            execl("/usr/sbin/sshd", "/usr/sbin/sshd", "-D", "-e", "-f", config.constData(),
                  static_cast<char*>(nullptr));
            _exit(127);
        }
        for (int i = 0; i < 200; ++i) {
            if (listening())
                return true;
            int status = 0;
            if (waitpid(m_sshd, &status, WNOHANG) == m_sshd) {
                m_sshd = -1;
                return fail(why, "sshd exited: " + log());
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return fail(why, "sshd does not listen: " + log());
    }

    // Ends sshd and everything the tests left behind under this process.
    void stop() {
        if (m_sshd > 0) {
            ::kill(-m_sshd, SIGTERM);
            ::kill(m_sshd, SIGTERM);
        }
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        for (int round = 0; std::chrono::steady_clock::now() < deadline; ++round) {
            const auto left = descendants();
            for (const pid_t p : left)
                ::kill(p, round == 0 ? SIGTERM : SIGKILL);
            int status = 0;
            while (waitpid(-1, &status, WNOHANG) > 0) {
            }
            if (left.empty())
                break;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        m_sshd = -1;
    }

    int port() const { return m_port; }
    QString target() const { return QString("ssh://root@127.0.0.1:%1").arg(m_port); }
    QString path(const QString& name) const { return m_dir.filePath(name); }
    QString serverDb() const { return path("server/tierscope/tierscope.db"); }
    QString log() const {
        QFile f(path("sshd.log"));
        f.open(QIODevice::ReadOnly);
        return QString::fromUtf8(f.readAll()).right(2000);
    }

    // The client's environment: the private ssh_config, the built binary as the server's.
    QProcessEnvironment environment(const QString& config = "ssh_config") const {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("TIERSCOPE_SSH_CONFIG", path(config));
        env.insert("TIERSCOPE_REMOTE_BINARY", TIERSCOPE_BINARY);
        env.remove("SSH_AUTH_SOCK");
        return env;
    }
    // The same for this process (tests of the library classes).
    void useInThisProcess() const {
        qputenv("TIERSCOPE_SSH_CONFIG", path("ssh_config").toUtf8());
        qputenv("TIERSCOPE_REMOTE_BINARY", TIERSCOPE_BINARY);
        qunsetenv("SSH_AUTH_SOCK");
    }

    // Every live process whose parent chain leads to this one (children and adopted orphans).
    static std::set<pid_t> descendants() {
        std::map<pid_t, pid_t> parent;
        DIR* proc = opendir("/proc");
        while (dirent* e = proc ? readdir(proc) : nullptr) {
            const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
            if (pid <= 0)
                continue;
            std::ifstream stat("/proc/" + std::string(e->d_name) + "/stat");
            std::string line;
            std::getline(stat, line);
            const auto close = line.rfind(')');
            if (close == std::string::npos || close + 4 >= line.size())
                continue;
            if (line[close + 2] == 'Z')
                continue;
            parent[pid] = static_cast<pid_t>(std::atoi(line.c_str() + close + 4));
        }
        if (proc)
            closedir(proc);
        std::set<pid_t> out;
        const pid_t self = getpid();
        for (const auto& [pid, ppid] : parent) {
            pid_t p = ppid;
            for (int hops = 0; p > 1 && hops < 64; ++hops) {
                if (p == self) {
                    out.insert(pid);
                    break;
                }
                const auto it = parent.find(p);
                if (it == parent.end())
                    break;
                p = it->second;
            }
        }
        return out;
    }

  private:
    // Under ASan the server side's tierscope gets the suite's sanitizer options too.
    static QString sanitizerEnvironment() {
        QString out;
        for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS"})
            if (!qgetenv(name).isEmpty())
                out += QString(" \"%1=%2\"").arg(name, QString::fromLocal8Bit(qgetenv(name)));
        return out;
    }
    static bool fail(QString* why, const QString& text) {
        if (why)
            *why = text;
        return false;
    }
    static bool run(const QStringList& argv) {
        QProcess p;
        p.start(argv.front(), argv.mid(1));
        return p.waitForFinished(30000) && p.exitStatus() == QProcess::NormalExit &&
               p.exitCode() == 0;
    }
    void writeConfig(const QString& name, const QString& key) const {
        writeFile(path(name), QString("Host *\n  User root\n  IdentityFile %1\n"
                                      "  IdentitiesOnly yes\n  IdentityAgent none\n"
                                      "  UserKnownHostsFile %2\n  GlobalKnownHostsFile /dev/null\n"
                                      "  StrictHostKeyChecking yes\n  LogLevel ERROR\n")
                                  .arg(path(key), path("known_hosts"))
                                  .toUtf8());
    }
    bool listening() const {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<std::uint16_t>(m_port));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        ::close(fd);
        return ok;
    }

    QTemporaryDir m_dir;
    int m_port = 0;
    pid_t m_sshd = -1;
};

} // namespace tierscope::test
