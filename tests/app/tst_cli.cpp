#include "TestSupport.h"
#include "core/model/RequestRecord.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"
#include "core/util/WallClock.h"

#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <csignal>
#include <map>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

using namespace tierscope;

class TestCli : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;

    struct Result {
        int code = -1;
        QByteArray out;
        QByteArray err;
    };

    Result run(const QStringList& args,
               const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(TIERSCOPE_BINARY, args);
        if (!p.waitForFinished(60000))
            qFatal("tierscope %s hung", qPrintable(args.join(' ')));
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                p.readAllStandardOutput(), p.readAllStandardError()};
    }

    QString path(const char* name) const { return m_dir.filePath(name); }

    static void expectOneLineError(const Result& r, int code, const char* needle) {
        QVERIFY2(r.code == code,
                 qPrintable(QString("exit %1, stderr: %2").arg(r.code).arg(QString(r.err))));
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        QVERIFY2(r.err.contains(needle), r.err.constData());
    }

  private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void helpForEveryCommand() {
        for (const QStringList& args : {QStringList{"--help"},
                                        {"record", "--help"},
                                        {"sessions", "--help"},
                                        {"devices", "--help"},
                                        {"export", "csv", "--help"}}) {
            const auto r = run(args);
            QVERIFY2(r.code == 0, qPrintable(args.join(' ')));
            QVERIFY(r.out.contains("Usage") || r.out.contains("OPTIONS"));
        }
        QVERIFY(run({"--help"}).out.contains("Exit codes"));
        QCOMPARE(run({"--version"}).code, 0);
    }

    void usageErrors() {
        // Without a display, `tierscope` alone explains how to record headless.
        auto headless = QProcessEnvironment::systemEnvironment();
        headless.remove("DISPLAY");
        headless.remove("WAYLAND_DISPLAY");
        const auto none = run({}, headless);
        QCOMPARE(none.code, 2);
        QVERIFY(none.err.contains("tierscope record --duration 30s"));
        headless.remove("QT_QPA_PLATFORM");
        const auto gui = run({"gui", "--no-record"}, headless);
        QCOMPARE(gui.code, 2);
        QVERIFY2(gui.err.contains("no display"), gui.err.constData());
        QCOMPARE(run({"--no-such-flag"}).code, 2);
        expectOneLineError(run({"--db", path("u.db"), "record", "--interval", "50ms"}), 2,
                           "--interval");
        expectOneLineError(run({"--db", path("u.db"), "record", "--duration", "soon"}), 2,
                           "--duration");
        QCOMPARE(run({"export", "csv"}).code, 2); // --session is required
    }

    // An empty --duration recorded forever, and --port 70000 listened on 4464 (70000 - 65536).
    void anEmptyDurationAndAPortOutOfRangeAreUsageErrors() {
        const auto bounded = [](const QStringList& args) {
            QProcess p;
            p.start(TIERSCOPE_BINARY, args);
            const bool finished = p.waitForFinished(20000);
            if (!finished) {
                p.kill();
                p.waitForFinished();
            }
            return std::make_pair(finished ? p.exitCode() : -1, p.readAllStandardError());
        };
        auto [code, err] = bounded({"--db", path("d.db"), "record", "--duration", ""});
        QVERIFY2(code == 2, err.constData());
        QVERIFY2(err.contains("--duration") && err.contains("not empty"), err.constData());
        std::tie(code, err) = bounded({"sim-engine", "--port", "70000"});
        QVERIFY2(code == 2, err.constData());
        QVERIFY2(err.contains("--port") && err.contains("65535"), err.constData());
        std::tie(code, err) = bounded({"sim-engine", "--port", "-1"});
        QCOMPARE(code, 2);
    }

    // `record --engine file:///etc/passwd` recorded without the engine and exited 0.
    void anEngineUrlThatIsNotHttpIsAUsageError() {
        for (const char* url : {"file:///etc/passwd", "gopher://127.0.0.1:1/", "ftp://h/metrics",
                                "127.0.0.1:8000/metrics", "http://", "dict://u:secret@h/"}) {
            const QString db = path("engine-url.db");
            QProcess p;
            p.start(TIERSCOPE_BINARY, {"--db", db, "record", "--duration", "1s", "--engine", url});
            if (!p.waitForFinished(20000)) {
                p.kill();
                p.waitForFinished();
                QFAIL(qPrintable(QString("record --engine %1 ran on").arg(url)));
            }
            const QByteArray err = p.readAllStandardError();
            QVERIFY2(p.exitCode() == 2, qPrintable(QString(url) + ": " + err));
            QVERIFY2(err.contains("--engine must be an http:// or https:// URL"), err.constData());
            QVERIFY2(!err.contains("secret"), err.constData()); // the password is not printed
            QVERIFY(!QFile::exists(db)); // refused before anything was written
        }
        expectOneLineError(run({"--db", path("p.db"), "record", "--prometheus", "file:///x"}), 2,
                           "--prometheus must be an http:// or https:// URL");
    }

    void databaseRefusals() {
        test::writeFile(path("notes.txt"), QByteArray("not a database at all\n").repeated(200));
        expectOneLineError(run({"--db", path("notes.txt"), "sessions"}), 3, "notes.txt");

        sqlite3* db = nullptr;
        sqlite3_open(path("foreign.db").toUtf8().constData(), &db);
        sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
        sqlite3_close(db);
        expectOneLineError(run({"--db", path("foreign.db"), "record", "--duration", "1s"}), 3,
                           "not a tierscope workspace");

        { Store store(path("newer.db").toStdString(), Store::Mode::ReadWrite); }
        sqlite3_open(path("newer.db").toUtf8().constData(), &db);
        sqlite3_exec(db, "PRAGMA user_version = 7", nullptr, nullptr, nullptr);
        sqlite3_close(db);
        expectOneLineError(run({"--db", path("newer.db"), "sessions"}), 4, "newer tierscope");

        expectOneLineError(run({"--db", "/proc/tierscope.db", "record", "--duration", "1s"}), 5,
                           "/proc");
        expectOneLineError(run({"--db", path("absent.db"), "sessions"}), 6, "no workspace");
    }

    // `analyze` judges how the session's I/O spread over an NVMe-oF namespace's paths: from
    // the recorded device table (ANA states, the subsystem's round-robin policy) and the
    // per-path block series, one path carrying 95 % of the bytes is a finding, in the text
    // and the JSON.
    void analyzeFindsPathSkew() {
        const QString db = path("paths.db");
        constexpr std::int64_t kSecond = 1'000'000'000, kStart = 1'790'000'000 * kSecond;
        constexpr double kMiB = 1024.0 * 1024.0;
        std::int64_t id = 0;
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo info;
            info.startNs = kStart;
            id = store.createSession(info);
            auto path = [](const char* name, const char* state) {
                return DeviceRecord{"block", name,
                                    nlohmann::json{{"path_of", "nvme1n1"},
                                                   {"ana_state", state},
                                                   {"transport", "tcp"},
                                                   {"iopolicy", "round-robin"}}
                                        .dump()};
            };
            store.addDevices(id, {{"block", "nvme1n1", R"({"iopolicy": "round-robin"})"},
                                  path("nvme1c1n1", "optimized"),
                                  path("nvme1c2n1", "optimized")});
            store.finishSession(id, kStart + 10 * kSecond);
        }
        {
            StoreWriter writer(db.toStdString(), {});
            std::map<std::string, int> m;
            for (const char* p : {"nvme1c1n1", "nvme1c2n1"})
                for (const char* what : {"read_bytes_per_s", "write_bytes_per_s"})
                    m[std::string(p) + what] = writer.defineMetric(
                        id, {std::string("block/") + p + "/" + what, "bytes/s", "gauge", "{}"});
            for (int i = 0; i <= 10; ++i) {
                const std::int64_t t = kStart + i * kSecond;
                writer.append(m["nvme1c1n1read_bytes_per_s"], t, 95 * kMiB);
                writer.append(m["nvme1c2n1read_bytes_per_s"], t, 5 * kMiB);
                writer.append(m["nvme1c1n1write_bytes_per_s"], t, 0);
                writer.append(m["nvme1c2n1write_bytes_per_s"], t, 0);
            }
            writer.stop();
        }
        const auto text = run({"--db", db, "analyze", "--session", QString::number(id)});
        QVERIFY2(text.code == 0, text.err.constData());
        QVERIFY2(text.out.contains("multipath: ") && text.out.contains("nvme1c1n1") &&
                     text.out.contains("95.0 %"),
                 text.out.constData());
        const auto json = nlohmann::json::parse(
            run({"--db", db, "analyze", "--session", QString::number(id), "--format", "json"})
                .out.toStdString());
        const auto& f = json["multipath"]["findings"];
        QCOMPARE(f.size(), std::size_t(1));
        QCOMPARE(f[0]["path"].get<std::string>(), std::string("nvme1c1n1"));
        QCOMPARE(f[0]["share"].get<double>(), 0.95);
        QCOMPARE(f[0]["iopolicy"].get<std::string>(), std::string("round-robin"));
    }

    // `analyze` shows the TTFT breakdown from the engine histograms' stored sums and counts:
    // per span in the text, per window and per session in the JSON, absent parts null.
    void analyzeShowsTheTtftBreakdown() {
        const QString db = path("ttft.db");
        constexpr std::int64_t kSecond = 1'000'000'000, kStart = 1'790'000'000 * kSecond;
        std::int64_t id = 0;
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo info;
            info.startNs = kStart;
            id = store.createSession(info);
            store.finishSession(id, kStart + 20 * kSecond);
        }
        {
            StoreWriter writer(db.toStdString(), {});
            const std::vector<std::pair<const char*, double>> perScrape = {
                {"engine/e/ttft_sum_s", 2.0},
                {"engine/e/ttft_count", 2},
                {"engine/e/queue_time_sum_s", 0.5},
                {"engine/e/queue_time_count", 2},
                {"engine/e/prefill_time_sum_s", 1.5},
                {"engine/e/prefill_time_count", 2},
                {"engine/e/lmcache_retrieve_sum_s", 1},
                {"engine/e/lmcache_retrieve_count", 2},
                // TTFT's buckets: of the 2 requests per scrape one under 0.5 s, one under 2 s.
                {"engine/e/ttft_bucket{le=0.5}", 1},
                {"engine/e/ttft_bucket{le=2}", 2},
                {"engine/e/ttft_bucket{le=+Inf}", 2}};
            for (const auto& [metric, value] : perScrape) {
                const int m = writer.defineMetric(id, {metric, "s", "gauge", "{}"});
                for (int i = 0; i < 20; ++i)
                    writer.append(m, kStart + i * kSecond + kSecond / 2, value);
            }
            writer.stop();
        }
        const auto text = run({"--db", db, "analyze", "--session", QString::number(id)});
        QVERIFY2(text.code == 0, text.err.constData());
        QVERIFY2(text.out.contains("TTFT breakdown: mean TTFT 1.00 s over 40 requests = queue "
                                   "250.0 ms + storage wait 500.0 ms (50 %) + prefill compute "
                                   "250.0 ms + residual 0.0 ms; storage wait: KV retrieve 500.0 "
                                   "ms (in prefill)"),
                 text.out.constData());
        const auto json =
            run({"--db", db, "analyze", "--session", QString::number(id), "--format", "json"});
        QCOMPARE(json.code, 0);
        const auto j = nlohmann::json::parse(json.out.toStdString());
        QCOMPARE(j["ttft_breakdown"]["requests"].get<double>(), 40.0);
        QCOMPARE(j["ttft_breakdown"]["storage_wait_share"].get<double>(), 0.5);
        // The sum the text shows, in numbers: queue + storage wait + prefill compute + residual.
        QCOMPARE(j["ttft_breakdown"]["queue_less_storage_s"].get<double>(), 0.25);
        QCOMPARE(j["ttft_breakdown"]["storage_wait_s"].get<double>(), 0.5);
        QCOMPARE(j["ttft_breakdown"]["storage_wait_parts_s"]["lmcache_retrieve"].get<double>(),
                 0.5);
        QVERIFY(j["ttft_breakdown"]["storage_wait_parts_s"]["kv_lookup_wait"].is_null());
        QCOMPARE(j["ttft_breakdown"]["prefill_compute_s"].get<double>(), 0.25);
        QCOMPARE(j["ttft_breakdown"]["residual_s"].get<double>(), 0.0);
        QCOMPARE(j["ttft_breakdown"]["absent"].size(), std::size_t(0));
        QCOMPARE(j["windows"][0]["ttft_breakdown"]["queue_mean_s"].get<double>(), 0.25);
        // TTFT's own quantiles from its buckets (20 of 40 under 0.5 s); the other parts' buckets
        // were not stored: null.
        QVERIFY2(text.out.contains("TTFT parts, p50 / p99: TTFT <= 500.0 ms / 1.97 s\n"),
                 text.out.constData());
        QCOMPARE(j["ttft_breakdown"]["quantiles"]["ttft_p50_s"].get<double>(), 0.5);
        QVERIFY(j["ttft_breakdown"]["quantiles"]["queue_p50_s"].is_null());
        QCOMPARE(j["ttft_breakdown"]["quantile_text"].get<std::string>(),
                 std::string("p50 / p99: TTFT <= 500.0 ms / 1.97 s"));

        // A session without the histograms: the breakdown is absent, and says so.
        std::int64_t bare = 0;
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo info;
            info.startNs = kStart + 100 * kSecond;
            bare = store.createSession(info);
            store.finishSession(bare, info.startNs + 5 * kSecond);
        }
        {
            StoreWriter writer(db.toStdString(), {});
            const int m = writer.defineMetric(bare, {"gpu/0/busy_pct", "percent", "gauge", "{}"});
            for (int i = 0; i < 5; ++i)
                writer.append(m, kStart + (100 + i) * kSecond, 50);
            writer.stop();
        }
        const auto none = run({"--db", db, "analyze", "--session", QString::number(bare)});
        QCOMPARE(none.code, 0);
        QVERIFY2(none.out.contains("TTFT breakdown: absent"), none.out.constData());
        const auto noneJson =
            run({"--db", db, "analyze", "--session", QString::number(bare), "--format", "json"});
        const auto n = nlohmann::json::parse(noneJson.out.toStdString());
        QVERIFY(n["ttft_breakdown"]["ttft_mean_s"].is_null());
        QCOMPARE(n["ttft_breakdown"]["absent"].size(), std::size_t(4));
    }

    // An open session is "recording" while samples arrive, "interrupted" once they stopped
    // without the session being closed: the GUI's running recording read "interrupted".
    void anOpenSessionIsRecordingOnlyWhileSamplesArrive() {
        const QString db = path("states.db");
        const std::int64_t second = 1'000'000'000LL;
        const std::int64_t now = WallClock::systemNowNs();
        std::vector<std::int64_t> ids;
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            for (const char* label : {"crashed", "running", "closed"}) {
                SessionInfo info;
                info.label = label;
                info.startNs = now - 120 * second;
                ids.push_back(store.createSession(info));
            }
            store.finishSession(ids[2], now - 50 * second);
        }
        {
            StoreWriter writer(db.toStdString(), {});
            const std::int64_t last[] = {now - 60 * second, now - second, now - 55 * second};
            for (std::size_t i = 0; i < ids.size(); ++i) {
                const int m =
                    writer.defineMetric(ids[i], {"host/cpu/busy_pct", "percent", "gauge", "{}"});
                writer.append(m, now - 100 * second, 5);
                writer.append(m, last[i], 5);
            }
            writer.stop();
        }
        const auto json = run({"--db", db, "sessions", "--json"});
        QCOMPARE(json.code, 0);
        const auto rows = nlohmann::json::parse(json.out.toStdString());
        QCOMPARE(rows.size(), std::size_t(3));
        QCOMPARE(rows[0]["state"].get<std::string>(), std::string("interrupted"));
        QCOMPARE(rows[1]["state"].get<std::string>(), std::string("recording"));
        QCOMPARE(rows[2]["state"].get<std::string>(), std::string("finished"));
        // The table says it where a closed session has its duration.
        const auto table = run({"--db", db, "sessions"});
        const auto lines = table.out.split('\n');
        auto lineOf = [&](const char* label) {
            for (const auto& line : lines)
                if (line.contains(label))
                    return line;
            return QByteArray();
        };
        QVERIFY2(lineOf("running").contains(" recording "), table.out.constData());
        QVERIFY2(lineOf("crashed").contains(" interrupted "), table.out.constData());
        QVERIFY2(lineOf("closed").contains(" 70.0 s "), table.out.constData());
    }

    void recordListExport() {
        const QString db = path("ok.db");
        const auto rec = run({"--db", db, "record", "--duration", "1500ms", "--interval", "100ms",
                              "--label", "cli", "--storage-profile", "local-nvme"});
        QVERIFY2(rec.code == 0, rec.err.constData());
        QVERIFY(rec.out.contains("Session 1 \"cli\" [local-nvme]"));
        QVERIFY(rec.out.contains("peak disk bandwidth"));

        const auto list = run({"--db", db, "sessions", "--json"});
        QCOMPARE(list.code, 0);
        const auto sessions = nlohmann::json::parse(list.out.toStdString());
        QCOMPARE(sessions.size(), std::size_t(1));
        QCOMPARE(sessions[0]["storage_profile"].get<std::string>(), std::string("local-nvme"));
        QVERIFY(sessions[0]["metrics"].get<int>() > 5);
        QVERIFY(sessions[0]["samples"].get<int>() > 10); // how many depends on the machine's load
        const double seconds =
            (sessions[0]["end_ns"].get<double>() - sessions[0]["start_ns"].get<double>()) / 1e9;
        QVERIFY2(seconds >= 1.4 && seconds < 60, qPrintable(QString::number(seconds)));

        const auto csv = run({"--db", db, "export", "csv", "--session", "1", "--metric",
                              "host/cpu/busy_pct", "--out", path("cpu.csv")});
        QVERIFY2(csv.code == 0, csv.err.constData());
        QFile file(path("cpu.csv"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto lines = file.readAll().trimmed().split('\n');
        QCOMPARE(lines[0], QByteArray("metric,unit,time_utc,t_ns,value"));
        QVERIFY(lines.size() >=
                3); // ~14 samples at 100 ms after the first baseline on a quiet machine
        QVERIFY(lines[1].startsWith("host/cpu/busy_pct,percent,20"));
        QVERIFY(!QFile::exists(path("cpu.csv.part")));
        // A link planted at the output's name is replaced, never written through.
        test::plantLink(path("planted.csv"));
        QCOMPARE(run({"--db", db, "export", "csv", "--session", "1", "--metric",
                      "host/cpu/busy_pct", "--out", path("planted.csv")})
                     .code,
                 0);
        QCOMPARE(test::plantedLinkProblem(path("planted.csv")), QString());

        expectOneLineError(run({"--db", db, "export", "csv", "--session", "42"}), 6,
                           "no session 42");
        QCOMPARE(run({"--db", db, "export", "csv", "--session", "1", "--metric", "gpu/*"}).code, 6);

        const auto devices = run({"--db", db, "devices", "--session", "1", "--json"});
        QCOMPARE(devices.code, 0);
        std::map<std::string, nlohmann::json> backends;
        for (const auto& d : nlohmann::json::parse(devices.out.toStdString()))
            if (d["kind"] == "backend")
                backends[d["name"].get<std::string>()] = d["attrs"];
        QCOMPARE(backends.at("nvme")["state"].get<std::string>(), std::string("available"));
        // No GPU here: each vendor backend is recorded with the reason it is unavailable.
        for (const char* vendor : {"amd", "nvidia", "ascend"}) {
            QCOMPARE(backends.at(vendor)["state"].get<std::string>(), std::string("unavailable"));
            QVERIFY(!backends.at(vendor)["reason"].get<std::string>().empty());
        }
        QVERIFY(backends.at("amd")["reason"].get<std::string>().find("no KFD") !=
                std::string::npos);
        QCOMPARE(backends.at("nvidia")["reason"].get<std::string>(),
                 std::string("libnvidia-ml.so.1 not found"));
        QVERIFY(rec.out.contains("amd: unavailable: rocm-smi not started (no KFD"));
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        for (const auto& m : store.metrics(1))
            QVERIFY2(!m.descriptor.path.starts_with("gpu/"), m.descriptor.path.c_str());
        QCOMPARE(run({"devices"}).code, 0);
    }

    // `sessions` used to open read-write, so an empty file became a workspace.
    void readOnlyCommandsLeaveAnEmptyFileEmpty() {
        test::writeFile(path("empty.db"), QByteArray());
        for (const QStringList& args : {QStringList{"sessions"},
                                        {"devices", "--session", "1"},
                                        {"export", "csv", "--session", "1"}}) {
            expectOneLineError(run(QStringList{"--db", path("empty.db")} + args), 3,
                               "not a tierscope workspace");
            QCOMPARE(QFileInfo(path("empty.db")).size(), 0);
        }
        QVERIFY(!QFile::exists(path("empty.db-wal")));
    }

    // Root ignores permission bits, so the copy goes on a read-only bind mount in a user and
    // mount namespace, where writing fails with EROFS and no -shm file can be created.
    void aCopyOnReadOnlyMediaCanBeRead() {
        if (QProcess::execute("unshare", {"-Urm", "true"}) != 0)
            QSKIP("user and mount namespaces are not available here");
        QDir().mkpath(path("ro"));
        const QString db = path("ro/ws.db");
        const auto rec = run({"--db", db, "record", "--duration", "1s", "--interval", "100ms",
                              "--label", "copied", "-q"});
        QVERIFY2(rec.code == 0, rec.err.constData());
        QDir().mkpath(path("data"));
        auto r = run({"--db", db, "storage", "prepare", "model-load", "--path", path("data"),
                      "--size", "2MiB", "--files", "1", "-q"});
        QVERIFY2(r.code == 0, r.err.constData());
        for (int i = 0; i < 2; ++i) { // sessions 2 and 3, one model-load run each
            r = run({"--db", db, "storage", "run", "model-load", "--path", path("data"), "-q"});
            QVERIFY2(r.code == 0, r.err.constData());
        }
        QVERIFY(!QFile::exists(db + "-wal")); // checkpointed at close: all in the main file
        const auto program = [](const QStringList& args) {
            QProcess p;
            p.start("unshare", args);
            p.waitForFinished(60000);
            return Result{p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
        };
        // The probe proves the mount is read-only before tierscope runs.
        const QString prefix = QString("mount --bind %1 %1 && mount -o remount,ro,bind %1 && "
                                       "! touch %1/probe 2>/dev/null && %2 --db %1/ws.db ")
                                   .arg(path("ro"), TIERSCOPE_BINARY);
        r = program({"-Urm", "sh", "-c", prefix + "sessions"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains("copied"), r.out.constData());
        r = program({"-Urm", "sh", "-c", prefix + "devices --session 1"});
        QVERIFY2(r.code == 0, r.err.constData());
        r = program({"-Urm", "sh", "-c", prefix + "export csv --session 1 --metric 'host/*'"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.count('\n') > 5);
        r = program({"-Urm", "sh", "-c", prefix + "compare session:2 session:3"});
        QVERIFY2(r.code == 0, r.err.constData());

        QVERIFY2(r.out.contains("model_load_time"), r.out.constData());
        QVERIFY(!QFile::exists(db + "-shm"));
        // What `pull` runs on a server: its copy is made under TMPDIR, not beside a workspace
        // that cannot be written, and nothing of it is left in either place.
        QDir().mkpath(path("snaptmp"));
        const auto snap =
            program({"-Urm", "sh", "-c",
                     "TMPDIR=" + path("snaptmp") + " && export TMPDIR && " + prefix + "snapshot"});
        QVERIFY2(snap.code == 0, snap.err.constData());
        const auto lines = snap.out.split('\n');
        QVERIFY(lines.size() > 2 && lines[1].contains("\"type\":\"snapshot\""));
        QVERIFY(snap.out.mid(lines[0].size() + lines[1].size() + 2).startsWith("SQLite format 3"));
        QCOMPARE(QDir(path("snaptmp")).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
                 QStringList());
        QCOMPARE(QDir(path("ro")).entryList({"snapshot-*"}), QStringList());
    }

    // `export chart --session` draws a session as the window does, off screen and without a
    // display, at exactly the size asked for: one chart (its requests as dots) or the view.
    void exportsASessionChartHeadless() {
        const QString db = path("chart.db");
        constexpr std::int64_t kSecond = 1'000'000'000, kStart = 1'790'000'000 * kSecond;
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo info;
            info.startNs = kStart;
            const auto id = store.createSession(info);
            const auto run = store.createRun(id, "load", "{}", kStart, "", "", 0);
            std::vector<RequestRecord> requests;
            for (int i = 0; i < 40; ++i) {
                RequestRecord r;
                r.index = i;
                r.scheduledNs = r.sendNs = kStart + i * kSecond / 4;
                r.ttftS = 0.1 + 0.01 * i;
                r.e2eS = 1.0;
                r.outputTokens = 16;
                r.httpStatus = 200;
                requests.push_back(r);
            }
            store.addRequests(run, requests);
            store.finishRun(run, kStart + 11 * kSecond, "completed", "{}");
            store.finishSession(id, kStart + 12 * kSecond);
        }
        auto env = QProcessEnvironment::systemEnvironment();
        env.remove("DISPLAY");
        env.remove("WAYLAND_DISPLAY");
        env.remove("QT_QPA_PLATFORM");                           // it must do without
        env.insert("XDG_CONFIG_HOME", m_dir.filePath("config")); // no user settings
        const QString png = path("ttft.png");
        auto r = run({"--db", db, "export", "chart", "--session", "1", "--chart", "load-ttft",
                      "--size", "900x300", "--theme", "dark", "--out", png},
                     env);
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(r.err.trimmed(),
                 QByteArray("wrote load-ttft of session 1 (900x300) to ") + png.toUtf8());
        QImage image(png);
        QCOMPARE(image.size(), QSize(900, 300));
        QVERIFY(image.pixelColor(5, 5).lightness() < 100); // the dark theme
        // The first series' colour (Tableau blue) is drawn: the dots of the requests.
        int blue = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                blue += image.pixelColor(x, y) == QColor(78, 121, 167);
        QVERIFY2(blue >= 40 * 4, qPrintable(QString::number(blue)));

        const QString svg = path("view.svg");
        r = run(
            {"--db", db, "export", "chart", "--session", "1", "--size", "1280x720", "--out", svg},
            env);
        QVERIFY2(r.code == 0, r.err.constData());
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY(text.contains("<svg") && text.contains("width=\"1280\"") &&
                text.contains("Client TTFT per request"));

        expectOneLineError(
            run({"--db", db, "export", "chart", "--session", "1", "--chart", "nope", "--out", png},
                env),
            6, "has no chart \"nope\"; it has view, load-ttft");
        expectOneLineError(
            run({"--db", db, "export", "chart", "--session", "7", "--out", png}, env), 6,
            "no session 7");
        expectOneLineError(run({"--db", db, "export", "chart", "--session", "1"}, env), 2,
                           "--out FILE.png");
        expectOneLineError(run({"--db", db, "export", "chart", "session:1", "session:1",
                                "--session", "1", "--out", png},
                               env),
                           2, "not both");
        expectOneLineError(run({"--db", db, "export", "chart", "--out", png}, env), 2,
                           "needs A and B");
    }

    // `export chart A B --chart view`: the compare view as one picture, off screen, as wide
    // as asked and as tall as its verdict, tables and charts are.
    void exportsTheCompareViewHeadless() {
        const QString db = path("compare-view.db");
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo info;
            info.startNs = 1;
            const auto session = store.createSession(info);
            const double seconds[] = {200, 210, 190, 10, 12, 11};
            for (int i = 0; i < 6; ++i) {
                const auto id = store.createRun(session, "storage/model-load", "{}", 1, "x",
                                                i < 3 ? "A" : "B", i % 3 + 1);
                store.finishRun(id, 2, "completed", nlohmann::json{{"seconds", seconds[i]}}.dump());
            }
        }
        auto env = QProcessEnvironment::systemEnvironment();
        env.remove("DISPLAY");
        env.remove("WAYLAND_DISPLAY");
        env.remove("QT_QPA_PLATFORM");
        env.insert("XDG_CONFIG_HOME", m_dir.filePath("config"));
        const QString png = path("compare-view.png");
        const auto r =
            run({"--db", db, "export", "chart", "arm:x/A", "arm:x/B", "--chart", "view", "--gate",
                 "model_load_time <= -90%", "--size", "900x600", "--theme", "dark", "--out", png},
                env);
        QVERIFY2(r.code == 0, r.err.constData());
        const QImage image(png);
        QCOMPARE(image.width(), 900);
        QVERIFY2(image.height() > 600, qPrintable(QString::number(image.height())));
        QVERIFY(image.pixelColor(2, 2).lightness() < 100); // the dark theme
    }

    void guiOpensASessionAndSavesAScreenshot() {
        const QString db = path("gui.db");
        QCOMPARE(run({"--db", db, "record", "--duration", "2s", "--quiet"}).code, 0);
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        env.insert("XDG_CONFIG_HOME", m_dir.filePath("config")); // no user settings
        const QString png = path("session.png");
        const auto r =
            run({"--db", db, "gui", "--session", "1", "--screenshot", png, "--after", "3s"}, env);
        QVERIFY2(r.code == 0, r.err.constData());
        QImage image(png);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() >= 800 && image.height() >= 600);
    }

    void defaultDatabaseFollowsXdg() {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_DATA_HOME", path("xdg"));
        const auto r = run({"record", "--duration", "300ms", "--quiet"}, env);
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.isEmpty());
        QVERIFY(QFile::exists(path("xdg/tierscope/tierscope.db")));
        env.remove("XDG_DATA_HOME");
        env.insert("HOME", path("home"));
        QCOMPARE(run({"record", "--duration", "300ms", "--quiet"}, env).code, 0);
        QVERIFY(QFile::exists(path("home/.local/share/tierscope/tierscope.db")));
    }

    // Labels are the plan author's: on a terminal their escape sequences (retitle the window,
    // clear the screen) are dropped; through a pipe the text is exact. `script` gives the
    // command a terminal.
    void escapeSequencesInLabelsDoNotReachTheTerminal() {
        const QString plan = m_dir.filePath("escapes.toml");
        test::writeFile(plan, R"(name = "x\u001b[2J"
repetitions = 1
[[arm]]
label = "a\u001b]0;pwned\u0007"
path = "/tmp/tierscope-escapes-a"
[[arm]]
label = "b\u009b31m"
path = "/tmp/tierscope-escapes-b"
[[workload]]
kind = "model-load"
size = "1MiB"
)");
        QProcess tty;
        tty.start("script", {"-qec",
                             QString("'%1' --db '%2' run '%3' --dry-run")
                                 .arg(TIERSCOPE_BINARY, m_dir.filePath("escapes.db"), plan),
                             "/dev/null"});
        QVERIFY(tty.waitForFinished(60000));
        const QByteArray shown = tty.readAllStandardOutput();
        QVERIFY2(shown.contains("a]0;pwned") && shown.contains("b31m"), shown.constData());
        QVERIFY2(!shown.contains('\x1b') && !shown.contains('\x07') && !shown.contains("\xc2\x9b"),
                 shown.toHex().constData());
        const auto piped = run({"--db", m_dir.filePath("escapes.db"), "run", plan, "--dry-run"});
        QCOMPARE(piped.code, 0);
        QVERIFY(piped.out.contains("a\x1b]0;pwned\x07"));
    }

    void ctrlCStopsCleanly() {
        QProcess p;
        p.start(TIERSCOPE_BINARY, {"--db", path("sigint.db"), "record", "--interval", "100ms"});
        QVERIFY(p.waitForStarted());
        // Ctrl-C once it records, however long a busy machine takes to get there.
        std::int64_t before = 0;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                if (!QFile::exists(path("sigint.db")))
                    return false;
                try {
                    Store store(path("sigint.db").toStdString(), Store::Mode::ReadOnly);
                    before = store.sampleCount(1);
                } catch (const std::exception&) { // not created yet
                    return false;
                }
                return before > 0;
            }(),
            120000);
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(10000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 0);
        Store store(path("sigint.db").toStdString(), Store::Mode::ReadOnly);
        const auto session = store.session(1);
        QVERIFY(session && session->endNs); // a complete session, not an interrupted one
        QVERIFY(store.sampleCount(1) >= before); // nothing it had stored is lost
        QCOMPARE(store.db().queryInt("SELECT count(*) FROM sample_recent"), 0);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
