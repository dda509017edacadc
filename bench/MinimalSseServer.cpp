#include "MinimalSseServer.h"

#include "loadgen/ReceiveTimestamp.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdexcept>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

namespace tierscope::bench {

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kHeaders = "HTTP/1.1 200 OK\r\n"
                                 "Content-Type: text/event-stream\r\n"
                                 "Cache-Control: no-cache\r\n"
                                 "Transfer-Encoding: chunked\r\n\r\n";

// One HTTP chunk carrying one SSE event.
std::string chunked(const std::string& event) {
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", event.size());
    return size + event + "\r\n";
}

std::size_t contentLength(const std::string& head) {
    std::string lower(head);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto at = lower.find("content-length:");
    return at == std::string::npos ? 0 : std::strtoul(lower.c_str() + at + 15, nullptr, 10);
}

int maxTokens(const std::string& body) {
    const auto at = body.find("\"max_tokens\":");
    return at == std::string::npos ? 16 : std::max(1, std::atoi(body.c_str() + at + 13));
}

} // namespace

MinimalSseServer::MinimalSseServer(std::chrono::microseconds ttft, double tokensPerS)
    : m_ttft(ttft),
      m_tokenGap(std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / tokensPerS))) {}

MinimalSseServer::~MinimalSseServer() {
    stop();
}

int MinimalSseServer::start() {
    m_listen = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int one = 1;
    setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (bind(m_listen, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        listen(m_listen, 8192) != 0 ||
        getsockname(m_listen, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
        throw std::runtime_error(std::string("minimal SSE server: ") + std::strerror(errno));
    m_epoll = epoll_create1(EPOLL_CLOEXEC);
    m_timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    m_wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    for (const int fd : {m_listen, m_timer, m_wake}) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &ev);
    }
    m_thread = std::thread([this] { loop(); });
    return ntohs(addr.sin_port);
}

void MinimalSseServer::stop() {
    if (!m_thread.joinable())
        return;
    const std::uint64_t one = 1;
    (void)!write(m_wake, &one, sizeof one);
    m_thread.join();
    for (auto& c : m_connections)
        if (c)
            ::close(c->fd);
    m_connections.clear();
    for (const int fd : {m_listen, m_timer, m_wake, m_epoll})
        ::close(fd);
}

double MinimalSseServer::cpuSeconds() const {
    clockid_t cpu{};
    timespec ts{};
    if (!m_thread.joinable() ||
        pthread_getcpuclockid(const_cast<std::thread&>(m_thread).native_handle(), &cpu) != 0 ||
        clock_gettime(cpu, &ts) != 0)
        return 0.0;
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

std::vector<MinimalSseServer::Served> MinimalSseServer::served() const {
    std::lock_guard lock(m_mutex);
    return m_served;
}

void MinimalSseServer::loop() {
    epoll_event events[512];
    for (;;) {
        const int n = epoll_wait(m_epoll, events, 512, -1);
        for (int i = 0; i < n; ++i) {
            const int fd = events[i].data.fd;
            if (fd == m_wake)
                return;
            if (fd == m_listen) {
                accept();
            } else if (fd == m_timer) {
                std::uint64_t expirations = 0;
                (void)!read(m_timer, &expirations, sizeof expirations);
            } else if (fd < static_cast<int>(m_connections.size()) && m_connections[fd]) {
                Connection& c = *m_connections[fd];
                if (events[i].events & EPOLLOUT)
                    flush(c);
                if (m_connections[fd] && (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
                    onReadable(c);
            }
        }
        emitDue();
    }
}

void MinimalSseServer::accept() {
    for (;;) {
        const int fd = accept4(m_listen, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        const int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        ReceiveTimestamp::enable(fd); // the reference TTFT starts at the kernel's receipt
        if (fd >= static_cast<int>(m_connections.size()))
            m_connections.resize(fd + 1024);
        m_connections[fd] = std::make_unique<Connection>();
        m_connections[fd]->fd = fd;
        m_connections[fd]->serial = ++m_nextSerial;
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &ev);
    }
}

void MinimalSseServer::onReadable(Connection& c) {
    char buffer[16384];
    for (;;) {
        iovec io{buffer, sizeof buffer};
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
        msghdr msg{};
        msg.msg_iov = &io;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        const ssize_t got = recvmsg(c.fd, &msg, 0);
        if (got > 0 && c.in.empty())
            c.arrived = ReceiveTimestamp::fromMessage(msg).value_or(Clock::now());
        if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
            close(c.fd);
            return;
        }
        if (got < 0)
            break;
        c.in.append(buffer, static_cast<std::size_t>(got));
    }
    // A client sends the next request only after the previous stream ended (no pipelining).
    const auto headEnd = c.in.find("\r\n\r\n");
    if (headEnd == std::string::npos || c.tokensLeft > 0)
        return;
    const std::size_t bodyAt = headEnd + 4;
    const std::size_t length = contentLength(c.in.substr(0, bodyAt));
    if (c.in.size() < bodyAt + length)
        return;
    const int tokens = maxTokens(c.in.substr(bodyAt, length));
    c.in.erase(0, bodyAt + length);
    beginStream(c, tokens);
}

void MinimalSseServer::beginStream(Connection& c, int maxTokens) {
    c.id = "cmpl-" + std::to_string(++m_nextId);
    c.tokensLeft = maxTokens;
    c.sent = 0;
    // The kernel's receive time of the request's first bytes: the reference the client's TTFT
    // is compared against must not include this server's own queueing.
    c.received = c.arrived;
    c.nextToken = c.received + m_ttft;
    m_heap.push_back({c.nextToken, c.fd, c.serial});
    std::push_heap(m_heap.begin(), m_heap.end(), std::greater<>());
    queue(c, kHeaders); // may close `c`: nothing touches it after this
}

void MinimalSseServer::emitDue() {
    const auto now = Clock::now();
    while (!m_heap.empty() && m_heap.front().at <= now) {
        std::pop_heap(m_heap.begin(), m_heap.end(), std::greater<>());
        const Due due = m_heap.back();
        m_heap.pop_back();
        if (due.fd < static_cast<int>(m_connections.size()) && m_connections[due.fd] &&
            m_connections[due.fd]->serial == due.serial)
            sendToken(*m_connections[due.fd]);
    }
    armTimer();
}

void MinimalSseServer::sendToken(Connection& c) {
    const bool last = c.tokensLeft == 1;
    std::string event = "data: {\"id\":\"" + c.id +
                        "\",\"object\":\"text_completion\",\"created\":0,\"model\":\"m\","
                        "\"choices\":[{\"text\":\"tok \",\"index\":0,\"finish_reason\":" +
                        (last ? "\"length\"" : "null") + "}]}\n\n";
    std::string payload = chunked(event);
    ++c.sent;
    --c.tokensLeft;
    if (c.sent == 1) {
        std::lock_guard lock(m_mutex);
        m_served.push_back(
            {c.id, std::chrono::duration<double>(Clock::now() - c.received).count()});
    }
    if (last) {
        payload += chunked("data: {\"id\":\"" + c.id +
                           "\",\"object\":\"text_completion\",\"created\":0,\"model\":\"m\","
                           "\"choices\":[],\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":" +
                           std::to_string(c.sent) +
                           ",\"total_tokens\":" + std::to_string(8 + c.sent) + "}}\n\n");
        payload += chunked("data: [DONE]\n\n") + "0\r\n\r\n";
    } else {
        c.nextToken += m_tokenGap;
        m_heap.push_back({c.nextToken, c.fd, c.serial});
        std::push_heap(m_heap.begin(), m_heap.end(), std::greater<>());
    }
    const int fd = c.fd;
    queue(c, payload);
    // The next request may already be buffered once the stream ended.
    if (last && m_connections[fd] && !m_connections[fd]->in.empty())
        onReadable(*m_connections[fd]);
}

void MinimalSseServer::queue(Connection& c, const std::string& payload) {
    c.out += payload;
    flush(c);
}

void MinimalSseServer::flush(Connection& c) {
    while (!c.out.empty()) {
        const ssize_t put = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
        if (put < 0 && errno == EAGAIN)
            break;
        if (put < 0) {
            close(c.fd);
            return;
        }
        c.out.erase(0, static_cast<std::size_t>(put));
    }
    const bool wants = !c.out.empty();
    if (wants != c.wantsWrite) {
        c.wantsWrite = wants;
        epoll_event ev{};
        ev.events = EPOLLIN | (wants ? EPOLLOUT : 0u);
        ev.data.fd = c.fd;
        epoll_ctl(m_epoll, EPOLL_CTL_MOD, c.fd, &ev);
    }
}

void MinimalSseServer::close(int fd) {
    epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, nullptr);
    ::close(fd);
    m_connections[fd].reset();
}

void MinimalSseServer::armTimer() {
    const Clock::time_point next = m_heap.empty() ? Clock::time_point() : m_heap.front().at;
    if (next == m_armed)
        return; // a settime per loop turn would cost more than the rest of the server
    m_armed = next;
    itimerspec spec{};
    if (!m_heap.empty()) {
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            m_heap.front().at.time_since_epoch())
                            .count();
        spec.it_value.tv_sec = ns / 1000000000;
        spec.it_value.tv_nsec = std::max<std::int64_t>(ns % 1000000000, 1);
    }
    timerfd_settime(m_timer, TFD_TIMER_ABSTIME, &spec, nullptr);
}

} // namespace tierscope::bench
