#include "core/analysis/PathSkew.h"

#include <cstdio>

namespace tierscope {

namespace {

std::string describe(const PathSkew::Path& p) {
    std::string where = p.transport;
    if (!p.address.empty())
        where += (where.empty() ? "" : " ") + p.address;
    return where.empty() ? p.name : p.name + " (" + where + ")";
}

std::string percent(double share) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %%", share * 100.0);
    return text;
}

std::optional<PathSkew::Finding> stateFinding(const PathSkew::Head& head, const PathSkew::Path& p) {
    if (!p.anaState || *p.anaState == "optimized")
        return std::nullopt;
    PathSkew::Finding f{PathSkew::Kind::Inaccessible,
                        head.name,
                        p.name,
                        std::nullopt,
                        p.meanQueueDepth,
                        p.anaState,
                        head.iopolicy,
                        {}};
    const std::string who = describe(p) + ", a path of " + head.name + ", ";
    const std::string& s = *p.anaState;
    if (s == "non-optimized") {
        f.kind = PathSkew::Kind::NotOptimized;
        f.text = who + "is non-optimized (ANA): the target says the namespace may be slower "
                       "through it, and the kernel sends it I/O only when no optimized path is "
                       "usable.";
    } else if (s == "inaccessible") {
        f.text = who + "is inaccessible (ANA): it carries no I/O until the target makes it "
                       "accessible again.";
    } else if (s == "persistent-loss") {
        f.text = who + "has lost the namespace for good (ANA persistent-loss): it carries no I/O.";
    } else if (s == "change") {
        f.text = who + "is in an ANA state change: it carries no I/O until the target ends "
                       "the transition.";
    } else {
        return std::nullopt; // not a state the kernel reports
    }
    return f;
}

// One path carrying nearly all bytes of a head with two or more optimized paths.
void judgeSkew(const PathSkew::Head& head, PathSkew::Result& out) {
    if (head.paths.size() < 2)
        return;
    double total = 0;
    int optimized = 0;
    const PathSkew::Path* top = nullptr;
    for (const auto& p : head.paths) {
        if (!p.bytes || *p.bytes < 0)
            return; // one path's traffic unknown: no share can be computed
        total += *p.bytes;
        if (p.anaState && *p.anaState == "optimized")
            ++optimized;
        if (!top || *p.bytes > *top->bytes)
            top = &p;
    }
    if (optimized < 2 || total < PathSkew::kMinBytes || !head.iopolicy)
        return;
    const double share = *top->bytes / total;
    if (share < PathSkew::kSkewShare)
        return;
    const std::string carried = describe(*top) + " carried " + percent(share) + " of " + head.name +
                                "'s bytes with " + std::to_string(optimized) + " optimized paths";
    if (*head.iopolicy == "numa") {
        out.notes.push_back(carried + "; expected under the numa iopolicy, which sends each "
                                      "NUMA node's I/O down the path nearest to it.");
        return;
    }
    if (*head.iopolicy != "round-robin" && *head.iopolicy != "queue-depth")
        return;
    std::string text = carried;
    if (top->meanQueueDepth) {
        char qd[48];
        std::snprintf(qd, sizeof qd, " (mean queue depth %.1f)", *top->meanQueueDepth);
        text += qd;
    }
    text += ", although the " + *head.iopolicy +
            " iopolicy spreads I/O over them: the other paths are slow, failing over or "
            "reconnecting.";
    out.findings.push_back({PathSkew::Kind::OnePathCarriesAll, head.name, top->name, share,
                            top->meanQueueDepth, top->anaState, head.iopolicy, text});
}

} // namespace

PathSkew::Result PathSkew::judge(const Head& head) {
    Result out;
    for (const auto& p : head.paths)
        if (auto f = stateFinding(head, p))
            out.findings.push_back(std::move(*f));
    judgeSkew(head, out);
    return out;
}

PathSkew::Result PathSkew::judge(const std::vector<Head>& heads) {
    Result out;
    for (const auto& head : heads) {
        auto one = judge(head);
        for (auto& f : one.findings)
            out.findings.push_back(std::move(f));
        for (auto& n : one.notes)
            out.notes.push_back(std::move(n));
    }
    return out;
}

const char* PathSkew::kindName(Kind kind) {
    switch (kind) {
    case Kind::OnePathCarriesAll:
        return "path-skew";
    case Kind::NotOptimized:
        return "path-not-optimized";
    case Kind::Inaccessible:
        return "path-inaccessible";
    }
    return "path";
}

} // namespace tierscope
