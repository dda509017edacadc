#pragma once

#include <string>
#include <vector>

namespace tierscope {

// A library loaded at run time (dlopen), so a vendor stack that is not installed is a reported
// state instead of a link error.
class SharedLibrary {
  public:
    // Tries each candidate in order; loaded() tells whether one succeeded, error() why not.
    explicit SharedLibrary(const std::vector<std::string>& candidates);
    ~SharedLibrary();
    SharedLibrary(const SharedLibrary&) = delete;
    SharedLibrary& operator=(const SharedLibrary&) = delete;

    bool loaded() const { return m_handle != nullptr; }
    const std::string& error() const { return m_error; }
    const std::string& path() const { return m_path; }

    // nullptr when the library lacks the symbol.
    void* symbol(const char* name) const;
    template <typename F> bool bind(F*& out, const char* name) const {
        out = reinterpret_cast<F*>(symbol(name));
        return out != nullptr;
    }

  private:
    void* m_handle = nullptr;
    std::string m_path;
    std::string m_error;
};

} // namespace tierscope
