#include "TestSupport.h"
#include "core/store/Store.h"

#include <QProcess>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace tierscope;

// `tierscope storage` end to end: the real binary on a directory of the build tree.
class TestStorageCommand : public QObject {
    Q_OBJECT
  private:
    struct Result {
        int code = -1;
        QByteArray out, err;
    };
    std::unique_ptr<QTemporaryDir> m_tmp;
    QString m_data;
    QString m_db;

    static Result run(const QStringList& args, const QStringList& env = {},
                      const QString& program = TIERSCOPE_BINARY) {
        QProcess p;
        auto environment = QProcessEnvironment::systemEnvironment();
        for (const auto& e : env)
            environment.insert(e.section('=', 0, 0), e.section('=', 1));
        p.setProcessEnvironment(environment);
        p.start(program, args);
        p.waitForFinished(120000);
        return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
    }
    Result tierscope(QStringList args, const QStringList& env = {}) {
        args.prepend(m_db);
        args.prepend("--db");
        return run(args, env);
    }
    static nlohmann::json readJson(const QString& path) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return {};
        return nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
    }
    // status and summary of the only run in the workspace
    std::pair<std::string, nlohmann::json> onlyRun(const char* workload) {
        sqlite3* db = nullptr;
        sqlite3_open_v2(m_db.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db, "SELECT status, summary FROM run WHERE workload = ?", -1, &st,
                           nullptr);
        sqlite3_bind_text(st, 1, workload, -1, SQLITE_TRANSIENT);
        std::pair<std::string, nlohmann::json> out;
        if (sqlite3_step(st) == SQLITE_ROW) {
            out.first = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
            out.second = nlohmann::json::parse(
                reinterpret_cast<const char*>(sqlite3_column_text(st, 1)), nullptr, false);
        }
        sqlite3_finalize(st);
        sqlite3_close(db);
        return out;
    }

    static std::uint64_t inodeOf(const QString& path) {
        struct stat st {};
        return lstat(path.toUtf8().constData(), &st) == 0 ? st.st_ino : 0;
    }
    static QByteArray readFile(const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }
    void writeManifest(const nlohmann::json& files) const {
        const nlohmann::json doc = {{"created_by", "tierscope"}, {"version", 2}, {"files", files}};
        test::writeFile(m_data + "/.tierscope-data.json", QByteArray::fromStdString(doc.dump()));
    }

  private slots:
    void init() {
        m_tmp = std::make_unique<QTemporaryDir>(QDir::currentPath() + "/storagecli-XXXXXX");
        QVERIFY(m_tmp->isValid());
        m_data = m_tmp->filePath("data");
        QDir().mkpath(m_data);
        m_db = m_tmp->filePath("ws.db");
    }

    void kvRestoreRunIsStoredWithBandwidthSamples() {
        auto r = tierscope({"storage", "prepare", "kv-restore", "--path", m_data, "--layers", "4",
                            "--kv-heads", "4", "--head-dim", "128", "--tokens", "2048",
                            "--prefixes", "4", "--quiet"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("prepared KV chunks, 4 prefixes of 2048 tokens"));
        // 4 x 4 x 128 x 2 x 2 = 8 KiB per token, 2 MiB per 256-token chunk, 8 chunks a prefix
        QCOMPARE(QDir(m_data).entryList(QDir::Files).size(), 32);

        const QString json = m_tmp->filePath("kv.json");
        test::plantLink(json); // replaced, never written through
        r = tierscope({"storage", "run", "kv-restore", "--path", m_data, "--concurrency", "2",
                       "--requests", "8", "--tokens", "1024", "--storage-profile", "build-disk",
                       "--json", json});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains("restore per request (the TTFT I/O component): p50"),
                 r.out.constData());
        QCOMPARE(test::plantedLinkProblem(json), QString());
        const auto summary = readJson(json);
        QCOMPARE(summary["bytes_read"].get<std::uint64_t>(), 8ull * 4 * (2 << 20));
        QCOMPARE(summary["restore_seconds"]["count"].get<int>(), 8);

        const auto [status, stored] = onlyRun("storage/kv-restore");
        QCOMPARE(status, std::string("completed"));
        QCOMPARE(stored["bytes_read"], summary["bytes_read"]);
        Store store(m_db.toStdString(), Store::Mode::ReadOnly);
        const auto sessions = store.sessions();
        QCOMPARE(sessions.size(), std::size_t(1));
        QCOMPARE(sessions[0].storageProfile, std::string("build-disk"));
        bool sampled = false, host = false;
        for (const auto& m : store.metrics(sessions[0].id)) {
            if (m.descriptor.path == "workload/read_bytes_per_s") {
                const auto samples = store.readRaw(m.id, 0, INT64_MAX);
                QVERIFY(!samples.empty());
                // Each rate times the interval it covers (a busy machine samples late and the
                // intervals stretch); the first covers the time since the run began at most.
                const auto runs = store.runsOfSession(sessions[0].id);
                QCOMPARE(runs.size(), std::size_t(1));
                double bytes = 0;
                std::int64_t from = runs[0].startNs;
                for (const auto& s : samples) {
                    bytes += s.value * static_cast<double>(s.tNs - from) / 1e9;
                    from = s.tNs;
                }
                QVERIFY2(bytes >= 0.9 * 8 * 4 * (2 << 20),
                         qPrintable(QString("the samples add up to %1 bytes").arg(bytes)));
                sampled = true;
            }
            host = host || m.descriptor.path.rfind("host/", 0) == 0;
        }
        QVERIFY(sampled);
        QVERIFY2(host, "the machine's collectors record beside the workload");
    }

    void modelLoadAndCheckpointRoundTrip() {
        auto r = tierscope({"storage", "prepare", "model-load", "--path", m_data, "--size", "6MiB",
                            "--files", "3", "--quiet"});
        QVERIFY2(r.code == 0, r.err.constData());
        r = tierscope({"storage", "run", "model-load", "--path", m_data, "--json",
                       m_tmp->filePath("m.json"), "--quiet"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("model-load of"));
        QCOMPARE(readJson(m_tmp->filePath("m.json"))["bytes_read"].get<std::uint64_t>(),
                 6ull << 20);

        r = tierscope({"storage", "run", "checkpoint-save", "--path", m_data, "--size", "4MiB",
                       "--files", "2", "--restore", "--json", m_tmp->filePath("c.json"),
                       "--quiet"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("including fsync"));
        QVERIFY(r.out.contains("checkpoint restore:"));
        const auto c = readJson(m_tmp->filePath("c.json"));
        QCOMPARE(c["bytes_written"].get<std::uint64_t>(), 4ull << 20);
        QCOMPARE(c["restore"]["bytes_read"].get<std::uint64_t>(), 4ull << 20);
        QVERIFY(!QFile::exists(m_data + "/checkpoint-00001-of-00002.pt")); // removed: no --keep

        r = tierscope({"storage", "clean", "--path", m_data});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("removed 3 files"));
        QCOMPARE(QDir(m_data).entryList(QDir::Files | QDir::Hidden).size(), 0);
    }

    void refusedDirectIoIsMarkedAndTheRunContinues() {
        auto r = tierscope({"storage", "prepare", "model-load", "--path", m_data, "--size", "1MiB",
                            "--files", "1", "--quiet"});
        QVERIFY2(r.code == 0, r.err.constData());
        r = tierscope(
            {"storage", "run", "model-load", "--path", m_data, "--json", m_tmp->filePath("m.json")},
            {QString("LD_PRELOAD=") + REFUSE_ODIRECT});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains("page cache not bypassed: the filesystem refused O_DIRECT"),
                 r.out.constData());
        const auto j = readJson(m_tmp->filePath("m.json"));
        QCOMPARE(j["page_cache_bypassed"].get<bool>(), false);
        QCOMPARE(j["bytes_read"].get<std::uint64_t>(), 1ull << 20);

        r = tierscope({"storage", "run", "model-load", "--path", m_data, "--buffered"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("page cache not bypassed: buffered I/O was requested"));
    }

    void errorsAreClearAndHaveTheirOwnExitCodes() {
        auto r = tierscope({"storage", "run", "model-load", "--path", m_data + "/missing"});
        QCOMPARE(r.code, 6);
        QVERIFY2(r.err.contains("No such file or directory"), r.err.constData());

        r = tierscope({"storage", "run", "kv-restore", "--path", m_data});
        QCOMPARE(r.code, 6);
        QVERIFY(r.err.contains("storage prepare kv-restore"));

        r = tierscope({"storage", "prepare", "model-load", "--path", m_data, "--size", "1PiB"});
        QCOMPARE(r.code, 2); // not a size the parser knows: P is not a unit
        r = tierscope({"storage", "prepare", "model-load", "--path", m_data, "--size", "1000T"});
        QCOMPARE(r.code, 8);
        QVERIFY(r.err.contains("not enough free space"));

        test::writeFile(m_data + "/model-00001-of-00001.safetensors", "mine");
        r = tierscope({"storage", "prepare", "model-load", "--path", m_data, "--size", "1MiB",
                       "--files", "1"});
        QCOMPARE(r.code, 9);
        QVERIFY(r.err.contains("was not created by tierscope"));

        r = tierscope(
            {"storage", "prepare", "kv-restore", "--path", m_data, "--geometry", "GPT-9"});
        QCOMPARE(r.code, 6);
        QVERIFY(r.err.contains("Qwen3-Coder-480B-A35B"));

        r = tierscope({"storage", "run", "model-load", "--path", m_data, "--block-size", "1000"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("--block-size"));
    }

    // A workspace that breaks while the run records into it: the table the writer seals into
    // is corrupt, which only its seal at the end finds. The workload's figures still print;
    // the command must not claim the run was stored, and exits with the store's code.
    void aRecordingThatFailsFailsTheCommand() {
        auto r = tierscope({"storage", "prepare", "model-load", "--path", m_data, "--size", "1MiB",
                            "--files", "1", "--quiet"});
        QVERIFY2(r.code == 0, r.err.constData());
        std::int64_t root = 0;
        std::int64_t pageSize = 0;
        {
            Store store(m_db.toStdString(), Store::Mode::ReadWrite);
            root = store.db().queryInt(
                "SELECT rootpage FROM sqlite_master WHERE name = 'sample_chunk'");
            pageSize = store.db().queryInt("PRAGMA page_size");
        } // the last connection checkpoints the WAL into the file
        QVERIFY(root > 1 && !QFile::exists(m_db + "-wal"));
        {
            QFile f(m_db);
            QVERIFY(f.open(QIODevice::ReadWrite));
            QVERIFY(f.seek((root - 1) * pageSize));
            f.write(QByteArray(static_cast<int>(pageSize), '\xff'));
        }
        r = tierscope({"storage", "run", "model-load", "--path", m_data, "--quiet"});
        QCOMPARE(r.code, 3); // StoreError NotADatabase: the documented code for a corrupt file
        QVERIFY2(r.out.contains("model-load of"), r.out.constData());
        QVERIFY2(!r.out.contains("stored as"), r.out.constData());
        QVERIFY2(r.err.contains("failed, session 1 run 1 are incomplete"), r.err.constData());
        const auto [status, summary] = onlyRun("storage/model-load");
        QCOMPARE(status, std::string("failed"));
        QVERIFY(summary.contains("recording_error"));
    }

    // A workspace that refuses the run's end (a full disk at the last moment; here a trigger)
    // loses none of the workload's figures: they are printed and written to --json, the
    // checkpoint's files are removed, and the exit status says the store failed.
    void aRunTheWorkspaceCannotFinishKeepsItsFiguresAndRemovesItsFiles() {
        auto r = tierscope({"storage", "prepare", "model-load", "--path", m_data, "--size", "1MiB",
                            "--files", "1", "--quiet"});
        QVERIFY2(r.code == 0, r.err.constData());
        {
            Store store(m_db.toStdString(), Store::Mode::ReadWrite);
            store.db().exec("CREATE TRIGGER refuse BEFORE UPDATE OF status ON run BEGIN SELECT "
                            "RAISE(FAIL, 'database or disk is full'); END");
        }
        const QString checkpoint = m_tmp->filePath("ckpt");
        QVERIFY(QDir().mkpath(checkpoint));
        const QString json = m_tmp->filePath("figures.json");
        r = tierscope({"storage", "run", "checkpoint-save", "--path", checkpoint, "--size", "4MiB",
                       "--files", "2", "--quiet", "--json", json});
        QVERIFY2(r.code != 0 && r.code != 1, r.err.constData());
        QVERIFY2(r.err.contains("are incomplete") && r.err.contains("disk is full"),
                 r.err.constData());
        QVERIFY2(r.out.contains("checkpoint-save"), r.out.constData());
        QFile f(json);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto figures = nlohmann::json::parse(f.readAll().toStdString());
        QCOMPARE(figures["bytes_written"].get<double>(), 4.0 * 1024 * 1024);
        QDir left(checkpoint);
        QCOMPARE(left.entryList(QDir::Files).join(QChar(44)), QString());
    }

    // One process at a time in a data directory: a second one is refused at once (exit 9),
    // where two `storage prepare` at once used to lose one's manifest update and leave files
    // no manifest listed. Raced for real, whatever the timing, `clean` leaves nothing behind.
    void aSecondProcessInTheDirectoryIsRefused() {
        const int fd = open(m_data.toUtf8().constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        QVERIFY(fd >= 0);
        QVERIFY(flock(fd, LOCK_EX) == 0); // as another tierscope holds it
        const QStringList prepare = {"storage", "prepare", "model-load", "--path", m_data,
                                     "--size",  "1MiB",    "--files",    "1",      "--quiet"};
        auto r = tierscope(prepare);
        QCOMPARE(r.code, 9);
        QVERIFY2(r.err.contains("another tierscope process is using " + m_data.toUtf8()),
                 r.err.constData());
        close(fd);
        r = tierscope(prepare);
        QVERIFY2(r.code == 0, r.err.constData());
        // Readers share it: a run that reads goes on beside another reader, a writer does not.
        const int reader = open(m_data.toUtf8().constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        QVERIFY(reader >= 0 && flock(reader, LOCK_SH) == 0);
        r = tierscope({"storage", "run", "model-load", "--path", m_data, "--quiet"});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(tierscope(prepare).code, 9);
        close(reader);

        QProcess a, b;
        a.start(TIERSCOPE_BINARY, {"--db", m_db, "storage", "prepare", "model-load", "--path",
                                   m_data, "--size", "8MiB", "--files", "4", "--quiet"});
        b.start(TIERSCOPE_BINARY, {"--db", m_db, "storage", "prepare", "kv-restore", "--path",
                                   m_data, "--layers", "4", "--kv-heads", "4", "--head-dim", "128",
                                   "--tokens", "2048", "--prefixes", "4", "--quiet"});
        QVERIFY(a.waitForFinished(120000) && b.waitForFinished(120000));
        for (QProcess* p : {&a, &b})
            QVERIFY2(p->exitCode() == 0 ||
                         (p->exitCode() == 9 &&
                          p->readAllStandardError().contains("another tierscope process")),
                     qPrintable(QString::number(p->exitCode())));
        r = tierscope({"storage", "clean", "--path", m_data});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(QDir(m_data).entryList(QDir::Files | QDir::Hidden).join(QChar(44)), QString());
    }

    // Without root: run in a user namespace with no uid mapping (the user "nobody").
    void noPermissionAndDropCachesNeedRoot() {
        if (QProcess::execute("unshare", {"-U", "true"}) != 0)
            QSKIP("unprivileged user namespaces are disabled on this kernel");
        // The owner may not write either: kuid 0 in a namespace without CAP_DAC_OVERRIDE is
        // held to the mode bits like anyone else.
        QVERIFY(chmod(m_data.toUtf8().constData(), 0555) == 0);
        const auto r = run({"-U", TIERSCOPE_BINARY, "--db", m_tmp->filePath("nobody.db"),
                            "storage", "prepare", "model-load", "--path", m_data, "--size", "1MiB"},
                           {}, "unshare");
        chmod(m_data.toUtf8().constData(), 0755);
        QCOMPARE(r.code, 5);
        QVERIFY2(r.err.contains("Permission denied"), r.err.constData());
        test::writeFile(m_data + "/w", "x");
        const auto drop = run({"-U", TIERSCOPE_BINARY, "--db", "/nonexistent/none.db", "storage",
                               "run", "model-load", "--path", m_data, "--drop-caches"},
                              {}, "unshare");
        QCOMPARE(drop.code, 5);
        QVERIFY2(drop.err.contains("--drop-caches needs root"), drop.err.constData());
    }

    // A manifest is data anyone who can write the directory can edit. Every entry below points
    // at a file tierscope did not make, with its true inode and size, so that only the rules
    // about names, symlinks and inodes stand between `clean` and the file.
    void cleanDeletesNothingAManifestPointsAtThatTierscopeDidNotMake() {
        const QString victim = m_tmp->filePath("victim");
        test::writeFile(victim, "keep1");
        QTemporaryDir outside;
        const QString victim2 = outside.filePath("victim2");
        test::writeFile(victim2, "keep2");
        QDir().mkpath(m_data + "/x");
        QVERIFY(QFile::link(outside.path(), m_data + "/sub"));
        const QString link = m_data + "/model-00001-of-00001.safetensors";
        QVERIFY(QFile::link(victim, link));
        const QString mine = m_data + "/checkpoint-00001-of-00001.pt"; // the user's own file
        test::writeFile(mine, "mine!");
        const QString grown = m_data + "/kv-p00000-c00000.bin";
        test::writeFile(grown, "grown");
        const QString old = m_data + "/kv-p00000-c00001.bin";
        test::writeFile(old, "older");
        const QString foreign = m_data + "/important.db";
        test::writeFile(foreign, "datab");

        nlohmann::json files = {
            {"../victim", {{"size", 5}, {"inode", inodeOf(victim)}}},
            {"x/../../victim", {{"size", 5}, {"inode", inodeOf(victim)}}},
            {"sub/victim2", {{"size", 5}, {"inode", inodeOf(victim2)}}},
            {"model-00001-of-00001.safetensors", {{"size", 5}, {"inode", inodeOf(victim)}}},
            {"checkpoint-00001-of-00001.pt", {{"size", 5}, {"inode", inodeOf(mine) + 1}}},
            {"kv-p00000-c00000.bin", {{"size", 4}, {"inode", inodeOf(grown)}}},
            {"kv-p00000-c00001.bin", 5}, // an older manifest: no inode
            {"important.db", {{"size", 5}, {"inode", inodeOf(foreign)}}}};
        writeManifest(files);

        auto r = tierscope({"storage", "clean", "--path", m_data});
        QCOMPARE(r.code, 9);
        QVERIFY(r.out.contains("removed 0 files"));
        for (const char* why :
             {"victim is not a name tierscope gives its files", "victim2 is not a name",
              "safetensors is a symlink", "is not the file tierscope created (inode",
              "c00000.bin is larger (5 bytes) than tierscope made it (4)",
              "c00001.bin was recorded without its inode", "important.db is not a name"})
            QVERIFY2(r.err.contains(why), r.err.constData());
        for (const auto& [path, text] :
             std::vector<std::pair<QString, QByteArray>>{{victim, "keep1"},
                                                         {victim2, "keep2"},
                                                         {mine, "mine!"},
                                                         {grown, "grown"},
                                                         {old, "older"},
                                                         {foreign, "datab"}})
            QVERIFY2(readFile(path) == text, qPrintable(path));
        QVERIFY(QFileInfo(link).isSymLink());
        // Kept in the manifest, so the next clean says so again rather than forgetting.
        QCOMPARE(readJson(m_data + "/.tierscope-data.json")["files"].size(), files.size());

        // prepare and checkpoint-save replace their own names, through the same rules.
        r = tierscope({"storage", "prepare", "model-load", "--path", m_data, "--size", "1MiB",
                       "--files", "1", "--quiet"});
        QCOMPARE(r.code, 9);
        QVERIFY2(r.err.contains("is a symlink"), r.err.constData());
        r = tierscope({"storage", "run", "checkpoint-save", "--path", m_data, "--size", "1MiB",
                       "--files", "1", "--quiet"});
        QCOMPARE(r.code, 9);
        QVERIFY2(r.err.contains("is not the file tierscope created"), r.err.constData());
        QCOMPARE(readFile(mine), QByteArray("mine!"));
        QCOMPARE(readFile(victim), QByteArray("keep1"));
    }

    void whatTierscopeMadeItStillCleans() {
        auto r = tierscope({"storage", "prepare", "model-load", "--path", m_data, "--size", "1MiB",
                            "--files", "2", "--quiet"});
        QVERIFY2(r.code == 0, r.err.constData());
        const auto files = readJson(m_data + "/.tierscope-data.json")["files"];
        QCOMPARE(files.size(), std::size_t(2));
        const QString shard = m_data + "/model-00001-of-00002.safetensors";
        QCOMPARE(files["model-00001-of-00002.safetensors"]["inode"].get<std::uint64_t>(),
                 inodeOf(shard));
        r = tierscope({"storage", "clean", "--path", m_data});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("removed 2 files"));
        QCOMPARE(
            QDir(m_data).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).size(),
            0);
    }

    void aSymlinkPlantedAtTheManifestsTemporaryNameIsNotWrittenThrough() {
        const QString target = m_tmp->filePath("target");
        test::writeFile(target, "precious");
        QVERIFY(QFile::link(target, m_data + "/.tierscope-data.json.tmp"));
        const auto r = tierscope({"storage", "prepare", "model-load", "--path", m_data, "--size",
                                  "1MiB", "--files", "1", "--quiet"});
        QCOMPARE(r.code, 9);
        QVERIFY2(r.err.contains("refusing to write the manifest through it"), r.err.constData());
        QCOMPARE(readFile(target), QByteArray("precious"));
    }

    void helpNamesEveryWorkload() {
        const auto r = run({"storage", "run", "--help"});
        QCOMPARE(r.code, 0);
        for (const char* w : {"model-load", "kv-restore", "checkpoint-save", "--drop-caches",
                              "--buffered", "--queue-depth"})
            QVERIFY2(r.out.contains(w), w);
        const auto g = run({"storage", "geometries"});
        QCOMPARE(g.code, 0);
        QVERIFY(g.out.contains("Qwen3-Coder-480B-A35B          62       253952"));
    }
};

QTEST_GUILESS_MAIN(TestStorageCommand)
#include "tst_storagecommand.moc"
