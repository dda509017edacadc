#include "agent/Agent.h"

#include "agent/AgentServer.h"
#include "collectors/MachineInventory.h"
#include "collectors/base/SysfsReader.h"
#include "collectors/host/HostCollector.h"
#include "collectors/storage/BlockDeviceNames.h"
#include "core/util/Version.h"
#include "core/util/WallClock.h"

#include <netdb.h>
#include <netinet/in.h>
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
    // What the name resolves to, every address of it: "127.attacker.example" is not loopback.
    std::string name = host;
    if (name.size() >= 2 && name.front() == '[' && name.back() == ']')
        name = name.substr(1, name.size() - 2);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (name.empty() || getaddrinfo(name.c_str(), nullptr, &hints, &found) != 0)
        return false;
    bool loopback = found != nullptr;
    for (addrinfo* a = found; a; a = a->ai_next) {
        if (a->ai_family == AF_INET) {
            const auto* in = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
            loopback = loopback && (ntohl(in->sin_addr.s_addr) >> 24) == 127;
        } else if (a->ai_family == AF_INET6) {
            const auto& in6 = reinterpret_cast<const sockaddr_in6*>(a->ai_addr)->sin6_addr;
            const bool mapped = IN6_IS_ADDR_V4MAPPED(&in6) && in6.s6_addr[12] == 127;
            loopback = loopback && (IN6_IS_ADDR_LOOPBACK(&in6) || mapped);
        } else {
            loopback = false;
        }
    }
    freeaddrinfo(found);
    return loopback;
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

    AgentServer::Options server;
    server.host = m_options.host;
    server.port = m_options.port;
    server.requestTimeout = m_options.requestTimeout;
    m_server = std::make_unique<AgentServer>(server, [this](const std::string& path) {
        if (path == "/metrics")
            return AgentServer::Response{200, "text/plain; version=0.0.4; charset=utf-8", scrape()};
        if (path == "/")
            return AgentServer::Response{
                200, "text/html",
                "<html><body><a href=\"/metrics\">tierscope agent: /metrics</a></body></html>\n"};
        return AgentServer::Response{404, "text/plain", "Not Found\n"};
    });
    try {
        return m_server->start();
    } catch (const std::exception& e) {
        stop();
        throw std::runtime_error(std::string(e.what()) +
                                 " (in use, or not an address of this machine)");
    }
}

void Agent::stop() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_server)
        m_server->stop();
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
