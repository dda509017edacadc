#pragma once

#include "core/model/RequestRecord.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QtTest>
#include <arpa/inet.h>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace tierscope::test {

// A request that reached its first token after `ttftS` and ended a second later, with 64
// output tokens.
inline RequestRecord answered(double ttftS) {
    RequestRecord r;
    r.ttftS = ttftS;
    r.e2eS = ttftS + 1.0;
    r.outputTokens = 64;
    r.httpStatus = 200;
    return r;
}

inline std::string fixture(const QString& relative) {
    QFile file(QStringLiteral(TIERSCOPE_FIXTURES "/") + relative);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(relative));
    return file.readAll().toStdString();
}

inline void writeFile(const QString& path, const QByteArray& content) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(path));
    file.write(content);
}

inline void writeFileBytes(const std::string& path, const std::string& content) {
    writeFile(QString::fromStdString(path), QByteArray::fromStdString(content));
}

// A link planted at an output's name, pointing at a file the user cares about ("keep").
inline void plantLink(const QString& at) {
    const QString victim = at + ".victim";
    writeFile(victim, "keep");
    if (!QFile::link(victim, at))
        qFatal("cannot plant a link at %s", qPrintable(at));
}

// After tierscope wrote its output at a planted link: "" when the victim is untouched and the
// output is a regular file only its owner can read, else what is wrong.
inline QString plantedLinkProblem(const QString& at) {
    QFile victim(at + ".victim");
    if (!victim.open(QIODevice::ReadOnly) || victim.readAll() != "keep")
        return "the file the link pointed at was written";
    const QFileInfo output(at);
    if (output.isSymLink() || !output.isFile())
        return "the output is not a regular file";
    if (output.permissions() & (QFile::ReadGroup | QFile::ReadOther | QFile::WriteOther))
        return "the output is readable by others";
    return {};
}

// Writes `bytes` (a multiple of 1 MiB) to a new file with O_DIRECT and fsyncs it, so the
// bytes reach the device now and show in /proc/diskstats. False where O_DIRECT is refused.
inline bool writeDirect(const QString& path, long long bytes) {
    const int fd = ::open(path.toLocal8Bit().constData(),
                          O_CREAT | O_WRONLY | O_TRUNC | O_DIRECT | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    constexpr std::size_t kChunk = 1 << 20;
    void* buffer = nullptr;
    bool ok = ::posix_memalign(&buffer, 4096, kChunk) == 0;
    if (ok)
        std::memset(buffer, 0x5a, kChunk);
    for (long long done = 0; ok && done < bytes; done += kChunk)
        ok = ::write(fd, buffer, kChunk) == static_cast<ssize_t>(kChunk);
    ok = ok && ::fsync(fd) == 0;
    std::free(buffer);
    ::close(fd);
    return ok;
}

// A loopback port nobody listens on now: the kernel picks it, we let it go. A server started
// right after gets it unless another process races for the same port, which is rare.
inline int freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length) != 0)
        qFatal("no free loopback port");
    ::close(fd);
    return ntohs(a.sin_port);
}

} // namespace tierscope::test
