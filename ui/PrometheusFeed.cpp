#include "ui/PrometheusFeed.h"

#include "collectors/prometheus/PrometheusApi.h"
#include "collectors/prometheus/PrometheusFollower.h"
#include "core/store/LiveBuffer.h"
#include "collectors/prometheus/PrometheusTemplate.h"
#include "core/store/SessionRecorder.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"
#include "core/model/TeeSink.h"
#include "core/util/Version.h"
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
        m_store = std::make_unique<Store>(request.db.toStdString(), Store::Mode::ReadWrite);
        const std::string label = request.label.isEmpty()
                                      ? "prometheus " + request.url.toStdString()
                                      : request.label.toStdString();
        m_session = m_store->createSession({0, label, "", request.url.toStdString(),
                                            WallClock::systemNowNs(), std::nullopt,
                                            "from Prometheus " + request.url.toStdString() +
                                                ", nodes " + request.nodes.toStdString(),
                                            "prometheus", kToolVersion});
        m_writer = std::make_unique<StoreWriter>(request.db.toStdString());
        m_recorder = std::make_unique<SessionRecorder>(*m_writer, m_session);
        m_tee = std::make_unique<TeeSink>(*m_recorder, m_buffer);
        m_buffer.clear(); // this machine's series are not the cluster's
        PrometheusImport::Options o;
        o.url = request.url.toStdString();
        o.nodes = request.nodes.isEmpty() ? ".+" : request.nodes.toStdString();
        o.stepS = request.stepS;
        o.timeout = std::chrono::seconds(10);
        // The last five minutes first, so the view is not empty while the feed starts.
        m_follower = std::make_unique<PrometheusFollower>(o, nowS() - 300);
        m_timer = new QTimer(this);
        connect(m_timer, &QTimer::timeout, this, &PrometheusFeed::poll);
        m_timer->start(static_cast<int>(std::max(1000.0, request.stepS * 1000)));
        emit started(m_session);
        poll();
    } catch (const std::exception& e) {
        stop();
        emit failed(QString::fromStdString(e.what()));
    }
}

void PrometheusFeed::poll() {
    if (!m_tee || !m_follower)
        return;
    const auto summary = m_follower->poll(nowS(), *m_tee);
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
    if (!m_store)
        return;
    m_follower.reset();
    m_tee.reset();
    m_recorder.reset();
    if (m_writer)
        m_writer->stop();
    m_writer.reset();
    try {
        m_store->finishSession(m_session, WallClock::systemNowNs());
    } catch (const std::exception&) {
        // the data is written; an open end only marks it unfinished
    }
    m_store.reset();
    emit stopped(m_session);
    m_session = 0;
}

} // namespace tierscope
