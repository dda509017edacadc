#include "ui/feeds/PrometheusFeed.h"

#include "collectors/prometheus/PrometheusApi.h"
#include "collectors/prometheus/PrometheusRecording.h"
#include "collectors/prometheus/PrometheusTemplate.h"
#include "core/store/LiveBuffer.h"
#include "core/util/WallClock.h"

#include <QTimer>
#include <filesystem>

namespace tierscope {

namespace {

double nowS() {
    return static_cast<double>(WallClock::systemNowNs()) / 1e9;
}

} // namespace

PrometheusFeed::PrometheusFeed(LiveBuffer& buffer, QObject* parent)
    : QObject(parent), m_buffer(buffer) {}

PrometheusFeed::~PrometheusFeed() {
    stop();
}

void PrometheusFeed::listNodes(const QString& url, const QString& nodes) {
    const PrometheusApi api(url.toStdString(), std::chrono::seconds(10));
    const std::string regex = nodes.isEmpty() ? ".+" : nodes.toStdString();
    // The templates' own quoting puts the regex into PromQL safely.
    PrometheusTemplate up;
    up.query = "up{instance=~\"{nodes}\"}";
    const auto r = api.query(up.expandQuery(regex, ""));
    QStringList out;
    for (const auto& s : r.series) {
        const auto instance = s.labels.find("instance");
        const auto job = s.labels.find("job");
        if (instance == s.labels.end())
            continue;
        const bool up = !s.points.empty() && s.points.back().second == 1;
        out << QString("%1 (%2, %3)")
                   .arg(QString::fromStdString(instance->second),
                        QString::fromStdString(job == s.labels.end() ? "" : job->second),
                        up ? tr("up") : tr("down"));
    }
    out.sort();
    emit nodesListed(out, QString::fromStdString(r.error));
}

void PrometheusFeed::probe(const QString& url) {
    const PrometheusApi api(url.toStdString(), std::chrono::seconds(10));
    const auto r = api.query("up");
    emit probed(url, QString::fromStdString(r.error));
}

void PrometheusFeed::start(const Request& request) {
    stop();
    try {
        m_request = request;
        std::error_code ec;
        std::filesystem::create_directories(
            std::filesystem::path(request.db.toStdString()).parent_path(), ec);
        PrometheusRecording::Options o;
        o.dbPath = request.db.toStdString();
        o.import.url = request.url.toStdString();
        o.import.nodes = request.nodes.isEmpty() ? ".+" : request.nodes.toStdString();
        o.import.stepS = request.stepS;
        o.import.timeout = std::chrono::seconds(10);
        o.label = request.label.toStdString();
        // The last five minutes first, so the view is not empty while the feed starts.
        o.followFromS = nowS() - 300;
        o.observer = &m_buffer;
        m_buffer.clear(); // this machine's series are not the cluster's
        m_recording = std::make_unique<PrometheusRecording>(o);
        m_timer = new QTimer(this);
        connect(m_timer, &QTimer::timeout, this, &PrometheusFeed::poll);
        m_timer->start(static_cast<int>(std::max(1000.0, request.stepS * 1000)));
        emit started(m_recording->session());
        poll();
    } catch (const std::exception& e) {
        stop();
        emit failed(QString::fromStdString(e.what()));
    }
}

void PrometheusFeed::poll() {
    if (!m_recording)
        return;
    const auto summary = m_recording->poll(nowS());
    if (!summary)
        return;
    const QString error =
        summary->errors.empty() ? QString() : QString::fromStdString(summary->errors.front());
    if (!error.isEmpty() && error != m_lastError)
        emit failed(error);
    m_lastError = error;
}

void PrometheusFeed::stop() {
    if (m_timer) {
        m_timer->stop();
        m_timer->deleteLater();
        m_timer = nullptr;
    }
    if (!m_recording)
        return;
    const qint64 session = m_recording->session();
    // A store that refuses leaves the session open-ended: unfinished, its data written.
    m_recording->finish(WallClock::systemNowNs());
    m_recording.reset();
    emit stopped(session);
}

} // namespace tierscope
