#include "collectors/base/SysfsAttribute.h"

#include "collectors/base/SysfsReader.h"

#include <fcntl.h>
#include <unistd.h>
#include <utility>

namespace tierscope {

SysfsAttribute::~SysfsAttribute() {
    if (m_fd >= 0)
        ::close(m_fd);
}

SysfsAttribute::SysfsAttribute(SysfsAttribute&& other) noexcept
    : m_path(std::move(other.m_path)), m_fd(std::exchange(other.m_fd, -1)) {}

std::optional<std::string> SysfsAttribute::read() {
    // Try the cached descriptor, then reopen once: the device may have been re-created.
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (m_fd < 0)
            m_fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
        if (m_fd < 0)
            return std::nullopt;
        char buffer[256];
        const ssize_t n = ::pread(m_fd, buffer, sizeof buffer, 0);
        if (n >= 0)
            return SysfsReader::firstLine(std::string(buffer, static_cast<std::size_t>(n)));
        ::close(m_fd);
        m_fd = -1;
    }
    return std::nullopt;
}

} // namespace tierscope
