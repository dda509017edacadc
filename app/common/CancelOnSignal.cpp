#include "app/common/CancelOnSignal.h"

#include "experiments/ChildGroups.h"

namespace tierscope {

namespace {

std::atomic<bool> g_cancel{false};
std::atomic<int> g_signal{0};

void onSignal(int signal) {
    int none = 0;
    if (g_signal.compare_exchange_strong(none, signal)) {
        g_cancel = true;
        return;
    }
    // The second one: the user really wants out, and nothing tierscope started may stay.
    ChildGroups::killAll(SIGKILL);
    struct sigaction action {};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(signal, &action, nullptr);
    raise(signal);
}

} // namespace

CancelOnSignal::CancelOnSignal(std::initializer_list<int> signals)
    : m_signals(signals), m_previous(m_signals.size()) {
    struct sigaction action {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigset_t unblock;
    sigemptyset(&unblock);
    for (std::size_t i = 0; i < m_signals.size(); ++i) {
        sigaction(m_signals[i], &action, &m_previous[i]);
        sigaddset(&unblock, m_signals[i]);
    }
    // After the handlers: a signal that was pending while blocked now reaches one of them.
    pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
}

CancelOnSignal::~CancelOnSignal() {
    restore();
}

void CancelOnSignal::restore() {
    if (m_restored)
        return;
    m_restored = true;
    for (std::size_t i = 0; i < m_signals.size(); ++i)
        sigaction(m_signals[i], &m_previous[i], nullptr);
}

void CancelOnSignal::passOn() {
    restore();
    if (const int s = g_signal.load())
        raise(s);
}

std::atomic<bool>& CancelOnSignal::flag() {
    return g_cancel;
}

int CancelOnSignal::signalNumber() {
    return g_signal.load();
}

} // namespace tierscope
