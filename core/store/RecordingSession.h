#pragma once

#include "core/model/SampleSink.h"
#include "core/model/SessionInfo.h"
#include "core/store/SessionRecorder.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tierscope {

// One session being recorded, for every live path (a machine's collectors, an SSH mirror, a
// Prometheus follower): opens the workspace, creates the session, owns the writer and the
// optional tee into a live buffer, and finishes the session once, writer first.
class RecordingSession {
  public:
    struct Options {
        std::string dbPath;
        StoreWriter::Options writer;
        SampleSink* observer = nullptr; // also gets every reading (the GUI's live buffer)
    };

    // Throws StoreError when the workspace cannot be opened or written.
    RecordingSession(Options options, const SessionInfo& info);
    ~RecordingSession(); // finish() at the time of destruction, if not finished yet
    RecordingSession(const RecordingSession&) = delete;
    RecordingSession& operator=(const RecordingSession&) = delete;

    std::int64_t id() const { return m_id; }
    // For devices and events while recording. Not for the writer's thread.
    Store& store() { return *m_store; }
    // Where readings go: the writer, and the observer too.
    SampleSink& sink();
    std::size_t metricCount() const { return m_recorder->metricCount(); }
    StoreWriter::Stats stats() const { return m_writer->stats(); }
    std::optional<std::string> error() const { return m_writer->error(); }
    std::optional<StoreError> failure() const { return m_writer->failure(); }

    // Drains and stops the writer, adds the event `eventKind` (none when empty) and closes the
    // session at endNs. Idempotent. A store that refuses (a full disk) leaves the session
    // open-ended, which readers show as interrupted; the samples committed are intact, and
    // false is returned.
    bool finish(std::int64_t endNs, const std::string& eventKind = "",
                const std::string& eventText = "");
    // Drains and stops the writer; what it stored stays, and error() is final. Idempotent.
    void stopWriter() { m_writer->stop(); }
    // Stops the writer and leaves the session open-ended: it never started recording.
    void abandon();
    bool finished() const { return m_finished; }

  private:
    Options m_options;
    std::unique_ptr<Store> m_store;
    std::int64_t m_id = 0;
    std::unique_ptr<StoreWriter> m_writer;
    std::unique_ptr<SessionRecorder> m_recorder;
    std::unique_ptr<SampleSink> m_tee;
    bool m_finished = false;
};

} // namespace tierscope
