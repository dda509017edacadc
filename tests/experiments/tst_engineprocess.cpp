#include "TestSupport.h"
#include "experiments/EngineIdentity.h"
#include "experiments/EngineProcess.h"
#include "experiments/PortHolder.h"

#include <QFile>
#include <arpa/inet.h>
#include <csignal>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace tierscope;

namespace {

std::string fixture(const char* name) {
    QFile f(QStringLiteral(TIERSCOPE_FIXTURES) + "/proc/" + name);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("no fixture %s", name);
    return f.readAll().toStdString();
}

// A socket listening on a free loopback port, as a foreign process would hold it.
struct Listener {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    int port = 0;
    Listener() {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof a;
        if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 4) != 0 ||
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length) != 0)
            qFatal("cannot listen on loopback");
        port = ntohs(a.sin_port);
    }
    ~Listener() { ::close(fd); }
};

} // namespace

// The runner's engine lifecycle pieces: who holds a port, an engine's process group, and
// which process answered.
class TestEngineProcess : public QObject {
    Q_OBJECT
  private slots:
    void findsListeningSocketsInProcNetTcp() {
        const std::string tcp = fixture("net-tcp-linux-6.18.44.txt");
        QCOMPARE(PortHolder::listeningInodes(tcp, 0xD9B7), std::vector<std::uint64_t>{161266});
        // Bound to 0.0.0.0: the port is taken on 127.0.0.1 too.
        QCOMPARE(PortHolder::listeningInodes(tcp, 2024), std::vector<std::uint64_t>{1544});
        // Only TIME_WAIT sockets on this port: nobody listens.
        QVERIFY(PortHolder::listeningInodes(tcp, 0xA45C).empty());
        QVERIFY(PortHolder::listeningInodes(tcp, 8000).empty());
        const std::string tcp6 = fixture("net-tcp6-linux-6.18.44-assembled.txt");
        // [::]:8000 listens; the established [::1]:8000 connection is not a listener.
        QCOMPARE(PortHolder::listeningInodes(tcp6, 8000), std::vector<std::uint64_t>{4242});
        QVERIFY(PortHolder::listeningInodes("", 8000).empty());
        QVERIFY(PortHolder::listeningInodes("header only\n   0: garbage\n", 8000).empty());
    }

    void localPortsOfEngineUrls() {
        QCOMPARE(PortHolder::localPort("http://127.0.0.1:8000"), std::optional<int>(8000));
        QCOMPARE(PortHolder::localPort("http://localhost:18431/v1/completions"),
                 std::optional<int>(18431));
        QCOMPARE(PortHolder::localPort("http://localhost"), std::optional<int>(80));
        QCOMPARE(PortHolder::localPort("https://[::1]/v1"), std::optional<int>(443));
        QCOMPARE(PortHolder::localPort("http://[::1]:9000"), std::optional<int>(9000));
        QCOMPARE(PortHolder::localPort("http://10.0.0.5:8000"), std::nullopt);
        QCOMPARE(PortHolder::localPort("http://127.0.0.1:99999"), std::nullopt);
        QCOMPARE(PortHolder::localPort("127.0.0.1:8000"), std::nullopt);
        QCOMPARE(EngineIdentity::baseUrl("http://127.0.0.1:8000/v1/completions"),
                 std::string("http://127.0.0.1:8000"));
        QCOMPARE(EngineIdentity::baseUrl("http://h:1"), std::string("http://h:1"));
    }

    void namesTheProcessHoldingAPort() {
        const Listener held;
        QVERIFY(PortHolder::listening(held.port));
        const auto holder = PortHolder::holder(held.port);
        QVERIFY(holder);
        QCOMPARE(holder->pid, static_cast<int>(::getpid()));
        QVERIFY2(holder->cmdline.find("tst_engineprocess") != std::string::npos,
                 holder->cmdline.c_str());
        const std::string why = PortHolder::describe(held.port);
        QVERIFY2(why.find("127.0.0.1:" + std::to_string(held.port) + " is already in use by pid " +
                          std::to_string(::getpid()) + " (") == 0,
                 why.c_str());
        const int free = test::freePort();
        QVERIFY(!PortHolder::listening(free));
        QVERIFY(!PortHolder::holder(free));
    }

    void capturesOutputAndExitStatus() {
        EngineProcess engine("echo loading weights; echo \"out of memory on $WHERE\" >&2; exit 3",
                             {{"WHERE", "gpu0"}});
        engine.start();
        QTRY_VERIFY_WITH_TIMEOUT(!engine.running(), 20000);
        QCOMPARE(engine.describeExit(), std::string("exit 3"));
        QTRY_VERIFY_WITH_TIMEOUT(
            engine.logTail(1024).find("out of memory on gpu0") != std::string::npos, 20000);
        QVERIFY(engine.logTail(1024).find("loading weights") != std::string::npos);
        const auto mark = engine.logSize();
        QCOMPARE(engine.logSince(mark), std::string());
        QVERIFY(engine.stop(std::chrono::seconds(5)));
    }

    // An engine that printed its error and exited has all of it read once stop() returns,
    // even when stop() comes the moment the exit is seen (the runner shows that log; it was
    // empty in one run of a loaded machine). Many tries, since it is a race by nature.
    void stopReadsTheOutputOfAnEngineThatExited() {
        for (int i = 0; i < 40; ++i) {
            EngineProcess engine("echo loading weights; echo CUDA out of memory >&2; exit 3", {});
            engine.start();
            while (engine.running())
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            QVERIFY(engine.stop(std::chrono::seconds(5)));
            QVERIFY2(engine.logTail(1024).find("CUDA out of memory") != std::string::npos,
                     qPrintable(QString("try %1: \"%2\"")
                                    .arg(i)
                                    .arg(QString::fromStdString(engine.logTail(1024)))));
        }
    }

    // The shell's background children are in its group and go with it.
    void stopEndsTheWholeProcessGroup() {
        EngineProcess engine("sleep 300 & sleep 300 & echo started; wait", {});
        engine.start();
        QTRY_VERIFY_WITH_TIMEOUT(engine.logTail(64).find("started") != std::string::npos, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(EngineProcess::groupMembers(engine.pid()).size() == 3, 20000);
        QVERIFY(engine.stop(std::chrono::seconds(10)));
        QVERIFY(EngineProcess::groupMembers(engine.pid()).empty());
        QVERIFY(!engine.running());
    }

    void killsAnEngineThatIgnoresSigterm() {
        EngineProcess engine("trap '' TERM; echo ignoring; while :; do sleep 0.2; done", {});
        engine.start();
        QTRY_VERIFY_WITH_TIMEOUT(engine.logTail(64).find("ignoring") != std::string::npos, 20000);
        QVERIFY(engine.stop(std::chrono::milliseconds(300)));
        QVERIFY(EngineProcess::groupMembers(engine.pid()).empty());
        QCOMPARE(engine.describeExit(), std::string("killed by signal 9"));
    }

    void theDestructorStopsARunningEngine() {
        int pid = 0;
        {
            EngineProcess engine("sleep 300", {});
            engine.start();
            pid = engine.pid();
            QTRY_VERIFY_WITH_TIMEOUT(!EngineProcess::groupMembers(pid).empty(), 20000);
        }
        QVERIFY(EngineProcess::groupMembers(pid).empty());
    }

    // tierscope ignores some signals; an engine must not inherit that and outlive SIGTERM.
    void theEngineGetsSigtermEvenWhenTierscopeIgnoresIt() {
        const auto previous = std::signal(SIGTERM, SIG_IGN);
        EngineProcess engine("echo up; sleep 300", {});
        engine.start();
        std::signal(SIGTERM, previous);
        QTRY_VERIFY_WITH_TIMEOUT(engine.logTail(64).find("up") != std::string::npos, 20000);
        QVERIFY(engine.stop(std::chrono::seconds(10)));
        QCOMPARE(engine.describeExit(), std::string("killed by signal 15"));
    }

    void identityFallsBackToTheListeningPid() {
        httplib::Server server;
        std::string metrics = "vllm:num_requests_running 0\n";
        server.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
            res.set_content(metrics, "text/plain");
        });
        const int port = server.bind_to_any_port("127.0.0.1");
        std::thread serving([&] { server.listen_after_bind(); });
        const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
        const auto byPid = EngineIdentity::probe(url);
        QCOMPARE(byPid["source"].get<std::string>(), std::string("listening_pid"));
        QCOMPARE(byPid["value"].get<int>(), static_cast<int>(::getpid()));
        QCOMPARE(byPid["url"].get<std::string>(), "http://127.0.0.1:" + std::to_string(port));
        metrics += "process_start_time_seconds 1764582000.25\n";
        const auto byStart = EngineIdentity::probe(url);
        QCOMPARE(byStart["source"].get<std::string>(), std::string("process_start_time_seconds"));
        QCOMPARE(byStart["value"].get<double>(), 1764582000.25);
        QVERIFY(!EngineIdentity::same(byPid, byStart));
        server.stop();
        serving.join();
        const auto nobody = EngineIdentity::probe("http://127.0.0.1:" + std::to_string(port));
        QCOMPARE(nobody["source"].get<std::string>(), std::string("unknown"));
    }

    void identityFromProcessStartTime() {
        QCOMPARE(EngineIdentity::processStartTime(
                     "# TYPE process_start_time_seconds gauge\n"
                     "process_start_time_seconds 1.76458200012e+09\nvllm:x 1\n"),
                 std::optional<double>(1.76458200012e+09));
        QCOMPARE(EngineIdentity::processStartTime("vllm:num_requests_running 0\n"), std::nullopt);
        const nlohmann::json a = {
            {"source", "process_start_time_seconds"}, {"value", 10.5}, {"url", "http://h:1"}};
        nlohmann::json b = a;
        QVERIFY(EngineIdentity::same(a, b));
        b["value"] = 11.0;
        QVERIFY(!EngineIdentity::same(a, b));
        const nlohmann::json unknown = {{"source", "unknown"}, {"url", "http://h:1"}};
        QVERIFY(!EngineIdentity::same(unknown, unknown)); // unknown is never "the same"
        const nlohmann::json pid = {
            {"source", "listening_pid"}, {"value", 10.5}, {"url", "http://h:1"}};
        QVERIFY(!EngineIdentity::same(a, pid));
    }
};

QTEST_GUILESS_MAIN(TestEngineProcess)
#include "tst_engineprocess.moc"
