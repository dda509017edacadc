// The kernel's receive timestamps, read by peeking, on a real loopback TCP connection.
#include "loadgen/ReceiveTimestamp.h"

#include <QtTest>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace tierscope;
using Clock = std::chrono::steady_clock;

namespace {

// A connected pair over 127.0.0.1: `sender` has Nagle off, so each write leaves at once.
struct Connection {
    int sender = -1;
    int receiver = -1;
    Connection() {
        const int listener = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            listen(listener, 1) != 0 ||
            getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0)
            qFatal("cannot listen on loopback");
        receiver = socket(AF_INET, SOCK_STREAM, 0);
        if (::connect(receiver, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
            qFatal("cannot connect on loopback");
        sender = accept(listener, nullptr, nullptr);
        close(listener);
        const int on = 1;
        setsockopt(sender, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    }
    ~Connection() {
        close(sender);
        close(receiver);
    }
    void send(const std::string& data) const {
        QCOMPARE(::send(sender, data.data(), data.size(), 0), static_cast<ssize_t>(data.size()));
    }
    std::string receiveAll() const {
        std::string out(256 * 1024, '\0');
        const ssize_t n = recv(receiver, out.data(), out.size(), MSG_DONTWAIT);
        out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
        return out;
    }
};

void settle() { // loopback delivers within the send(); a moment for the softirq all the same
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

} // namespace

class ReceiveTimestampTest : public QObject {
    Q_OBJECT

  private slots:
    // Two segments 300 ms apart: the stamp is the second's arrival, and nothing is consumed.
    void stampsTheNewestQueuedDataWithoutReadingIt() {
        Connection c;
        QVERIFY(ReceiveTimestamp::enable(c.receiver));
        c.send("first");
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const auto before = Clock::now();
        c.send("second");
        const auto after = Clock::now();
        settle();
        ReceiveTimestamp received;
        const auto stamp = received.newestQueued(c.receiver);
        QVERIFY(stamp);
        // The wall-to-steady conversion reads two clocks, and a busy machine may stop this
        // thread between the two reads or defer the loopback delivery: allow it 100 ms, well
        // short of the first segment's stamp 300 ms before.
        const auto slack = std::chrono::milliseconds(100);
        QVERIFY2(*stamp >= before - slack && *stamp <= after + slack,
                 qPrintable(
                     QString("stamp %1 us after the second send began, which took %2 us")
                         .arg(std::chrono::duration<double, std::micro>(*stamp - before).count())
                         .arg(std::chrono::duration<double, std::micro>(after - before).count())));
        QCOMPARE(c.receiveAll(), std::string("firstsecond"));
        QVERIFY(!received.newestQueued(c.receiver)); // nothing queued any more
    }

    void nothingWithoutTimestampsEnabled() {
        Connection c;
        c.send("data");
        settle();
        ReceiveTimestamp received;
        QVERIFY(!received.newestQueued(c.receiver));
        QCOMPARE(c.receiveAll(), std::string("data"));
    }

    // More queued than the scratch buffer holds: what lies beyond could not be stamped.
    void nothingWhenMoreIsQueuedThanItPeeks() {
        Connection c;
        QVERIFY(ReceiveTimestamp::enable(c.receiver));
        c.send(std::string(100 * 1024, 'x'));
        settle();
        ReceiveTimestamp received;
        QVERIFY(!received.newestQueued(c.receiver));
        QVERIFY(c.receiveAll().size() >= 64 * 1024); // peeking consumed nothing
    }

    void nothingOnAClosedDescriptor() {
        ReceiveTimestamp received;
        QVERIFY(!received.newestQueued(-1));
        QVERIFY(!ReceiveTimestamp::enable(-1));
    }
};

QTEST_GUILESS_MAIN(ReceiveTimestampTest)
#include "tst_receivetimestamp.moc"
