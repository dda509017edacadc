#include "collectors/Agent.h"

#include "collectors/BlockDeviceNames.h"
#include "collectors/HostCollector.h"
#include "collectors/MachineInventory.h"
#include "collectors/SysfsReader.h"
#include "core/Version.h"
#include "core/WallClock.h"

#include <httplib.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tierscope {

namespace {

std::map<std::string, std::string> nqnsOf(const std::vector<DeviceRecord>& devices) {
    std::map<std::string, std::string> out;
    for (const auto& d : devices) {
        if (d.kind != "nvme-controller")
            continue;
        const auto a = nlohmann::json::parse(d.attrs, nullptr, false);
        if (!a.is_object() || !a.contains("namespaces"))
            continue;
        const std::string nqn = a.value("subsysnqn", "");
        for (const auto& ns : a["namespaces"]) {
            if (ns.contains("block"))
                out[ns["block"].get<std::string>()] = nqn;
            if (ns.contains("head"))
                out[ns["head"].get<std::string>()] = nqn;
        }
    }
    return out;
}

} // namespace

Agent::Agent(Options options) : m_options(std::move(options)) {}

Agent::~Agent() {
    stop();
}

bool Agent::isLoopback(const std::string& host) {
    return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

int Agent::start() {
    auto inventory = MachineInventory::discover(m_options.paths);
    for (const auto& d : inventory.devices)
        if (d.kind == "nvme-controller")
            m_base.controllers.push_back(d);
    m_base.transports = inventory.transports;
    m_base.nqns = nqnsOf(inventory.devices);
    m_base.version = kToolVersion;
    m_collectors.push_back(std::make_unique<HostCollector>(m_options.paths));
    for (auto& c : inventory.gpus.collectors)
        m_collectors.push_back(std::move(c));
    m_sampler = std::thread([this] { sampleLoop(); });

    m_server = std::make_unique<httplib::Server>();
    m_server->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
        res.set_content(scrape(), "text/plain; version=0.0.4; charset=utf-8");
    });
    m_server->Get("/", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("<html><body><a href=\"/metrics\">tierscope agent: /metrics</a>"
                        "</body></html>\n",
                        "text/html");
    });
    const std::string host = m_options.host == "[::1]" ? "::1" : m_options.host;
    const int port = m_options.port == 0 ? m_server->bind_to_any_port(host)
                     : m_server->bind_to_port(host, m_options.port) ? m_options.port
                                                                    : -1;
    if (port <= 0) {
        stop();
        throw std::runtime_error("cannot listen on " + m_options.host + ":" +
                                 std::to_string(m_options.port) +
                                 " (in use, or not an address of this machine)");
    }
    m_serverThread = std::thread([this] {
        m_server->listen_after_bind();
        m_serverDone = true;
    });
    // cpp-httplib's stop() does nothing before the server runs: a stop() right after start()
    // (a SIGTERM during start-up) would be lost and the join would wait forever.
    while (!m_server->is_running() && !m_serverDone)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return port;
}

void Agent::stop() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_server)
        m_server->stop();
    if (m_serverThread.joinable())
        m_serverThread.join();
    if (m_sampler.joinable())
        m_sampler.join();
}

void Agent::sampleLoop() {
    WallClock clock;
    std::unique_lock lock(m_mutex);
    while (!m_stop) {
        lock.unlock();
        std::vector<Reading> gpu, host;
        for (std::size_t i = 0; i < m_collectors.size(); ++i) {
            auto readings = m_collectors[i]->sample(clock.nowNs());
            auto& into = i == 0 ? host : gpu; // the host collector is first
            into.insert(into.end(), readings.begin(), readings.end());
        }
        lock.lock();
        m_gpu = std::move(gpu);
        m_host = std::move(host);
        m_wake.wait_for(lock, m_options.interval, [this] { return m_stop; });
    }
}

std::string Agent::scrape() {
    AgentSnapshot s = m_base;
    const auto text = SysfsReader::readFile(m_options.paths.proc + "/diskstats");
    for (auto& d : DiskstatsParser::parse(text.value_or("")))
        if (!BlockDeviceNames::isIgnored(d.name) &&
            !SysfsReader::exists(m_options.paths.sys + "/class/block/" + d.name + "/partition"))
            s.disks.push_back(std::move(d));
    {
        std::lock_guard lock(m_mutex);
        s.gpu = m_gpu;
        s.host = m_host;
    }
    // Scrapes run on the server's threads, possibly at once: one atomic step, not load+store.
    s.scrapes = static_cast<double>(m_scrapes.fetch_add(1));
    return AgentExposition::render(s);
}

} // namespace tierscope
