#include "core/stats/TtftBreakdown.h"

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

const std::vector<TtftBreakdown::Part>& TtftBreakdown::parts() {
    static const std::vector<Part> all = {
        {&TtftBreakdown::ttft, "ttft", "ttft", "TTFT", false, Phase::None},
        {&TtftBreakdown::queue, "queue_time", "queue", "queue", false, Phase::None},
        {&TtftBreakdown::prefill, "prefill_time", "prefill", "prefill", false, Phase::None},
        // vLLM defers a request while its KV lookup runs: the wait is queue time.
        {&TtftBreakdown::lookupWait, "kv_lookup_wait", "lookup_wait", "KV lookup wait", true,
         Phase::Queue},
        // LMCache retrieves in the model runner's forward pass: prefill time (vLLM V1).
        {&TtftBreakdown::retrieve, "lmcache_retrieve", "retrieve", "KV retrieve", true,
         Phase::Prefill},
        {&TtftBreakdown::loadBack, "kv_load_back", "load_back", "KV load back", true,
         Phase::Prefill},
    };
    return all;
}

void TtftBreakdown::add(const TtftBreakdown& other) {
    for (const auto& part : parts())
        merge(this->*part.member, other.*part.member);
}

bool TtftBreakdown::empty() const {
    const auto& all = parts();
    return std::none_of(all.begin(), all.end(),
                        [this](const Part& p) { return (this->*p.member).has_value(); });
}

bool TtftBreakdown::hasStorage() const {
    const auto& all = parts();
    return std::any_of(all.begin(), all.end(), [this](const Part& p) {
        return p.storage && (this->*p.member).has_value();
    });
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

std::optional<double> TtftBreakdown::perRequestS(const Part& part) const {
    const auto& o = this->*part.member;
    if (!o || !ttft || ttft->count <= 0)
        return std::nullopt;
    return o->sumS / ttft->count;
}

std::optional<double> TtftBreakdown::retrievePerRequestS() const {
    if (!retrieve || !ttft || ttft->count <= 0)
        return std::nullopt;
    return retrieve->sumS / ttft->count;
}

std::optional<double> TtftBreakdown::storageWaitS() const {
    std::optional<double> total;
    for (const auto& part : parts())
        if (part.storage)
            if (const auto s = perRequestS(part))
                total = total.value_or(0) + *s;
    return total;
}

std::optional<double> TtftBreakdown::storageShare() const {
    if (!hasStorage() || !ttft || ttft->sumS <= 0)
        return std::nullopt;
    double storage = 0;
    for (const auto& part : parts())
        if (part.storage && this->*part.member)
            storage += (this->*part.member)->sumS;
    return storage / ttft->sumS;
}

namespace {

// A phase's mean less the storage wait inside it, where that wait fits in it.
std::optional<double> lessStorage(const TtftBreakdown& b, std::optional<double> phaseMean,
                                  TtftBreakdown::Phase phase) {
    if (!phaseMean)
        return std::nullopt;
    double inside = 0;
    for (const auto& part : TtftBreakdown::parts())
        if (part.storage && part.within == phase)
            inside += b.perRequestS(part).value_or(0);
    return inside <= *phaseMean ? *phaseMean - inside : *phaseMean;
}

} // namespace

std::optional<double> TtftBreakdown::queueLessStorageS() const {
    return lessStorage(*this, meanQueueS(), Phase::Queue);
}

std::optional<double> TtftBreakdown::prefillComputeS() const {
    return lessStorage(*this, meanPrefillS(), Phase::Prefill);
}

std::optional<double> TtftBreakdown::residualS() const {
    const auto t = meanTtftS();
    const auto q = queueLessStorageS(), s = storageWaitS(), p = prefillComputeS();
    if (!t || (!q && !s && !p))
        return std::nullopt;
    const double residual = *t - q.value_or(0) - s.value_or(0) - p.value_or(0);
    // Parts that add up exactly leave floating-point dust, not a "-0.0 ms".
    return std::fabs(residual) < 1e-9 ? 0.0 : residual;
}

std::optional<double> TtftBreakdown::otherS() const {
    const auto t = meanTtftS(), q = meanQueueS(), p = meanPrefillS();
    if (!t || !q || !p)
        return std::nullopt;
    return *t - *q - *p;
}

std::vector<std::string> TtftBreakdown::absent() const {
    std::vector<std::string> out;
    if (!ttft)
        out.push_back("TTFT");
    if (!queue)
        out.push_back("queue time");
    if (!prefill)
        out.push_back("prefill time");
    if (!hasStorage())
        out.push_back("storage wait");
    return out;
}

namespace {

// "KV lookup wait 0.20 s (in queue) + KV retrieve 4.60 s (in prefill)".
std::string storageParts(const TtftBreakdown& b) {
    std::string out;
    for (const auto& part : TtftBreakdown::parts()) {
        const auto s = part.storage ? b.perRequestS(part) : std::nullopt;
        if (!s)
            continue;
        const bool queue = part.within == TtftBreakdown::Phase::Queue;
        const auto phase = queue ? b.meanQueueS() : b.meanPrefillS();
        out += (out.empty() ? "" : " + ") + std::string(part.title) + " " + duration(*s);
        if (phase && *s <= *phase)
            out += queue ? " (in queue)" : " (in prefill)";
    }
    return out;
}

} // namespace

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
        std::string sum;
        auto term = [&](const std::string& name, std::optional<double> s) {
            if (s)
                sum += (sum.empty() ? "" : " + ") + name + " " + duration(*s);
        };
        term("queue", queueLessStorageS());
        if (const auto s = storageWaitS()) {
            char share[32] = "";
            if (const auto f = storageShare())
                std::snprintf(share, sizeof share, " (%.0f %%)", *f * 100);
            sum += (sum.empty() ? "" : " + ") + std::string("storage wait ") + duration(*s) + share;
        }
        term(hasStorage() ? "prefill compute" : "prefill", prefillComputeS());
        term("residual", residualS());
        if (!sum.empty())
            out += " = " + sum;
        if (hasStorage())
            out += "; storage wait: " + storageParts(*this);
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
    for (const auto& part : parts()) {
        const auto& o = this->*part.member;
        if (!o)
            continue;
        const auto p50 = o->quantile(0.50), p99 = o->quantile(0.99);
        if (!p50 || !p99)
            continue;
        out += (out.empty() ? "p50 / p99: " : ", ") + std::string(part.title) + " " +
               bounded(*o, *p50) + " / " + bounded(*o, *p99);
    }
    return out;
}

} // namespace tierscope
