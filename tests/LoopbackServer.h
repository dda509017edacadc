#pragma once

#include <arpa/inet.h>
#include <atomic>
#include <functional>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace tierscope::test {

// A listening socket on a free loopback port, an accept loop, and one thread per connection
// running `serve(fd)`, which closes fd. The test servers own one as their LAST member, so it
// is destroyed (its threads stopped and joined) before anything `serve` uses.
class LoopbackServer {
  public:
    LoopbackServer(std::function<void(int fd)> serve, int backlog) : m_serve(std::move(serve)) {
        m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        const int one = 1;
        ::setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof a;
        ::bind(m_listen, reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::listen(m_listen, backlog);
        ::getsockname(m_listen, reinterpret_cast<sockaddr*>(&a), &length);
        m_port = ntohs(a.sin_port);
        m_thread = std::thread([this] { acceptLoop(); });
    }
    ~LoopbackServer() {
        m_stop = true;
        ::shutdown(m_listen, SHUT_RDWR);
        m_thread.join();
        for (auto& t : m_connections)
            t.join();
        ::close(m_listen);
    }
    LoopbackServer(const LoopbackServer&) = delete;
    LoopbackServer& operator=(const LoopbackServer&) = delete;

    int port() const { return m_port; }
    // True once the server is being destroyed: long replies end early.
    bool stopping() const { return m_stop; }

    // Everything or false (the peer went away, or the server is stopping).
    bool sendAll(int fd, const std::string& data) const {
        std::size_t sent = 0;
        while (sent < data.size() && !m_stop) {
            const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
            if (n <= 0)
                return false;
            sent += static_cast<std::size_t>(n);
        }
        return sent == data.size();
    }

  private:
    void acceptLoop() {
        while (!m_stop) {
            pollfd p{m_listen, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0)
                continue;
            const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0)
                m_connections.emplace_back([this, fd] { m_serve(fd); });
        }
    }

    std::function<void(int fd)> m_serve;
    int m_listen = -1;
    int m_port = 0;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
    std::vector<std::thread> m_connections;
};

} // namespace tierscope::test
