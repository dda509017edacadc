#pragma once

#include <QDir>
#include <QFile>
#include <QString>
#include <QtTest>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace tierscope::test {

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
