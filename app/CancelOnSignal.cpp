#include "app/CancelOnSignal.h"

namespace tierscope {

namespace {

std::atomic<bool> g_cancel{false};

void onSignal(int signal) {
    g_cancel = true;
    std::signal(signal, SIG_DFL);
}

} // namespace

CancelOnSignal::CancelOnSignal(std::initializer_list<int> signals) : m_signals(signals) {
    for (const int s : m_signals)
        std::signal(s, onSignal);
}

CancelOnSignal::~CancelOnSignal() {
    for (const int s : m_signals)
        std::signal(s, SIG_DFL);
}

std::atomic<bool>& CancelOnSignal::flag() {
    return g_cancel;
}

} // namespace tierscope
