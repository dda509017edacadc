#include "experiments/PlanError.h"

#include <stdexcept>

namespace tierscope {

void PlanError::at(const toml::node& node, const std::string& what) {
    throw std::runtime_error("plan, line " + std::to_string(node.source().begin.line) + ": " +
                             what);
}

} // namespace tierscope
