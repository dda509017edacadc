#pragma once

#include "collectors/engine/PrometheusTextParser.h"
#include "core/engine/EngineMetricCatalog.h"
#include "core/model/Reading.h"
#include "core/stats/HistogramQuantile.h"

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tierscope {

// Turns consecutive /metrics scrapes of one inference engine into tierscope metrics under
// engine/<endpoint>/, reading each role through the engine metric catalog (vLLM V0 and V1,
// SGLang, LMCache, TensorRT-LLM, vLLM's KV offload tiers, ...). Pure: the caller does the I/O.
// Interval figures (quantiles over the last 30 s of intervals, per-second rates, hit rates)
// need two scrapes and activity; otherwise they are absent, never zero.
class EngineMetricsMapper {
  public:
    EngineMetricsMapper(std::string endpointId, bool recordRaw,
                        const EngineMetricCatalog& catalog = EngineMetricCatalog::active());

    std::vector<Reading> update(const PrometheusTextParser::Result& scrape, std::int64_t tNs);

    static std::string endpointIdFromUrl(const std::string& url);

    // The schema canary of the latest scrape: per engine it speaks, the catalog's roles it
    // served and those it did not. Recorded as served{role=...} 1 or 0, at the first scrape,
    // when it changes, and at least every kCoverageRepeatNs, so any span can read it.
    const std::vector<EngineMetricCatalog::Coverage>& coverage() const { return m_coverage; }

    // The span of the <latency>_p50_s / _p90_s / _p99_s series: the scrape intervals that ended
    // in the last 30 s, as Grafana's histogram_quantile(rate(...[30s])) panels of vLLM.
    static constexpr std::int64_t kQuantileSpanNs = 30'000'000'000LL;
    // An engine with a label per request or per user would otherwise make one series each:
    // 1,000,000 series took 640 MB and 33 s to stop.
    static constexpr std::size_t kMaxRawSeries = 10'000;
    static constexpr std::int64_t kCoverageRepeatNs = 60'000'000'000LL;
    static constexpr std::size_t kMaxNewRawSeriesPerScrape = 2'000;

  private:
    // Every split value's increase added up; absent stays absent.
    static std::optional<double>
    summed(const std::optional<std::map<std::string, double>>& bySplit);
    // A label value as a series name may carry it.
    static std::string sanitize(const std::string& text);
    using Role = EngineMetricCatalog::Role;
    using Family = EngineMetricCatalog::Family;
    // A counter's or gauge's series: its value and its value of the role's split label.
    struct Value {
        double value = 0;
        std::string split;
    };
    // Everything per catalog family (Family::id) and series (label set), as Prometheus keeps
    // it: deltas are taken per series and summed afterwards, so one restarted engine resets
    // only its own series.
    struct Snapshot {
        std::int64_t tNs = 0;
        std::map<std::size_t, HistogramQuantile::Series> histograms;
        std::map<std::size_t, std::map<std::string, Value>> counters, gauges;
        // Histogram _sum and _count per family and series.
        std::map<std::size_t, std::map<std::string, double>> sums, counts;
        std::set<std::size_t> served;
    };
    struct Observed {
        double sumS = 0;
        double count = 0;
    };

    Snapshot snapshot(const PrometheusTextParser::Result& scrape, std::int64_t tNs) const;
    void put(std::vector<Reading>& out, const std::string& what, const char* unit,
             std::optional<double> value) const;
    void gauges(std::vector<Reading>& out, const Snapshot& now) const;
    void recorded(std::vector<Reading>& out, const Snapshot& now, bool interval) const;
    void recordCoverage(std::vector<Reading>& out, std::vector<EngineMetricCatalog::Coverage> now,
                        std::int64_t tNs);
    void intervalFigures(std::vector<Reading>& out, const Snapshot& now);
    void tierFigures(std::vector<Reading>& out, const Snapshot& now) const;
    // <role>_p50_s, _p90_s and _p99_s over the last kQuantileSpanNs; for the TTFT parts also
    // each cumulative bucket's increase over the interval, <role>_bucket{le=...}.
    void quantiles(std::vector<Reading>& out, const Snapshot& now, const Role& role);
    std::optional<HistogramQuantile::Buckets> intervalBuckets(const Snapshot& now,
                                                              const Role* role) const;
    // The role's counter increase over the interval per value of its split label (one entry,
    // "", for a role without one), from the first family served in both scrapes.
    std::optional<std::map<std::string, double>> increases(const Snapshot& now,
                                                           const Role* role) const;
    std::optional<std::map<std::string, double>> increases(const Snapshot& now,
                                                           const Family& family) const;
    std::optional<double> increase(const Snapshot& now, const Role* role) const;
    std::optional<std::map<std::string, double>> promptTokenSources(const Snapshot& now) const;
    std::optional<std::map<std::string, double>>
    withAdded(std::vector<Reading>& out, const Snapshot& now, const std::string& name) const;
    std::optional<Observed> observed(const Snapshot& now, const Role& role) const;
    void means(std::vector<Reading>& out, const Snapshot& now) const;
    std::optional<double> rate(const Snapshot& now, const char* role) const;
    std::optional<double> ratio(const Snapshot& now, const char* hits, const char* queries) const;
    // The role's gauge per value of its split label: the sum of its series, or the largest.
    std::optional<std::map<std::string, double>> gauge(const Snapshot& now, const Role* role) const;
    std::optional<double> gauge(const Snapshot& now, const char* role) const;
    const Role* role(const char* name) const { return m_catalog.role(name); }
    // --engine-raw: every series as it is, up to kMaxRawSeries in all and
    // kMaxNewRawSeriesPerScrape new ones a scrape; what is left out is counted in
    // raw_samples_dropped. A scrape that repeats a series is dropped whole, as Prometheus does.
    void raw(std::vector<Reading>& out, const PrometheusTextParser::Result& scrape);

    std::string m_prefix;
    bool m_recordRaw;
    const EngineMetricCatalog& m_catalog;
    std::vector<EngineMetricCatalog::Coverage> m_coverage;
    std::optional<std::int64_t> m_coverageRecordedNs;
    std::set<std::string> m_rawSeries;
    std::uint64_t m_rawDropped = 0;
    std::optional<Snapshot> m_previous;
    // Per latency prefix, the bucket increases of the intervals in the quantile span.
    std::map<std::string, std::deque<std::pair<std::int64_t, HistogramQuantile::Buckets>>> m_recent;
};

} // namespace tierscope
