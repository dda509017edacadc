#include "experiments/ChildGroups.h"

#include <atomic>
#include <csignal>

namespace tierscope {

namespace {

constexpr int kSlots = 64;
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<int> g_groups[kSlots];

} // namespace

bool ChildGroups::add(int pgid) noexcept {
    for (auto& slot : g_groups) {
        int expected = 0;
        if (slot.compare_exchange_strong(expected, pgid))
            return true;
    }
    return false;
}

void ChildGroups::remove(int pgid) noexcept {
    for (auto& slot : g_groups) {
        int expected = pgid;
        if (slot.compare_exchange_strong(expected, 0))
            return;
    }
}

void ChildGroups::killAll(int signal) noexcept {
    for (auto& slot : g_groups)
        if (const int pgid = slot.load(); pgid > 1)
            ::kill(-pgid, signal);
}

} // namespace tierscope
