#pragma once

#include <string_view>

namespace tierscope {

// Owns a file descriptor and closes it; and the one write loop the project's *at()-based file
// writers share.
class FileDescriptor {
  public:
    explicit FileDescriptor(int fd = -1) : m_fd(fd) {}
    ~FileDescriptor();
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;

    int get() const { return m_fd; }
    // Hands the descriptor over, to close it and see close()'s result.
    int release();

    // All of text, retrying short writes and EINTR; false with errno set on failure.
    static bool writeAll(int fd, std::string_view text);

  private:
    int m_fd;
};

} // namespace tierscope
