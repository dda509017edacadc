#include "TestSupport.h"
#include "agent/Agent.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <fstream>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace tierscope;

// The agent's server against clients that try to hold it: slowloris sockets, request heads
// with a million header lines, and a stop() at any moment of start-up. All on loopback, the
// agent in this process (its collectors read an empty /proc and /sys, so it starts fast).
class TestAgent : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;

    Agent::Options options(const std::string& host = "127.0.0.1") const {
        Agent::Options o;
        o.host = host;
        o.port = 0;
        o.paths.proc = m_dir.path().toStdString();
        o.paths.sys = m_dir.path().toStdString();
        o.interval = std::chrono::milliseconds(100);
        return o;
    }

    static int connectTo(int port, bool v6 = false) {
        const int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        timeval timeout{10, 0}; // far beyond a scrape's milliseconds; a held server exceeds it
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
        int rc = -1;
        if (v6) {
            sockaddr_in6 a{};
            a.sin6_family = AF_INET6;
            a.sin6_addr = in6addr_loopback;
            a.sin6_port = htons(static_cast<uint16_t>(port));
            rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
        } else {
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            a.sin_port = htons(static_cast<uint16_t>(port));
            rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
        }
        if (rc != 0) {
            ::close(fd);
            return -1;
        }
        return fd;
    }

    static std::string readAll(int fd) {
        std::string out;
        char buffer[4096];
        for (;;) {
            const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0)
                return out;
            out.append(buffer, static_cast<std::size_t>(n));
        }
    }

    // One scrape as Prometheus makes it; the whole answer, or "" when none came.
    static std::string scrape(int port, bool v6 = false) {
        const int fd = connectTo(port, v6);
        if (fd < 0)
            return {};
        const std::string request = "GET /metrics HTTP/1.1\r\nHost: agent\r\nAccept: "
                                    "text/plain\r\nUser-Agent: test\r\n\r\n";
        ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
        std::string answer = readAll(fd);
        ::close(fd);
        return answer;
    }

    static bool answered(const std::string& s) {
        return s.rfind("HTTP/1.1 200", 0) == 0 && s.find("tierscope_") != std::string::npos;
    }

    static long statusKb(const char* field) {
        std::ifstream in("/proc/self/status");
        std::string line;
        while (std::getline(in, line))
            if (line.rfind(field, 0) == 0)
                return std::stol(line.substr(std::string(field).size()));
        return -1;
    }

  private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // A stop() right after start() was lost by cpp-httplib (its stop() does nothing until the
    // server runs), and the agent hung until SIGKILL.
    void stopRightAfterStartNeverHangs() {
        std::atomic<bool> done{false};
        std::thread watchdog([&] {
            for (int i = 0; i < 1200 && !done; ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            if (!done)
                qFatal("Agent::stop() right after start() hung");
        });
        for (int i = 0; i < 50; ++i) {
            Agent agent(options());
            agent.start();
            agent.stop();
        }
        done = true;
        watchdog.join();
    }

    void servesMetricsAndRefusesOtherRequests() {
        Agent agent(options());
        const int port = agent.start();
        QVERIFY(answered(scrape(port)));
        const int fd = connectTo(port);
        const std::string post = "POST /metrics HTTP/1.1\r\nHost: a\r\n\r\n";
        ::send(fd, post.data(), post.size(), MSG_NOSIGNAL);
        QVERIFY(readAll(fd).rfind("HTTP/1.1 405", 0) == 0);
        ::close(fd);
    }

    // 8 sockets (cpp-httplib's whole thread pool) trickling one byte every 100 ms held every
    // scrape; they are now served side by side, and closed at the request deadline.
    void slowlorisSocketsDoNotBlockScrapes() {
        Agent::Options o = options();
        o.requestTimeout = std::chrono::milliseconds(3000);
        Agent agent(o);
        const int port = agent.start();
        std::vector<int> slow;
        for (int i = 0; i < 32; ++i) {
            slow.push_back(connectTo(port));
            QVERIFY(slow.back() >= 0);
            ::send(slow.back(), "GET /metrics HTTP/1.1\r\nX-Slow: ", 31, MSG_NOSIGNAL);
        }
        std::atomic<bool> stop{false};
        std::thread trickle([&] {
            while (!stop) {
                for (const int fd : slow)
                    ::send(fd, "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
        });
        int ok = 0;
        for (int i = 0; i < 5; ++i)
            ok += answered(scrape(port));
        // The trickling sockets get 408 at their deadline, however slowly they keep sending.
        int timedOut = 0;
        for (const int fd : slow)
            timedOut += readAll(fd).rfind("HTTP/1.1 408", 0) == 0;
        stop = true;
        trickle.join();
        for (const int fd : slow)
            ::close(fd);
        QCOMPARE(ok, 5);
        QCOMPARE(timedOut, 32);
    }

    // 8 requests with a million header lines each took the agent from 31 MB to 905 MB, never
    // released. Now a head is refused (431) past 100 lines or 16 KiB, and scrapes go on.
    void hugeHeaderCountsAreRefusedAndMemoryStaysBounded() {
        Agent agent(options());
        const int port = agent.start();
        const long before = statusKb("VmRSS:");
        std::string chunk;
        while (chunk.size() < 64 * 1024)
            chunk += "X-Header: value\r\n";
        const std::size_t total = 1000000 * std::string("X-Header: value\r\n").size();
        std::vector<std::size_t> sent(8, 0);
        std::vector<std::thread> attackers;
        for (int i = 0; i < 8; ++i)
            attackers.emplace_back([&, i] {
                const int fd = connectTo(port);
                if (fd < 0)
                    return;
                ::send(fd, "GET /metrics HTTP/1.1\r\n", 23, MSG_NOSIGNAL);
                while (sent[i] < total) {
                    const ssize_t n = ::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL);
                    if (n <= 0)
                        break;
                    sent[i] += static_cast<std::size_t>(n);
                }
                ::close(fd);
            });
        int ok = 0;
        for (int i = 0; i < 5; ++i)
            ok += answered(scrape(port));
        for (auto& t : attackers)
            t.join();
        const long after = statusKb("VmRSS:");
        QCOMPARE(ok, 5);
        for (int i = 0; i < 8; ++i)
            QVERIFY2(sent[i] < total, "the server read a million header lines");
        qInfo("RSS %ld kB before, %ld kB after 8 heads of a million lines", before, after);
        QVERIFY2(after - before < 32 * 1024, "memory grew by more than 32 MB");
        QVERIFY(answered(scrape(port)));
    }

    void listensOnIpv6() {
        const int probe = ::socket(AF_INET6, SOCK_STREAM, 0);
        sockaddr_in6 a{};
        a.sin6_family = AF_INET6;
        a.sin6_addr = in6addr_loopback;
        const bool v6 = probe >= 0 && ::bind(probe, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        ::close(probe);
        if (!v6)
            QSKIP("no IPv6 loopback on this machine");
        for (const char* host : {"::1", "[::1]", "[::]"}) {
            Agent agent(options(host));
            const int port = agent.start();
            QVERIFY2(answered(scrape(port, true)), host);
        }
    }

    // `--listen [::]:PORT` was refused as not HOST:PORT.
    void theCommandTakesABracketedIpv6Address() {
        const int probe = ::socket(AF_INET6, SOCK_STREAM, 0);
        sockaddr_in6 a{};
        a.sin6_family = AF_INET6;
        a.sin6_addr = in6addr_loopback;
        const bool v6 = probe >= 0 && ::bind(probe, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        ::close(probe);
        if (!v6)
            QSKIP("no IPv6 loopback on this machine");
        QProcess agent;
        agent.start(TIERSCOPE_BINARY, {"agent", "--listen", "[::1]:0", "--interval", "100ms"});
        QByteArray err;
        const QRegularExpression serving("serving http://\\[::1\\]:(\\d+)/metrics");
        QTRY_VERIFY2_WITH_TIMEOUT(
            serving.match(QString::fromUtf8(err += agent.readAllStandardError())).hasMatch(),
            err.constData(), 30000);
        QVERIFY2(!err.contains("reachable from the network"), err.constData()); // ::1 is loopback
        const int port = serving.match(QString::fromUtf8(err)).captured(1).toInt();
        QVERIFY(answered(scrape(port, true)));
        agent.terminate();
        QVERIFY(agent.waitForFinished(20000));
        QCOMPARE(agent.exitStatus(), QProcess::NormalExit);
        QCOMPARE(agent.exitCode(), 0);
    }

    // Decided by the addresses a name resolves to, not by how it is spelled.
    void loopbackIsWhatTheAddressIs() {
        for (const char* host :
             {"127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"})
            QVERIFY2(Agent::isLoopback(host), host);
        for (const char* host : {"127.attacker.invalid", "0.0.0.0", "::", "[::]", "10.0.0.1",
                                 "::ffff:10.0.0.1", "", "[", "127.0.0.1.nip.invalid"})
            QVERIFY2(!Agent::isLoopback(host), host);
    }
};

QTEST_GUILESS_MAIN(TestAgent)
#include "tst_agent.moc"
