// LD_PRELOAD shim for tst_amdgpu: opening any "pcie_bw" file takes one second, as reading the
// real attribute does (the kernel sleeps 1 s under a lock to count PCIe messages). Everything
// else passes straight through to libc.
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <thread>

namespace {

void delayIfPcieBw(const char* path) {
    const char* name = path ? std::strrchr(path, '/') : nullptr;
    if (name && std::strcmp(name, "/pcie_bw") == 0)
        std::this_thread::sleep_for(std::chrono::seconds(1));
}

template <typename F> F next(const char* symbol) {
    return reinterpret_cast<F>(dlsym(RTLD_NEXT, symbol));
}

} // namespace

extern "C" {

FILE* fopen(const char* path, const char* mode) {
    delayIfPcieBw(path);
    static auto real = next<FILE* (*)(const char*, const char*)>("fopen");
    return real(path, mode);
}

FILE* fopen64(const char* path, const char* mode) {
    delayIfPcieBw(path);
    static auto real = next<FILE* (*)(const char*, const char*)>("fopen64");
    return real(path, mode);
}

int open(const char* path, int flags, ...) {
    delayIfPcieBw(path);
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list args;
        va_start(args, flags);
        mode = va_arg(args, mode_t);
        va_end(args);
    }
    static auto real = next<int (*)(const char*, int, ...)>("open");
    return real(path, flags, mode);
}

int open64(const char* path, int flags, ...) {
    delayIfPcieBw(path);
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list args;
        va_start(args, flags);
        mode = va_arg(args, mode_t);
        va_end(args);
    }
    static auto real = next<int (*)(const char*, int, ...)>("open64");
    return real(path, flags, mode);
}
}
