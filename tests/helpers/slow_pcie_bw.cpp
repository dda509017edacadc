// LD_PRELOAD shim for tst_amdgpu: opening any "pcie_bw" file takes one second, as reading the
// real attribute does (the kernel sleeps 1 s under a lock to count PCIe messages). Everything
// else passes straight through to libc.
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <thread>

namespace {

// TIERSCOPE_TEST_PCIE_DELAY_MS lengthens the delay, so that a test can tell a blocked reading
// from a merely late one by a wide margin on a busy machine.
void delayIfPcieBw(const char* path) {
    const char* name = path ? std::strrchr(path, '/') : nullptr;
    if (!name || std::strcmp(name, "/pcie_bw") != 0)
        return;
    const char* ms = std::getenv("TIERSCOPE_TEST_PCIE_DELAY_MS");
    const long delay = ms ? std::strtol(ms, nullptr, 10) : 1000;
    std::this_thread::sleep_for(std::chrono::milliseconds(delay > 0 ? delay : 1000));
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
