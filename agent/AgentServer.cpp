#include "agent/AgentServer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <list>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace tierscope {

namespace {

using Clock = std::chrono::steady_clock;

struct Connection {
    int fd = -1;
    Clock::time_point deadline;
    std::string in;
    std::string out;
    std::size_t sent = 0;
    bool writing = false;
};

const char* reason(int status) {
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 431:
        return "Request Header Fields Too Large";
    default:
        return "Error";
    }
}

std::string render(const AgentServer::Response& r, bool head) {
    std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + reason(r.status) +
                      "\r\nContent-Type: " + r.contentType +
                      "\r\nContent-Length: " + std::to_string(r.body.size()) +
                      "\r\nConnection: close\r\n\r\n";
    if (!head)
        out += r.body;
    return out;
}

AgentServer::Response plain(int status) {
    return {status, "text/plain", std::string(reason(status)) + "\n"};
}

std::string withoutBrackets(const std::string& host) {
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        return host.substr(1, host.size() - 2);
    return host;
}

} // namespace

AgentServer::AgentServer(Options options, Handler handler)
    : m_options(std::move(options)), m_handler(std::move(handler)) {}

AgentServer::~AgentServer() {
    stop();
}

int AgentServer::start() {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string host = withoutBrackets(m_options.host);
    const std::string port = std::to_string(m_options.port);
    if (const int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0)
        throw std::runtime_error("cannot resolve " + m_options.host + ": " + gai_strerror(rc));
    std::string why = "no address";
    for (addrinfo* a = found; a && m_listen < 0; a = a->ai_next) {
        const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
            continue;
        const int on = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
        if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 512) == 0) {
            m_listen = fd;
        } else {
            why = std::strerror(errno);
            close(fd);
        }
    }
    freeaddrinfo(found);
    if (m_listen < 0)
        throw std::runtime_error("cannot listen on " + m_options.host + ":" + port + ": " + why);
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    getsockname(m_listen, reinterpret_cast<sockaddr*>(&bound), &length);
    const int boundPort = bound.ss_family == AF_INET6
                              ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                              : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    if (pipe2(m_wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        close(m_listen);
        m_listen = -1;
        throw std::runtime_error("cannot create a pipe");
    }
    m_thread = std::thread([this] { loop(); });
    return boundPort;
}

void AgentServer::stop() {
    m_stop = true;
    if (m_wake[1] >= 0) {
        const char byte = 0;
        [[maybe_unused]] const auto n = write(m_wake[1], &byte, 1);
    }
    if (m_thread.joinable())
        m_thread.join();
    for (int& fd : {std::ref(m_listen), std::ref(m_wake[0]), std::ref(m_wake[1])})
        if (fd >= 0) {
            close(fd);
            fd = -1;
        }
}

void AgentServer::loop() {
    std::list<Connection> connections;
    std::vector<pollfd> fds;
    std::vector<Connection*> polled;
    Clock::time_point acceptPausedUntil{};
    char buffer[4096];
    auto respond = [&](Connection& c, const Response& r, bool head) {
        c.out = render(r, head);
        c.sent = 0;
        c.writing = true;
        c.in.clear();
        c.in.shrink_to_fit();
        c.deadline = Clock::now() + m_options.requestTimeout;
    };
    // Whether the head is complete (then answered) or over a bound (then refused).
    auto readHead = [&](Connection& c) {
        const std::size_t end = c.in.find("\r\n\r\n");
        const std::size_t lines =
            static_cast<std::size_t>(std::count(c.in.begin(), c.in.end(), '\n'));
        if (end == std::string::npos) {
            if (c.in.size() > m_options.maxHeadBytes || lines > m_options.maxHeaderLines + 1)
                respond(c, plain(431), false);
            return;
        }
        if (end + 4 > m_options.maxHeadBytes || lines > m_options.maxHeaderLines + 1) {
            respond(c, plain(431), false);
            return;
        }
        const std::string line = c.in.substr(0, c.in.find("\r\n"));
        const std::size_t space = line.find(' ');
        const std::size_t space2 = line.find(' ', space + 1);
        if (space == std::string::npos || space2 == std::string::npos ||
            line.compare(space2 + 1, 5, "HTTP/") != 0) {
            respond(c, plain(400), false);
            return;
        }
        const std::string method = line.substr(0, space);
        std::string path = line.substr(space + 1, space2 - space - 1);
        path = path.substr(0, path.find('?'));
        if (method != "GET" && method != "HEAD") {
            respond(c, plain(405), false);
            return;
        }
        respond(c, m_handler(path), method == "HEAD");
    };

    while (!m_stop) {
        const auto now = Clock::now();
        // Past their deadline: a request not read in time gets 408 once, a response not taken
        // in time is dropped.
        for (auto it = connections.begin(); it != connections.end();) {
            if (now < it->deadline) {
                ++it;
                continue;
            }
            if (!it->writing) {
                respond(*it, plain(408), false);
                ++it;
                continue;
            }
            close(it->fd);
            it = connections.erase(it);
        }
        fds.clear();
        polled.clear();
        fds.push_back({m_wake[0], POLLIN, 0});
        const bool accepting =
            connections.size() < m_options.maxConnections && now >= acceptPausedUntil;
        fds.push_back({accepting ? m_listen : -1, POLLIN, 0});
        auto next = now + std::chrono::seconds(1);
        for (auto& c : connections) {
            fds.push_back({c.fd, static_cast<short>(c.writing ? POLLOUT : POLLIN), 0});
            polled.push_back(&c);
            next = std::min(next, c.deadline);
        }
        if (!accepting)
            next = std::min(next, std::max(acceptPausedUntil, now + std::chrono::milliseconds(10)));
        const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - now);
        const int ready = poll(fds.data(), fds.size(),
                               static_cast<int>(std::max<long long>(1, wait.count() + 1)));
        if (ready < 0 && errno != EINTR)
            break;
        if (ready <= 0 || m_stop)
            continue;
        if (fds[1].revents & POLLIN) {
            for (std::size_t i = 0; i < 64 && connections.size() < m_options.maxConnections; ++i) {
                const int fd = accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
                if (fd < 0) {
                    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                        acceptPausedUntil = Clock::now() + std::chrono::milliseconds(100);
                    break;
                }
                Connection c;
                c.fd = fd;
                c.deadline = Clock::now() + m_options.requestTimeout;
                connections.push_back(std::move(c));
            }
        }
        for (std::size_t i = 0; i < polled.size(); ++i) {
            Connection& c = *polled[i];
            const short events = fds[i + 2].revents;
            if (!events)
                continue;
            bool done = false;
            if (c.writing) {
                const ssize_t n =
                    send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
                if (n > 0)
                    c.sent += static_cast<std::size_t>(n);
                done = (n < 0 && errno != EAGAIN && errno != EINTR) || c.sent == c.out.size();
                if (c.sent == c.out.size())
                    shutdown(c.fd, SHUT_WR);
            } else {
                const ssize_t n = recv(c.fd, buffer, sizeof buffer, 0);
                if (n > 0) {
                    c.in.append(buffer, static_cast<std::size_t>(n));
                    readHead(c);
                } else {
                    done = n == 0 || (errno != EAGAIN && errno != EINTR);
                }
            }
            if (done) {
                close(c.fd);
                c.fd = -1;
            }
        }
        connections.remove_if([](const Connection& c) { return c.fd < 0; });
    }
    for (auto& c : connections)
        close(c.fd);
}

} // namespace tierscope
