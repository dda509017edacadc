#include "core/report/ReportFile.h"

#include "core/util/FileDescriptor.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace tierscope {

namespace {

std::runtime_error failure(const std::string& what, const std::string& path) {
    return std::runtime_error("cannot " + what + " " + path + ": " + std::strerror(errno));
}

} // namespace

void ReportFile::write(const std::string& path, const std::string& text) {
    write(path, [&text](int fd) { return FileDescriptor::writeAll(fd, text); });
}

void ReportFile::write(const std::string& path, const std::function<bool(int fd)>& fill) {
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "."
                            : slash == 0               ? "/"
                                                       : path.substr(0, slash);
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (name.empty() || name == "." || name == "..")
        throw std::runtime_error("cannot write " + path + ": not a file name");
    const FileDescriptor directory(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (directory.get() < 0)
        throw failure("open the directory of", path);
    const std::string temporary = "." + name + "." + std::to_string(::getpid()) + ".part";
    FileDescriptor file(::openat(directory.get(), temporary.c_str(),
                                 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (file.get() < 0)
        throw failure("create a temporary file for", path);
    try {
        if (!fill(file.get()))
            throw failure("write", path);
        if (::fsync(file.get()) != 0)
            throw failure("write", path);
        if (::close(file.release()) != 0)
            throw failure("write", path);
        if (::renameat(directory.get(), temporary.c_str(), directory.get(), name.c_str()) != 0)
            throw failure("rename the output to", path);
    } catch (...) {
        ::unlinkat(directory.get(), temporary.c_str(), 0);
        throw;
    }
}

} // namespace tierscope
