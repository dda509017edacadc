#pragma once

#include <cstdint>
#include <optional>

namespace tierscope {

// When the live view draws its next frame, and where that frame's right edge lies.
//
// The live axis reads "seconds ago", so every frame moves every point. A frame drawn before
// the view has moved by a whole pixel draws the same pixels again: at 10 Hz recording a 5 min
// window over 1,700 px moves a pixel every 176 ms, yet the 100 ms repaint timer found new
// samples at every tick. The edge is therefore "now" snapped down to the time one pixel spans,
// and a frame is due only when that edge moved and there is something new to draw (samples
// written since the last frame); a stopped recording stays still, as before.
//
// A period (the user's "redraw every", 500 ms by default) spaces the frames further: the edge
// then moves by whole multiples of a pixel's time, at least the period. Redrawing 64 series
// costs about 10 ms of CPU however few pixels moved, so the period, not the pixel, sets the
// live view's CPU share (docs/PERFORMANCE.md); a multiple of the pixel keeps the decimation's
// buckets on the same columns from frame to frame.
class LiveFramePacer {
  public:
    // The time one pixel column spans: the window over the plot's width, at least 1 ms.
    static std::int64_t pixelNs(std::int64_t windowNs, int plotWidthPx);
    // How far the edge moves from one frame to the next: the smallest multiple of pixelNs
    // that is at least `periodNs`.
    static std::int64_t stepNs(std::int64_t windowNs, int plotWidthPx, std::int64_t periodNs = 0);
    // `now` snapped down to a multiple of stepNs.
    static std::int64_t edgeOf(std::int64_t nowNs, std::int64_t windowNs, int plotWidthPx,
                               std::int64_t periodNs = 0);

    // The shortest time between two frames (0: every pixel).
    void setPeriod(std::int64_t periodNs) {
        m_period = periodNs > 0 ? periodNs : 0;
        m_force = true;
    }
    std::int64_t period() const { return m_period; }

    // The edge of the frame to draw now, or nothing when the last frame still holds. `version`
    // counts the samples written (LiveBuffer::version()). A frame returned counts as drawn.
    std::optional<std::int64_t> due(std::int64_t nowNs, std::int64_t windowNs, int plotWidthPx,
                                    std::uint64_t version);
    // The next call draws, whatever moved: the charts changed, the view scrolled, a pause ended.
    void invalidate() { m_force = true; }

  private:
    bool m_force = true;
    std::int64_t m_period = 0;
    std::int64_t m_edge = 0;
    std::uint64_t m_version = 0;
};

} // namespace tierscope
