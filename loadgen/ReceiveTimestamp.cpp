#include "loadgen/ReceiveTimestamp.h"

#include <cstring>
#include <ctime>
#include <sys/socket.h>

namespace tierscope {

bool ReceiveTimestamp::enable(int fd) {
    const int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) == 0;
}

std::optional<std::chrono::steady_clock::time_point> ReceiveTimestamp::newestQueued(int fd) {
    // TCP reports the timestamp of the last segment a read covers, so peeking the whole queue
    // gives the newest arrival: never earlier than the data the next read will hand over.
    iovec data{m_scratch.data(), m_scratch.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t n = recvmsg(fd, &message, MSG_PEEK | MSG_DONTWAIT);
    if (n <= 0 || static_cast<std::size_t>(n) >= m_scratch.size())
        return std::nullopt;
    return fromMessage(message);
}

std::optional<std::chrono::steady_clock::time_point>
ReceiveTimestamp::fromMessage(msghdr& message) {
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS)
            continue;
        timespec arrived{};
        std::memcpy(&arrived, CMSG_DATA(c), sizeof arrived);
        // The kernel stamps with the wall clock: carry the age over to the steady clock.
        timespec wall{};
        clock_gettime(CLOCK_REALTIME, &wall);
        const auto steadyNow = std::chrono::steady_clock::now();
        const auto age = std::chrono::seconds(wall.tv_sec - arrived.tv_sec) +
                         std::chrono::nanoseconds(wall.tv_nsec - arrived.tv_nsec);
        // A negative or absurd age means the wall clock was stepped meanwhile.
        if (age < std::chrono::nanoseconds(0) || age > std::chrono::seconds(60))
            return std::nullopt;
        return steadyNow - std::chrono::duration_cast<std::chrono::steady_clock::duration>(age);
    }
    return std::nullopt;
}

} // namespace tierscope
