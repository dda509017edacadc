#include "workloads/WorkloadError.h"

#include <cerrno>
#include <cstring>

namespace tierscope {

WorkloadError WorkloadError::fromErrno(int error, const std::string& what,
                                       const std::string& path) {
    const std::string text = what + " " + path + ": " + std::strerror(error);
    switch (error) {
    case ENOENT:
    case ENOTDIR:
        return {Kind::NotFound, text};
    case EACCES:
    case EPERM:
    case EROFS:
        return {Kind::Permission, text};
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
        return {Kind::NoSpace, text};
    default:
        return {Kind::Io, text};
    }
}

} // namespace tierscope
