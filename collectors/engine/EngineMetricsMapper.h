#pragma once

#include "collectors/engine/PrometheusTextParser.h"
#include "core/model/Reading.h"
#include "core/stats/HistogramQuantile.h"

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tierscope {

// Turns consecutive /metrics scrapes of one inference engine (vLLM V0 and V1 names, SGLang,
// LMCache) into tierscope metrics under engine/<endpoint>/. Pure: the caller does the I/O.
// Interval figures (quantiles over the last 30 s of intervals, per-second rates, hit rates)
// need two scrapes and activity; otherwise they are absent, never zero.
class EngineMetricsMapper {
  public:
    EngineMetricsMapper(std::string endpointId, bool recordRaw);

    std::vector<Reading> update(const PrometheusTextParser::Result& scrape, std::int64_t tNs);

    static std::string endpointIdFromUrl(const std::string& url);

    // The span of the <latency>_p50_s / _p90_s / _p99_s series: the scrape intervals that ended
    // in the last 30 s, as Grafana's histogram_quantile(rate(...[30s])) panels of vLLM.
    static constexpr std::int64_t kQuantileSpanNs = 30'000'000'000LL;
    // An engine with a label per request or per user would otherwise make one series each:
    // 1,000,000 series took 640 MB and 33 s to stop.
    static constexpr std::size_t kMaxRawSeries = 10'000;
    static constexpr std::size_t kMaxNewRawSeriesPerScrape = 2'000;

  private:
    // Everything per series (label set), as Prometheus keeps it: deltas are taken per series
    // and summed afterwards, so one restarted engine resets only its own series.
    struct Snapshot {
        std::int64_t tNs = 0;
        std::map<std::string, HistogramQuantile::Series> histograms;
        std::map<std::string, std::map<std::string, double>> counters;
        // Histogram _sum and _count per family and series.
        std::map<std::string, std::map<std::string, double>> sums, counts;
    };
    struct Observed {
        double sumS = 0;
        double count = 0;
    };

    void put(std::vector<Reading>& out, const std::string& what, const char* unit,
             std::optional<double> value) const;
    // <prefix>_p50_s, _p90_s and _p99_s over the last kQuantileSpanNs; for the TTFT parts also
    // each cumulative bucket's increase over the interval, <prefix>_bucket{le=...}.
    void quantiles(std::vector<Reading>& out, const Snapshot& now, const std::string& prefix,
                   const std::vector<std::string>& families);
    std::optional<HistogramQuantile::Buckets>
    intervalBuckets(const Snapshot& now, const std::vector<std::string>& families) const;
    std::optional<double> increase(const Snapshot& now, const std::string& name) const;
    std::optional<Observed> observed(const Snapshot& now,
                                     const std::vector<std::string>& families) const;
    void means(std::vector<Reading>& out, const Snapshot& now) const;
    std::optional<double> rate(const Snapshot& now, const std::vector<std::string>& names) const;
    std::optional<double> ratio(const Snapshot& now, const std::vector<std::string>& hits,
                                const std::vector<std::string>& queries) const;
    // --engine-raw: every series as it is, up to kMaxRawSeries in all and
    // kMaxNewRawSeriesPerScrape new ones a scrape; what is left out is counted in
    // raw_samples_dropped. A scrape that repeats a series is dropped whole, as Prometheus does.
    void raw(std::vector<Reading>& out, const PrometheusTextParser::Result& scrape);

    std::string m_prefix;
    bool m_recordRaw;
    std::set<std::string> m_rawSeries;
    std::uint64_t m_rawDropped = 0;
    std::optional<Snapshot> m_previous;
    // Per latency prefix, the bucket increases of the intervals in the quantile span.
    std::map<std::string, std::deque<std::pair<std::int64_t, HistogramQuantile::Buckets>>> m_recent;
};

} // namespace tierscope
