#include "workloads/SpaceCheck.h"

#include "core/util/UnitFormat.h"
#include "workloads/WorkloadError.h"

#include <algorithm>
#include <cerrno>
#include <sys/statvfs.h>

namespace tierscope {

SpaceCheck::Space SpaceCheck::query(const std::string& dir) {
    struct statvfs fs {};
    if (statvfs(dir.c_str(), &fs) != 0)
        throw WorkloadError::fromErrno(errno, "cannot check free space on", dir);
    return {static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize,
            static_cast<std::uint64_t>(fs.f_blocks) * fs.f_frsize};
}

std::uint64_t SpaceCheck::reserve(const Space& space) {
    return std::max<std::uint64_t>(64ULL << 20, space.total / 100);
}

void SpaceCheck::require(const std::string& dir, std::uint64_t bytes) {
    const Space space = query(dir);
    const std::uint64_t keep = reserve(space);
    if (space.available >= keep && space.available - keep >= bytes)
        return;
    throw WorkloadError(WorkloadError::Kind::NoSpace,
                        "not enough free space on " + dir + ": need " +
                            UnitFormat::bytes(static_cast<double>(bytes)) + ", " +
                            UnitFormat::bytes(static_cast<double>(space.available)) +
                            " available, and " + UnitFormat::bytes(static_cast<double>(keep)) +
                            " must stay free");
}

} // namespace tierscope
