#pragma once

#include "core/model/SampleSink.h"

namespace tierscope {

// Delivers every reading to two sinks: the store's and, say, a live view's buffer.
class TeeSink : public SampleSink {
  public:
    TeeSink(SampleSink& first, SampleSink& second) : m_first(first), m_second(second) {}
    void write(std::int64_t tNs, std::span<const Reading> readings) override {
        m_first.write(tNs, readings);
        m_second.write(tNs, readings);
    }

  private:
    SampleSink& m_first;
    SampleSink& m_second;
};

} // namespace tierscope
