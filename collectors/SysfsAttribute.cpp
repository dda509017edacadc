#include "collectors/SysfsAttribute.h"

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
        if (n >= 0) {
            std::string text(buffer, static_cast<std::size_t>(n));
            const auto end = text.find_first_of("\r\n");
            if (end != std::string::npos)
                text.resize(end);
            while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
                text.pop_back();
            return text;
        }
        ::close(m_fd);
        m_fd = -1;
    }
    return std::nullopt;
}

} // namespace tierscope
