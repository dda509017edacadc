#pragma once

#include "LoopbackServer.h"

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace tierscope::test {

// A deliberately broken HTTP server on a free loopback port: every connection gets the same
// misbehaviour, whatever it asked for (a completion stream or /metrics).
class FaultServer {
  public:
    enum class Fault {
        ResetMidStream, // headers and part of the body, then a TCP reset
        Stall,          // headers, then nothing for a minute (far past any client timeout)
        Trickle,        // one byte every 100 ms, slowloris-style
        HugeLine,       // 10 MB without a newline
        BadUtf8,        // a well-formed stream whose text is not UTF-8
    };

    explicit FaultServer(Fault fault) : m_fault(fault) {}
    int port() const { return m_server.port(); }

  private:
    bool sendAll(int fd, const std::string& data) { return m_server.sendAll(fd, data); }

    void sleepMs(int ms) {
        for (int i = 0; i < ms / 20 && !m_server.stopping(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }

    void serve(int fd) {
        char buffer[8192];
        std::string request;
        while (request.find("\r\n\r\n") == std::string::npos) { // headers; bodies are small
            const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0) {
                ::close(fd);
                return;
            }
            request.append(buffer, static_cast<std::size_t>(n));
        }
        const std::string headers = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                    "Connection: close\r\n\r\n";
        const std::string chunk = "data: {\"id\":\"x\",\"object\":\"text_completion\","
                                  "\"choices\":[{\"index\":0,\"text\":\"tok\"}]}\n\n";
        switch (m_fault) {
        case Fault::ResetMidStream: {
            sendAll(fd, headers + chunk + chunk.substr(0, 20));
            linger hard{1, 0}; // close with RST
            ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
            break;
        }
        case Fault::Stall:
            sendAll(fd, headers);
            sleepMs(60000);
            break;
        case Fault::Trickle:
            for (const char c : headers + chunk + chunk + chunk) {
                if (!sendAll(fd, std::string(1, c)))
                    break;
                sleepMs(100);
            }
            break;
        case Fault::HugeLine:
            if (sendAll(fd, headers + "data: "))
                for (int i = 0; i < 10 * 16 && sendAll(fd, std::string(64 * 1024, 'a')); ++i) {
                }
            break;
        case Fault::BadUtf8:
            // A good first chunk, so the bad one takes the load generator's fast path.
            sendAll(fd, headers + chunk +
                            "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"text\":\"\xff\xfe"
                            "\xc3\x28\"}]}\n\n" +
                            "data: [DONE]\n\n");
            break;
        }
        ::close(fd);
    }

    Fault m_fault;
    LoopbackServer m_server{[this](int fd) { serve(fd); }, 64}; // last: stopped first
};

} // namespace tierscope::test
