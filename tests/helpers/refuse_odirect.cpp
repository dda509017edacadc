// LD_PRELOAD shim for tst_storagecommand: every open with O_DIRECT fails with EINVAL, as on a
// filesystem without direct I/O (tmpfs before Linux 6.6, some FUSE and network mounts).
// Everything else passes straight through to libc.
#include <cerrno>
#include <cstdarg>
#include <dlfcn.h>
#include <fcntl.h>

namespace {

template <typename F> F next(const char* symbol) {
    return reinterpret_cast<F>(dlsym(RTLD_NEXT, symbol));
}

mode_t modeOf(int flags, va_list args) {
    return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(args, mode_t) : 0;
}

// Fails an O_DIRECT open the way such a filesystem does; false lets the open through.
bool refuse(int flags) {
    if (!(flags & O_DIRECT))
        return false;
    errno = EINVAL;
    return true;
}

} // namespace

extern "C" {

int open(const char* path, int flags, ...) {
    va_list args;
    va_start(args, flags);
    const mode_t mode = modeOf(flags, args);
    va_end(args);
    static auto real = next<int (*)(const char*, int, ...)>("open");
    return refuse(flags) ? -1 : real(path, flags, mode);
}

int open64(const char* path, int flags, ...) {
    va_list args;
    va_start(args, flags);
    const mode_t mode = modeOf(flags, args);
    va_end(args);
    static auto real = next<int (*)(const char*, int, ...)>("open64");
    return refuse(flags) ? -1 : real(path, flags, mode);
}

int openat(int dir, const char* path, int flags, ...) {
    va_list args;
    va_start(args, flags);
    const mode_t mode = modeOf(flags, args);
    va_end(args);
    static auto real = next<int (*)(int, const char*, int, ...)>("openat");
    return refuse(flags) ? -1 : real(dir, path, flags, mode);
}
}
