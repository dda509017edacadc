#include "collectors/base/StderrCapture.h"

#include <cstdio>
#include <sys/mman.h>
#include <unistd.h>

namespace tierscope {

std::string StderrCapture::run(const std::function<void()>& call) {
    const int sink = memfd_create("tierscope-stderr", MFD_CLOEXEC);
    const int saved = sink >= 0 ? dup(STDERR_FILENO) : -1;
    if (sink < 0 || saved < 0) {
        call();
        return {};
    }
    std::fflush(stderr);
    dup2(sink, STDERR_FILENO);
    try {
        call();
    } catch (...) {
        std::fflush(stderr);
        dup2(saved, STDERR_FILENO);
        close(saved);
        close(sink);
        throw;
    }
    std::fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    std::string text = readAll(sink);
    close(sink);
    return text;
}

std::string StderrCapture::readAll(int fd) {
    std::string text;
    char buffer[4096];
    ssize_t n = 0;
    lseek(fd, 0, SEEK_SET);
    while ((n = read(fd, buffer, sizeof buffer)) > 0 && text.size() < 65536)
        text.append(buffer, static_cast<std::size_t>(n));
    return text;
}

std::string StderrCapture::lastLine(const std::string& text) {
    std::size_t end = text.find_last_not_of(" \t\r\n");
    if (end == std::string::npos)
        return {};
    const std::size_t start = text.rfind('\n', end);
    return text.substr(start == std::string::npos ? 0 : start + 1,
                       end - (start == std::string::npos ? 0 : start + 1) + 1);
}

} // namespace tierscope
