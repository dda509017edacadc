#include "collectors/base/SharedLibrary.h"

#include <dlfcn.h>

namespace tierscope {

SharedLibrary::SharedLibrary(const std::vector<std::string>& candidates) {
    for (const auto& candidate : candidates) {
        m_handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (m_handle) {
            m_path = candidate;
            m_error.clear();
            return;
        }
        if (m_error.empty()) {
            const char* why = dlerror();
            m_error = why ? why : candidate + ": cannot be loaded";
        }
    }
}

SharedLibrary::~SharedLibrary() {
    if (m_handle)
        dlclose(m_handle);
}

void* SharedLibrary::symbol(const char* name) const {
    return m_handle ? dlsym(m_handle, name) : nullptr;
}

} // namespace tierscope
