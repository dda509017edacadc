#include "remote/RemoteMirror.h"

#include "core/store/RecordingSession.h"
#include "core/util/Version.h"
#include "core/util/WallClock.h"
#include "remote/RemoteStreamReader.h"

#include <memory>

namespace tierscope {

namespace {

// The local half: a session of the workstation's workspace that says where it came from.
class Mirror {
  public:
    Mirror(const RemoteMirror::Options& o, const SshTarget& target) : m_o(o), m_target(target) {}

    ~Mirror() { finish(); }

    void open(const RemoteStreamReader::Hello& h) {
        SessionInfo info;
        info.label = m_o.label.empty()
                         ? h.host + " (ssh, server session " + std::to_string(h.session) + ")"
                         : m_o.label;
        info.storageProfile = m_o.storageProfile;
        info.host = h.host;
        info.startNs = WallClock::systemNowNs();
        info.notes = "live mirror of session " + std::to_string(h.session) + " on " + h.host +
                     " (" + m_target.uri() + "), recorded there by tierscope " + h.version;
        info.tags = "ssh-mirror";
        info.toolVersion = kToolVersion;
        m_recording = std::make_unique<RecordingSession>(
            RecordingSession::Options{m_o.dbPath, {}, m_o.observer}, info);
        m_session = m_recording->id();
        m_recording->store().addEvent(m_session, info.startNs, "mirror-of",
                                      h.host + " session " + std::to_string(h.session));
    }

    void device(const DeviceRecord& d) {
        if (!m_recording)
            return;
        m_devices.push_back(d);
        m_recording->store().addDevices(m_session, {d});
    }

    void samples(std::int64_t tNs, std::span<const Reading> readings) {
        if (!m_recording)
            return;
        if (!m_announced)
            announce();
        m_recording->sink().write(tNs, readings);
        ++m_rows;
    }

    void announce() {
        m_announced = true;
        if (m_o.started)
            m_o.started(m_session, m_host, m_remote, m_devices);
    }

    void finish() {
        if (!m_recording)
            return;
        // A store that refuses leaves the mirror open-ended: unfinished, its samples written.
        m_recording->finish(WallClock::systemNowNs());
        m_recording.reset();
    }

    std::string m_host;
    std::int64_t m_remote = 0;
    std::int64_t m_session = 0;
    std::size_t m_rows = 0;

  private:
    const RemoteMirror::Options& m_o;
    const SshTarget& m_target;
    std::unique_ptr<RecordingSession> m_recording;
    std::vector<DeviceRecord> m_devices;
    bool m_announced = false;
};

} // namespace

RemoteMirror::Result RemoteMirror::run(SshSession& session, const Options& o,
                                       const std::atomic<bool>& stop) {
    Result result;
    Mirror mirror(o, session.target());
    std::string ended;
    bool endSeen = false;
    std::string storeError;
    RemoteStreamReader::Callbacks callbacks;
    callbacks.hello = [&](const RemoteStreamReader::Hello& h) {
        try {
            mirror.m_host = h.host;
            mirror.m_remote = h.session;
            mirror.open(h);
        } catch (const std::exception& e) {
            storeError = e.what();
        }
    };
    callbacks.device = [&](const DeviceRecord& d) { mirror.device(d); };
    callbacks.samples = [&](std::int64_t t, std::span<const Reading> r) { mirror.samples(t, r); };
    callbacks.end = [&](const std::string& reason) {
        endSeen = true;
        ended = reason;
    };
    RemoteStreamReader reader(callbacks);

    std::vector<std::string> args{"stream", "--interval", o.interval};
    if (!o.duration.empty())
        args.insert(args.end(), {"--duration", o.duration});
    if (!o.label.empty())
        args.insert(args.end(), {"--label", o.label});
    if (!o.storageProfile.empty())
        args.insert(args.end(), {"--storage-profile", o.storageProfile});
    auto process = session.start(args);
    auto lastLine = std::chrono::steady_clock::now();
    bool stopping = false;
    bool silent = false;
    while (!process->eof() && !reader.broken() && storeError.empty()) {
        if (stop && !stopping) {
            stopping = true; // the server ends its recording cleanly on end of input
            process->closeStdin();
        }
        const auto bytes = process->read(std::chrono::milliseconds(200));
        const auto now = std::chrono::steady_clock::now();
        if (!bytes.empty()) {
            lastLine = now;
            reader.feed(bytes);
        } else if (now - lastLine > (stopping ? std::chrono::milliseconds(10000) : o.silence)) {
            silent = true;
            break;
        }
    }
    if (!mirror.m_rows && mirror.m_session)
        mirror.announce(); // a stream without samples still made its session
    mirror.finish();
    result.host = mirror.m_host;
    result.localSession = mirror.m_session;
    result.remoteSession = mirror.m_remote;
    result.sampleRows = mirror.m_rows;

    const auto code = process->eof() && !reader.broken() ? process->wait(std::chrono::seconds(10))
                                                         : std::optional<int>();
    if (!code)
        process->terminate();
    if (!storeError.empty()) {
        result.error = storeError;
    } else if (reader.broken()) {
        result.kind =
            reader.incompatible() ? SshDiagnosis::Kind::Incompatible : SshDiagnosis::Kind::Other;
        // A shell's "not found" is no hello: the exit status tells that story better.
        const auto shell = process->wait(std::chrono::seconds(2));
        if (!reader.helloSeen() && shell && *shell != 0 && !reader.incompatible()) {
            const auto d = session.diagnose(*shell, process->stderrText());
            result.kind = d.kind;
            result.error = d.line;
        } else {
            result.error = reader.error();
        }
    } else if (silent) {
        result.kind = SshDiagnosis::Kind::Lost;
        result.error = "the connection to " + session.target().host + " went silent for " +
                       std::to_string(o.silence.count() / 1000) + " s; treated as lost";
    } else if (endSeen) {
        result.ok = true;
    } else {
        const int status = code.value_or(255);
        const auto d = session.diagnose(status, process->stderrText());
        result.kind = d.kind;
        result.error = status == 0 ? "the server's stream ended without its end line" : d.line;
        if (status == 255 && reader.helloSeen())
            result.kind = SshDiagnosis::Kind::Lost;
    }
    if (!result.ok && reader.helloSeen() && result.kind == SshDiagnosis::Kind::Lost)
        result.error = "the connection to " + session.target().host +
                       " was lost; the server's session " + std::to_string(result.remoteSession) +
                       " ended there with what it had recorded";
    (void)ended;
    return result;
}

} // namespace tierscope
