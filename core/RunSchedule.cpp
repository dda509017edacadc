#include "core/RunSchedule.h"

#include <algorithm>
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
            if (plan.randomOrder)
                std::shuffle(arms.begin(), arms.end(), random);
            const bool warmup = rep < plan.warmup;
            for (const std::size_t arm : arms)
                out.push_back({arm, variant, warmup ? 0 : rep - plan.warmup + 1, warmup});
        }
    }
    return out;
}

} // namespace tierscope
