#include "core/store/VllmBenchImport.h"

#include <algorithm>
#include <ctime>
#include <stdexcept>

namespace tierscope {

VllmBenchImport VllmBenchImport::parse(const std::string& text) {
    const auto file = nlohmann::json::parse(text, nullptr, false);
    if (file.is_discarded() || !file.is_object())
        throw std::runtime_error("not a JSON object");
    for (const char* key : {"completed", "duration", "mean_ttft_ms"})
        if (!file.contains(key))
            throw std::runtime_error(std::string("not a vllm bench serve result: no \"") + key +
                                     "\"");
    VllmBenchImport out;
    out.summary = nlohmann::json::object();
    for (const auto& [key, value] : file.items())
        if (!value.is_array() && !value.is_object())
            out.summary[key] = value;
    out.model = file.value("model_id", std::string());
    out.label =
        file.contains("label") && file["label"].is_string() ? file["label"].get<std::string>() : "";
    for (const char* key : {"model_id", "backend", "endpoint_type", "num_prompts", "request_rate",
                            "burstiness", "max_concurrency", "label"})
        if (file.contains(key))
            out.params[key] = file[key];
    if (file.contains("date") && file["date"].is_string()) {
        std::tm tm{};
        if (strptime(file["date"].get<std::string>().c_str(), "%Y%m%d-%H%M%S", &tm)) {
            tm.tm_isdst = -1;
            out.startNs = static_cast<std::int64_t>(std::mktime(&tm)) * 1'000'000'000;
        }
    }
    if (!file.contains("ttfts") || !file["ttfts"].is_array())
        return out;
    const auto& ttfts = file["ttfts"];
    auto at = [&](const char* key, std::size_t i) -> const nlohmann::json* {
        if (!file.contains(key) || !file[key].is_array() || i >= file[key].size())
            return nullptr;
        return &file[key][i];
    };
    for (std::size_t i = 0; i < ttfts.size(); ++i) {
        RequestRecord r;
        r.index = static_cast<std::int64_t>(i);
        const auto* error = at("errors", i);
        r.error = error && error->is_string() ? error->get<std::string>() : "";
        r.httpStatus = r.error.empty() ? 200 : 0;
        if (const auto* in = at("input_lens", i); in && in->is_number())
            r.promptTokens = in->get<int>();
        if (const auto* outLen = at("output_lens", i); outLen && outLen->is_number())
            r.outputTokens = outLen->get<int>();
        if (r.error.empty() && ttfts[i].is_number())
            r.ttftS = ttfts[i].get<double>();
        if (const auto* gaps = at("itls", i); gaps && gaps->is_array()) {
            for (const auto& g : *gaps)
                if (g.is_number())
                    r.itlS.push_back(g.get<double>());
        }
        if (r.ttftS) {
            double e2e = *r.ttftS;
            for (const double g : r.itlS)
                e2e += g;
            r.e2eS = e2e; // vLLM does not save per-request latency; TTFT plus the gaps is it
        }
        out.requests.push_back(std::move(r));
    }
    return out;
}

std::vector<VllmBenchImport> VllmBenchImport::parseAll(const std::string& text) {
    const auto whole = nlohmann::json::parse(text, nullptr, false);
    if (!whole.is_discarded())
        return {parse(text)};
    std::vector<VllmBenchImport> out;
    std::size_t from = 0;
    for (int line = 1; from < text.size(); ++line) {
        const auto end = std::min(text.find('\n', from), text.size());
        const std::string one = text.substr(from, end - from);
        from = end + 1;
        if (one.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        try {
            out.push_back(parse(one));
        } catch (const std::exception& e) {
            throw std::runtime_error("line " + std::to_string(line) + ": " + e.what());
        }
    }
    if (out.empty())
        throw std::runtime_error("no result in the file");
    return out;
}

} // namespace tierscope
