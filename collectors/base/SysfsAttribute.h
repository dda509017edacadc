#pragma once

#include <optional>
#include <string>

namespace tierscope {

// A sysfs attribute read every cycle: the file stays open and each read is a pread at offset
// 0, which makes the kernel regenerate the value without a path lookup and open per read.
class SysfsAttribute {
  public:
    explicit SysfsAttribute(std::string path) : m_path(std::move(path)) {}
    ~SysfsAttribute();
    SysfsAttribute(const SysfsAttribute&) = delete;
    SysfsAttribute& operator=(const SysfsAttribute&) = delete;
    SysfsAttribute(SysfsAttribute&& other) noexcept;

    // First line without trailing whitespace; nullopt when the attribute cannot be read.
    std::optional<std::string> read();
    const std::string& path() const { return m_path; }

  private:
    std::string m_path;
    int m_fd = -1;
};

} // namespace tierscope
