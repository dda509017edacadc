#include "core/analysis/TtftBreakdown.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tierscope {

namespace {

using Observed = TtftBreakdown::Observed;

void addBuckets(HistogramQuantile::Buckets& into, const HistogramQuantile::Buckets& from) {
    for (const auto& [le, count] : from) {
        const auto it = std::find_if(into.begin(), into.end(),
                                     [le = le](const auto& b) { return b.first == le; });
        if (it == into.end())
            into.emplace_back(le, count);
        else
            it->second += count;
    }
    std::sort(into.begin(), into.end());
}

void merge(std::optional<Observed>& into, const std::optional<Observed>& from) {
    if (!from)
        return;
    if (!into)
        into = Observed{};
    // Buckets that miss some of the span's observations would give a quantile of the others.
    if (into->buckets && from->buckets)
        addBuckets(*into->buckets, *from->buckets);
    else if (into->buckets && from->count > 0)
        into->buckets.reset();
    else if (!into->buckets && into->count <= 0)
        into->buckets = from->buckets;
    into->sumS += from->sumS;
    into->count += from->count;
}

std::optional<double> mean(const std::optional<Observed>& o) {
    if (!o || o->count <= 0)
        return std::nullopt;
    return o->sumS / o->count;
}

// From milliseconds (a warm prefill) to minutes (a cold TTFT).
std::string duration(double s) {
    char buffer[64];
    if (s >= 1 || s <= -1)
        std::snprintf(buffer, sizeof buffer, "%.2f s", s);
    else
        std::snprintf(buffer, sizeof buffer, "%.1f ms", s * 1e3);
    return buffer;
}

// A quantile in the lowest bucket is histogram_quantile's interpolation from 0 to its upper
// bound: vLLM's phase buckets start at 0.3 s, so a 1 ms queue would read "150.0 ms". Said as
// what the buckets know: "<= 300.0 ms".
std::string bounded(const Observed& o, double quantile) {
    if (o.buckets && !o.buckets->empty() && std::isfinite(o.buckets->front().first) &&
        quantile <= o.buckets->front().first)
        return "<= " + duration(o.buckets->front().first);
    return duration(quantile);
}

} // namespace

std::optional<double> TtftBreakdown::Observed::quantile(double q) const {
    if (!buckets || count <= 0)
        return std::nullopt;
    const auto inf = std::find_if(buckets->begin(), buckets->end(),
                                  [](const auto& b) { return std::isinf(b.first); });
    if (inf == buckets->end() || std::fabs(inf->second - count) > 0.5)
        return std::nullopt;
    const double v = HistogramQuantile::compute(q, *buckets);
    return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

void TtftBreakdown::add(const TtftBreakdown& other) {
    merge(ttft, other.ttft);
    merge(queue, other.queue);
    merge(prefill, other.prefill);
    merge(retrieve, other.retrieve);
}

std::optional<double> TtftBreakdown::requests() const {
    return ttft ? std::optional<double>(ttft->count) : std::nullopt;
}

std::optional<double> TtftBreakdown::meanTtftS() const {
    return mean(ttft);
}

std::optional<double> TtftBreakdown::meanQueueS() const {
    return mean(queue);
}

std::optional<double> TtftBreakdown::meanPrefillS() const {
    return mean(prefill);
}

std::optional<double> TtftBreakdown::retrievePerRequestS() const {
    if (!retrieve || !ttft || ttft->count <= 0)
        return std::nullopt;
    return retrieve->sumS / ttft->count;
}

std::optional<double> TtftBreakdown::otherS() const {
    const auto t = meanTtftS(), q = meanQueueS(), p = meanPrefillS();
    if (!t || !q || !p)
        return std::nullopt;
    return *t - *q - *p;
}

std::optional<double> TtftBreakdown::storageShare() const {
    if (!retrieve || !ttft || ttft->sumS <= 0)
        return std::nullopt;
    return retrieve->sumS / ttft->sumS;
}

std::vector<std::string> TtftBreakdown::absent() const {
    std::vector<std::string> out;
    if (!ttft)
        out.push_back("TTFT");
    if (!queue)
        out.push_back("queue time");
    if (!prefill)
        out.push_back("prefill time");
    if (!retrieve)
        out.push_back("KV retrieve time");
    return out;
}

std::string TtftBreakdown::text() const {
    if (empty())
        return {};
    std::string out;
    const auto t = meanTtftS();
    if (!ttft) {
        out = "no TTFT histogram";
    } else if (!t) {
        out = "no request reached its first token";
    } else {
        char head[96];
        std::snprintf(head, sizeof head, "mean TTFT %s over %.0f requests", duration(*t).c_str(),
                      ttft->count);
        out = head;
        std::string parts;
        if (const auto q = meanQueueS())
            parts = "queue " + duration(*q);
        if (const auto p = meanPrefillS())
            parts += (parts.empty() ? "" : " + ") + std::string("prefill ") + duration(*p);
        // Tokenising and the front end: TTFT starts at arrival, the engine's phases later.
        // Under 0.5 % of TTFT it is rounding, not time.
        if (const auto o = otherS(); o && *o > 0.005 * *t)
            parts += " + other " + duration(*o);
        if (!parts.empty())
            out += " = " + parts;
        if (const auto r = retrievePerRequestS()) {
            char share[32] = "";
            if (const auto s = storageShare())
                std::snprintf(share, sizeof share, " (%.0f %%)", *s * 100);
            out += std::string(meanPrefillS() ? ", of which " : ", ") + "KV retrieve " +
                   duration(*r) + share;
        }
    }
    const auto missing = absent();
    if (!missing.empty()) {
        out += "; absent: ";
        for (std::size_t i = 0; i < missing.size(); ++i)
            out += (i ? ", " : "") + missing[i];
    }
    return out;
}

std::string TtftBreakdown::quantileText() const {
    std::string out;
    for (const auto& [part, name] : {std::pair{&ttft, "TTFT"},
                                     {&queue, "queue"},
                                     {&prefill, "prefill"},
                                     {&retrieve, "KV retrieve"}}) {
        if (!*part)
            continue;
        const auto p50 = (*part)->quantile(0.50), p99 = (*part)->quantile(0.99);
        if (!p50 || !p99)
            continue;
        out += (out.empty() ? "p50 / p99: " : ", ") + std::string(name) + " " +
               bounded(**part, *p50) + " / " + bounded(**part, *p99);
    }
    return out;
}

} // namespace tierscope
