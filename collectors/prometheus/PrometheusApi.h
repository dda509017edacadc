#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tierscope {

// A client for the Prometheus HTTP API (/api/v1/query and /api/v1/query_range). Parsing is a
// pure function; the I/O is one libcurl request per call, with timeouts.
class PrometheusApi {
  public:
    struct Series {
        std::map<std::string, std::string> labels;     // includes __name__ when there is one
        std::vector<std::pair<double, double>> points; // unix seconds, value
    };
    struct Result {
        std::vector<Series> series;
        std::string error; // empty when the query succeeded
        std::vector<std::string> warnings;
    };

    // Prometheus caps a range query at 11,000 points per series; stay under it.
    static constexpr long kMaxPointsPerQuery = 10000;

    explicit PrometheusApi(std::string baseUrl,
                           std::chrono::milliseconds timeout = std::chrono::seconds(30));

    // Splits [start, end] into ranges of at most kMaxPointsPerQuery steps and joins the
    // series; a failing piece's error is reported and the other pieces are kept.
    Result queryRange(const std::string& query, double start, double end, double step) const;
    Result query(const std::string& query, std::optional<double> at = std::nullopt) const;

    // The JSON body of a query or query_range answer ("matrix", "vector" or "scalar").
    static Result parse(std::string_view json);
    static std::string urlEncode(std::string_view text);

  private:
    Result get(const std::string& pathAndQuery) const;

    std::string m_base;
    std::chrono::milliseconds m_timeout;
};

} // namespace tierscope
