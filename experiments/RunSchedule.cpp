#include "experiments/RunSchedule.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>

namespace tierscope {

std::vector<ScheduledRun> RunSchedule::build(const ExperimentPlan& plan) {
    std::vector<ScheduledRun> out;
    std::mt19937_64 random(plan.seed);
    std::vector<std::size_t> arms(plan.arms.size());
    for (const auto& variant : plan.variants()) {
        for (int rep = 0; rep < plan.warmup + plan.repetitions; ++rep) {
            std::iota(arms.begin(), arms.end(), 0);
            const bool warmup = rep < plan.warmup;
            const int measured = rep - plan.warmup; // counts from 0 at the first measured one
            if (plan.order == ExperimentPlan::Order::Random)
                std::shuffle(arms.begin(), arms.end(), random);
            else if (plan.order == ExperimentPlan::Order::Abba && !warmup && measured % 2 == 1)
                std::reverse(arms.begin(), arms.end());
            const auto& sweep = plan.workloads[variant.workload].sweep;
            std::vector<double> points = {0};
            if (sweep)
                points = warmup ? std::vector<double>{sweep->points.front()} : sweep->points;
            for (const double point : points)
                for (const std::size_t arm : arms)
                    out.push_back(
                        {arm, variant, warmup ? 0 : rep - plan.warmup + 1, warmup, point, 0});
        }
    }
    return out;
}

std::vector<ScheduledRun> RunSchedule::block(const ExperimentPlan& plan, int first, int count) {
    std::vector<ScheduledRun> out;
    // Seeded by the block, so a block's order does not depend on the blocks before it.
    std::mt19937_64 random(plan.seed + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(first));
    std::vector<std::size_t> arms(plan.arms.size());
    for (const auto& variant : plan.variants())
        for (int rep = first; rep < first + count; ++rep) {
            std::iota(arms.begin(), arms.end(), 0);
            if (plan.order == ExperimentPlan::Order::Random)
                std::shuffle(arms.begin(), arms.end(), random);
            else if (plan.order == ExperimentPlan::Order::Abba && (rep - 1) % 2 == 1)
                std::reverse(arms.begin(), arms.end());
            for (const std::size_t arm : arms)
                out.push_back({arm, variant, rep, false, 0, 0});
        }
    return out;
}

} // namespace tierscope
