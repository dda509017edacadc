#include "TestSupport.h"
#include "workloads/CheckpointSaveWorkload.h"
#include "workloads/DataFileName.h"
#include "workloads/DatasetRequest.h"
#include "workloads/IoRunner.h"
#include "workloads/KvRestoreWorkload.h"
#include "workloads/ModelLoadWorkload.h"
#include "workloads/StorageDataset.h"
#include "workloads/StorageManifest.h"
#include "workloads/WorkloadError.h"

#include <QtTest>
#include <atomic>
#include <fcntl.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace tierscope;

namespace {

// Whether this directory's filesystem takes O_DIRECT: the runner must report exactly that.
bool takesDirectIo(const std::string& dir) {
    const std::string probe = dir + "/.probe";
    const int fd = open(probe.c_str(), O_CREAT | O_WRONLY | O_DIRECT, 0600);
    if (fd >= 0)
        close(fd);
    unlink(probe.c_str());
    return fd >= 0;
}

std::uint64_t sizeOf(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

std::uint64_t allocated(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_blocks) * 512 : 0;
}

std::string head(const std::string& path, std::size_t n) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes(n, '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(n));
    return bytes;
}

WorkloadError::Kind kindOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const WorkloadError& e) {
        return e.kind();
    }
    return static_cast<WorkloadError::Kind>(-1);
}

KvGeometry tinyGeometry() {
    KvGeometry g;
    g.name = "tiny";
    g.layers = 2;
    g.kvHeads = 2;
    g.headDim = 64;
    g.dtypeBytes = 2; // 2 x 2 x 64 x 2 x 2 = 1,024 bytes per token, 256 KiB per chunk
    return g;
}

} // namespace

class TestStorageWorkloads : public QObject {
    Q_OBJECT
  private:
    std::unique_ptr<QTemporaryDir> m_tmp;
    std::string m_dir;

  private slots:
    void init() {
        // On the build tree's filesystem rather than /tmp, which may be tmpfs.
        m_tmp = std::make_unique<QTemporaryDir>(QDir::currentPath() + "/storage-XXXXXX");
        QVERIFY(m_tmp->isValid());
        m_dir = m_tmp->path().toStdString();
    }

    // `storage prepare` and a plan ask for a data set the same way: reused only when the
    // manifest holds exactly that one, completely written.
    void aDatasetRequestIsReadyOnlyWhenWrittenWhole() {
        DatasetRequest small;
        small.totalBytes = 1000000;
        small.files = 2;
        auto manifest = StorageManifest::load(m_dir);
        QVERIFY(!small.readyIn(manifest));
        QVERIFY(!IoRunner(small.prepare(manifest)).run().cancelled);
        QVERIFY(!small.readyIn(StorageManifest::load(m_dir))); // written, not yet marked
        StorageDataset::markComplete(manifest, "model-load");
        QVERIFY(small.readyIn(StorageManifest::load(m_dir)));
        DatasetRequest larger = small;
        larger.totalBytes = 2000000;
        QVERIFY(!larger.readyIn(StorageManifest::load(m_dir)));
        QCOMPARE(small.describe(), std::string("model-load data, 2 shards"));

        DatasetRequest kv;
        kv.workload = "kv-restore";
        kv.layout.geometry = KvGeometry::preset("Llama-3.1-8B");
        kv.layout.tokens = 512;
        kv.layout.prefixes = 2;
        QVERIFY(!kv.readyIn(StorageManifest::load(m_dir))); // the model-load set is no KV set
        QVERIFY2(kv.describe().starts_with("KV chunks, 2 prefixes of 512 tokens (Llama-3.1-8B, "),
                 kv.describe().c_str());
    }

    void prepareWritesRandomNonSparseFilesAndModelLoadReadsEveryByte() {
        auto manifest = StorageManifest::load(m_dir);
        const IoJob write = StorageDataset::prepareModelLoad(manifest, 3 * 1000000, 3);
        const auto written = IoRunner(write).run();
        const std::uint64_t each = 1003520; // 1,000,000 rounded up to 4 KiB blocks
        QCOMPARE(written.bytesWritten, 3 * each);
        std::vector<std::string> heads;
        for (int i = 0; i < 3; ++i) {
            const std::string path = m_dir + "/" + StorageDataset::shardName(i, 3);
            QCOMPARE(sizeOf(path), each);
            QVERIFY2(allocated(path) >= each, "prepared files must not be sparse");
            heads.push_back(head(path, 4096));
            QVERIFY(heads.back() != std::string(4096, '\0'));
        }
        QVERIFY(heads[0] != heads[1]); // every block is stamped: nothing to deduplicate
        QCOMPARE(StorageManifest::load(m_dir).files().size(), std::size_t(3));
        // Written and synced, but not yet marked: refused, as an interrupted preparation is.
        QCOMPARE(kindOf([&] { ModelLoadWorkload({m_dir}).job(); }), WorkloadError::Kind::Refused);
        StorageDataset::markComplete(manifest, "model-load");

        ModelLoadWorkload load({m_dir, 2, 4, 256 * 1024, true});
        const IoJob job = load.job();
        QCOMPARE(job.streams.size(), std::size_t(3)); // the manifest is not a shard
        const auto result = IoRunner(job).run();
        QCOMPARE(result.bytesRead, 3 * each);
        QCOMPARE(result.bytesWritten, 0ull);
        QCOMPARE(result.fileSeconds.size(), std::size_t(3));
        for (double s : result.fileSeconds)
            QVERIFY(s > 0);
        QCOMPARE(result.pageCacheBypassed(), takesDirectIo(m_dir));
        const auto summary = load.summarize(job, result);
        QCOMPARE(summary["files"].get<int>(), 3);
        QCOMPARE(summary["per_file"].size(), std::size_t(3));
        QCOMPARE(summary["bytes_read"].get<std::uint64_t>(), 3 * each);
    }

    void readsAFileWhoseSizeIsNotWholeBlocks() {
        test::writeFileBytes(m_dir + "/config.json", std::string(10000, 'x'));
        ModelLoadWorkload load({m_dir, 1, 2, 4096, true});
        const auto result = IoRunner(load.job()).run();
        QCOMPARE(result.bytesRead, 10000ull); // the O_DIRECT read past the end returns short
    }

    void kvRestoreReadsEachRequestsPrefixChunks() {
        auto manifest = StorageManifest::load(m_dir);
        StorageDataset::KvLayout layout{tinyGeometry(), 256, 1000, 3};
        QCOMPARE(layout.chunkBytes(), 262144ull);
        QCOMPARE(layout.chunksPerPrefix(), 4);
        const auto written = IoRunner(StorageDataset::prepareKvRestore(manifest, layout)).run();
        QCOMPARE(written.bytesWritten, 3 * 4 * 262144ull);
        QCOMPARE(sizeOf(m_dir + "/" + StorageDataset::kvChunkName(2, 3)), 262144ull);
        QCOMPARE(kindOf([&] { KvRestoreWorkload({m_dir}, StorageManifest::load(m_dir)); }),
                 WorkloadError::Kind::Refused); // not marked complete yet
        StorageDataset::markComplete(manifest, "kv-restore");

        // 600 tokens need 3 chunks; 5 requests over 3 prefixes read two prefixes again.
        KvRestoreWorkload restore({m_dir, 2, 5, 600, 2, 65536, true}, StorageManifest::load(m_dir));
        const IoJob job = restore.job();
        QCOMPARE(job.streams.size(), std::size_t(5));
        QCOMPARE(job.streams[4][0].path, m_dir + "/" + StorageDataset::kvChunkName(1, 0));
        const auto result = IoRunner(job).run();
        QCOMPARE(result.bytesRead, 5 * 3 * 262144ull);
        const auto summary = restore.summarize(result);
        QCOMPARE(summary["restore_seconds"]["count"].get<int>(), 5);
        QVERIFY(summary["ttft_io_component_p99_s"].get<double>() >=
                summary["ttft_io_component_p50_s"].get<double>());
        QCOMPARE(summary["bytes_per_request"].get<std::uint64_t>(), 3 * 262144ull);
        QVERIFY(summary.contains("reuse_note"));

        // Planning a large job stops at a cancel (a signal), before it has planned everything.
        KvRestoreWorkload large({m_dir, 2, 100000, 600, 2, 65536, true},
                                StorageManifest::load(m_dir));
        std::atomic<bool> cancel{false};
        QCOMPARE(large.job(&cancel).streams.size(), std::size_t(100000));
        cancel = true;
        QCOMPARE(large.job(&cancel).streams.size(), std::size_t(0));
    }

    void kvRestoreRefusesMoreTokensThanPrepared() {
        auto manifest = StorageManifest::load(m_dir);
        QCOMPARE(kindOf([&] { KvRestoreWorkload({m_dir}, manifest); }),
                 WorkloadError::Kind::NotFound);
        IoRunner(StorageDataset::prepareKvRestore(manifest, {tinyGeometry(), 256, 512, 1})).run();
        StorageDataset::markComplete(manifest, "kv-restore");
        QCOMPARE(kindOf([&] {
                     KvRestoreWorkload({m_dir, 1, 1, 513}, StorageManifest::load(m_dir));
                 }),
                 WorkloadError::Kind::Refused);
    }

    // A manifest's kv-restore entry is validated as a preparation is: a zero chunk size would
    // divide by zero, a negative token count "restore" nothing in 0.0 s, a huge one exhaust
    // memory. Each is refused as damaged, and so are sizes no preparation may create.
    void aDamagedKvManifestIsRefusedNotRun() {
        auto manifest = StorageManifest::load(m_dir);
        IoRunner(StorageDataset::prepareKvRestore(manifest, {tinyGeometry(), 256, 512, 1})).run();
        StorageDataset::markComplete(manifest, "kv-restore");
        const auto saved = StorageManifest::load(m_dir);
        const auto* good = saved.findDataset("kv-restore");
        QVERIFY(good);
        const nlohmann::json original = *good;
        const std::vector<std::pair<std::string, nlohmann::json>> attacks = {
            {"/chunk_tokens", 0},     {"/prefixes", 0},
            {"/tokens", -5},          {"/geometry/layers", 0},
            {"/tokens", 2000000000},  {"/geometry/head_dim", 1 << 30},
            {"/chunk_tokens", "256"}, {"/geometry/dtype_bytes", -2}};
        for (const auto& [pointer, value] : attacks) {
            auto edited = StorageManifest::load(m_dir);
            edited.dataset("kv-restore") = original;
            edited.dataset("kv-restore")[nlohmann::json::json_pointer(pointer)] = value;
            edited.save();
            try {
                KvRestoreWorkload({m_dir}, StorageManifest::load(m_dir));
                QFAIL(qPrintable(QString::fromStdString(pointer + " accepted")));
            } catch (const WorkloadError& e) {
                QCOMPARE(e.kind(), WorkloadError::Kind::Refused);
                QVERIFY2(std::string(e.what()).find("manifest is damaged") != std::string::npos,
                         e.what());
            }
        }
        // Preparation refuses the same sizes before it allocates or creates anything.
        StorageDataset::KvLayout huge{tinyGeometry(), 1, 2147483647, 1};
        QVERIFY2(huge.problem().find("chunk files") != std::string::npos, huge.problem().c_str());
        auto fresh = StorageManifest::load(m_dir);
        QCOMPARE(kindOf([&] { StorageDataset::prepareKvRestore(fresh, huge); }),
                 WorkloadError::Kind::Refused);
        // A valid entry and absurd options: refused before planning two billion reads.
        auto edited = StorageManifest::load(m_dir);
        edited.dataset("kv-restore") = original;
        edited.save();
        QCOMPARE(kindOf([&] {
                     KvRestoreWorkload({m_dir, 1, 2000000000}, StorageManifest::load(m_dir));
                 }),
                 WorkloadError::Kind::Refused);
        QCOMPARE(kindOf([&] {
                     KvRestoreWorkload({m_dir, 1, -1}, StorageManifest::load(m_dir));
                 }),
                 WorkloadError::Kind::Refused);
    }

    void checkpointWritesFsyncsRestoresAndCleansUp() {
        auto manifest = StorageManifest::load(m_dir);
        CheckpointSaveWorkload save({m_dir, 1048577, 4, 2, 4, 65536, true});
        const IoJob job = save.saveJob(manifest);
        const auto saved = IoRunner(job).run();
        const std::uint64_t each = 266240; // ceil(1,048,577 / 4) rounded up to 4 KiB
        QCOMPARE(save.fileBytes(), each);
        QCOMPARE(saved.bytesWritten, 4 * each);
        for (int i = 0; i < 4; ++i)
            QCOMPARE(sizeOf(m_dir + "/" + StorageDataset::checkpointName(i, 4)), each);
        const auto restored = IoRunner(save.restoreJob(job)).run();
        QCOMPARE(restored.bytesRead, 4 * each);
        const auto summary = save.summarize(saved, &restored);
        QCOMPARE(summary["restore"]["bytes_read"].get<std::uint64_t>(), 4 * each);

        QCOMPARE(StorageDataset::remove(manifest, "checkpoint-save"), 4);
        QCOMPARE(sizeOf(m_dir + "/" + StorageDataset::checkpointName(0, 4)), 0ull);
        QVERIFY(StorageManifest::load(m_dir).files().empty());
    }

    void randomReadsIssueTheAskedNumberOfBlocks() {
        test::writeFileBytes(m_dir + "/data", std::string(1 << 20, 'r'));
        IoJob job;
        job.streams = {{{m_dir + "/data", 1 << 20}}};
        job.random = true;
        job.randomOps = 100;
        job.blockSize = 4096;
        job.depth = 16;
        QCOMPARE(IoRunner(job).run().bytesRead, 409600ull);
    }

    void refusesToOverwriteFilesItDidNotCreate() {
        const std::string stranger = m_dir + "/" + StorageDataset::shardName(0, 2);
        test::writeFileBytes(stranger, "precious");
        auto manifest = StorageManifest::load(m_dir);
        QCOMPARE(kindOf([&] { StorageDataset::prepareModelLoad(manifest, 1 << 20, 2); }),
                 WorkloadError::Kind::Refused);
        QCOMPARE(head(stranger, 8), std::string("precious"));
        QVERIFY(StorageManifest::load(m_dir).files().empty());
    }

    void refusesASymlinkPlantedUnderOneOfItsNames() {
        QTemporaryDir outside;
        const std::string target = outside.path().toStdString() + "/victim";
        test::writeFileBytes(target, "outside");
        const std::string link = m_dir + "/" + StorageDataset::checkpointName(0, 1);
        QCOMPARE(symlink(target.c_str(), link.c_str()), 0);
        auto manifest = StorageManifest::load(m_dir);
        QCOMPARE(kindOf([&] {
                     CheckpointSaveWorkload({m_dir, 4096, 1}).saveJob(manifest);
                 }),
                 WorkloadError::Kind::Refused);
        QCOMPARE(head(target, 7), std::string("outside"));
    }

    void onlyTierscopesOwnNamesAreItsNames() {
        QCOMPARE(DataFileName::workloadOf(StorageDataset::shardName(0, 4)),
                 std::string("model-load"));
        QCOMPARE(DataFileName::workloadOf(StorageDataset::kvChunkName(12, 123456)),
                 std::string("kv-restore"));
        QCOMPARE(DataFileName::workloadOf(StorageDataset::checkpointName(99999, 100000)),
                 std::string("checkpoint-save"));
        for (const char* name :
             {"", ".", "..", "../model-00001-of-00001.safetensors", "x/kv-p00000-c00000.bin",
              "model-1-of-1.safetensors", "model-000001-of-00001.safetensors",
              "model-+0001-of-00001.safetensors", "model-00001-of-00001.safetensors.bak",
              "model-00001-of-00001.safetensors/", "model-../../of-00001.safetensors",
              "checkpoint-00001-of-00001.pt\n", "kv-p00000-c00000.bin.tmp", "important.db",
              ".tierscope-data.json", "model-1234567890-of-00001.safetensors"})
            QVERIFY2(DataFileName::workloadOf(name).empty(), name);
    }

    void aFileSwappedAfterItWasCreatedIsNotWritten() {
        auto manifest = StorageManifest::load(m_dir);
        const IoJob job = StorageDataset::prepareModelLoad(manifest, 4096, 1);
        const std::string shard = m_dir + "/" + StorageDataset::shardName(0, 1);
        QCOMPARE(
            job.streams[0][0].inode,
            StorageManifest::load(m_dir).files().at(StorageDataset::shardName(0, 1)).inode.value());
        test::writeFileBytes(m_dir + "/keep", "someone else's"); // first, or it may get the inode
        QCOMPARE(unlink(shard.c_str()), 0);
        QCOMPARE(link((m_dir + "/keep").c_str(), shard.c_str()), 0);
        QCOMPARE(kindOf([&] { IoRunner(job).run(); }), WorkloadError::Kind::Refused);
        QCOMPARE(head(m_dir + "/keep", 14), std::string("someone else's"));
        // and clean leaves it too: another inode, and another link
        std::vector<std::string> refusals;
        QCOMPARE(StorageDataset::remove(manifest, "", &refusals), 0);
        QCOMPARE(refusals.size(), std::size_t(1));
        QCOMPARE(head(shard, 14), std::string("someone else's"));
    }

    // The inode tierscope recorded, given to a file created since (a model shard copied in
    // under the same name once the synthetic ones were deleted by hand): the birth time tells
    // them apart, and clean leaves the user's file. The reuse is made certain by writing the
    // new file's inode into the manifest, which anyone who can write the directory can do.
    void aReusedInodeIsNotTheFileTierscopeCreated() {
        auto manifest = StorageManifest::load(m_dir);
        IoRunner(StorageDataset::prepareModelLoad(manifest, 4096, 1)).run();
        const std::string name = StorageDataset::shardName(0, 1);
        const auto recorded = StorageManifest::load(m_dir).files().at(name);
        QVERIFY(recorded.inode && recorded.birthNs); // ext4 and tmpfs keep birth times
        QCOMPARE(unlink((m_dir + "/" + name).c_str()), 0);
        QTest::qWait(20); // a birth time later than the recorded one, at any clock resolution
        test::writeFileBytes(m_dir + "/" + name, "the user's real shard");
        struct stat st {};
        QCOMPARE(stat((m_dir + "/" + name).c_str(), &st), 0);
        std::ifstream in(m_dir + "/.tierscope-data.json");
        auto doc = nlohmann::json::parse(in);
        doc["files"][name]["inode"] = static_cast<std::uint64_t>(st.st_ino);
        test::writeFile(QString::fromStdString(m_dir + "/.tierscope-data.json"),
                        QByteArray::fromStdString(doc.dump()));
        auto reused = StorageManifest::load(m_dir);
        std::vector<std::string> refusals;
        QCOMPARE(StorageDataset::remove(reused, "", &refusals), 0);
        QCOMPARE(refusals.size(), std::size_t(1));
        QVERIFY2(refusals[0].find("the inode was given to a file created since") !=
                     std::string::npos,
                 refusals[0].c_str());
        QCOMPARE(head(m_dir + "/" + name, 21), std::string("the user's real shard"));
    }

    void anInterruptedPrepareCanStillBeCleaned() {
        auto manifest = StorageManifest::load(m_dir);
        StorageDataset::prepareKvRestore(manifest, {tinyGeometry(), 256, 512, 2}); // never run
        QCOMPARE(sizeOf(m_dir + "/" + StorageDataset::kvChunkName(1, 1)), 0ull);
        auto again = StorageManifest::load(m_dir);
        QCOMPARE(StorageDataset::remove(again, ""), 4);
        QVERIFY(StorageManifest::load(m_dir).files().empty());
        QCOMPARE(QDir(QString::fromStdString(m_dir)).entryList(QDir::Files).size(), 0);
    }

    // A data set is ready for a plan only when it is the one asked for and completely written:
    // another size, another geometry, an interrupted or an older preparation is prepared again.
    void onlyTheAskedForCompleteDataSetIsReady() {
        auto manifest = StorageManifest::load(m_dir);
        const auto wanted = StorageDataset::modelLoadDataset(4 * 4096, 1);
        const auto job = StorageDataset::prepareModelLoad(manifest, 4 * 4096, 1);
        QVERIFY(!StorageDataset::ready(manifest, "model-load", wanted)); // not written yet
        IoRunner(job).run();
        StorageDataset::markComplete(manifest, "model-load");
        QVERIFY(StorageDataset::ready(StorageManifest::load(m_dir), "model-load", wanted));
        QVERIFY(!StorageDataset::ready(manifest, "model-load",
                                       StorageDataset::modelLoadDataset(64 * 4096, 4)));
        StorageDataset::KvLayout layout{tinyGeometry(), 256, 512, 1};
        QVERIFY(!StorageDataset::ready(manifest, "kv-restore", layout.toJson()));
        IoRunner(StorageDataset::prepareKvRestore(manifest, layout)).run();
        StorageDataset::markComplete(manifest, "kv-restore");
        QVERIFY(StorageDataset::ready(manifest, "kv-restore", layout.toJson()));
        auto other = layout;
        other.geometry.layers += 1;
        QVERIFY(!StorageDataset::ready(manifest, "kv-restore", other.toJson()));
        // An older tierscope's manifest has no completeness flag: not trusted.
        manifest.dataset("model-load").erase("complete");
        manifest.save();
        QVERIFY(!StorageDataset::ready(StorageManifest::load(m_dir), "model-load", wanted));
        QCOMPARE(kindOf([&] { ModelLoadWorkload({m_dir}).job(); }), WorkloadError::Kind::Refused);
    }

    // model-load reads its own shards, never a file the user put beside them nor another data
    // set's; a directory tierscope did not prepare is read whole (a real model's files).
    void modelLoadReadsOnlyItsOwnShards() {
        auto manifest = StorageManifest::load(m_dir);
        IoRunner(StorageDataset::prepareKvRestore(manifest, {tinyGeometry(), 256, 512, 1})).run();
        StorageDataset::markComplete(manifest, "kv-restore");
        test::writeFileBytes(m_dir + "/mine.safetensors", std::string(5000, 'x'));
        // No model-load data set: the user's file, not the KV chunks.
        const auto userFiles = ModelLoadWorkload({m_dir}).job();
        QCOMPARE(userFiles.streams.size(), std::size_t(1));
        QCOMPARE(userFiles.streams[0][0].path, m_dir + "/mine.safetensors");
        IoRunner(StorageDataset::prepareModelLoad(manifest, 2 * 4096, 2)).run();
        StorageDataset::markComplete(manifest, "model-load");
        const auto shards = ModelLoadWorkload({m_dir}).job();
        QCOMPARE(shards.streams.size(), std::size_t(2));
        for (const auto& stream : shards.streams)
            QVERIFY2(stream[0].path.find("mine") == std::string::npos &&
                         stream[0].path.find(StorageDataset::kvChunkName(0, 0)) ==
                             std::string::npos,
                     stream[0].path.c_str());
    }

    void aLeftoverTemporaryManifestIsReplaced() {
        test::writeFileBytes(m_dir + "/" + StorageManifest::kTempName, "half a manif");
        auto manifest = StorageManifest::load(m_dir);
        StorageDataset::prepareModelLoad(manifest, 4096, 1);
        QCOMPARE(StorageManifest::load(m_dir).files().size(), std::size_t(1));
        QVERIFY(!QFile::exists(QString::fromStdString(m_dir + "/" + StorageManifest::kTempName)));
    }

    void preparingAgainReplacesOnlyItsOwnFiles() {
        auto manifest = StorageManifest::load(m_dir);
        IoRunner(StorageDataset::prepareModelLoad(manifest, 4 * 4096, 4)).run();
        test::writeFileBytes(m_dir + "/tokenizer.json", "{}");
        IoRunner(StorageDataset::prepareModelLoad(manifest, 2 * 4096, 2)).run();
        QCOMPARE(sizeOf(m_dir + "/" + StorageDataset::shardName(3, 4)), 0ull); // old set gone
        QCOMPARE(sizeOf(m_dir + "/" + StorageDataset::shardName(1, 2)), 4096ull);
        QCOMPARE(sizeOf(m_dir + "/tokenizer.json"), 2ull);
        QCOMPARE(StorageManifest::load(m_dir).files().size(), std::size_t(2));
    }

    void checksFreeSpaceBeforeWriting() {
        auto manifest = StorageManifest::load(m_dir);
        QCOMPARE(kindOf([&] { StorageDataset::prepareModelLoad(manifest, 1ull << 60, 4); }),
                 WorkloadError::Kind::NoSpace);
        QVERIFY(StorageManifest::load(m_dir).files().empty());
        QCOMPARE(sizeOf(m_dir + "/" + StorageDataset::shardName(0, 4)), 0ull);
    }

    void badPathsAreClearErrors() {
        QCOMPARE(kindOf([&] { StorageManifest::load(m_dir + "/missing"); }),
                 WorkloadError::Kind::NotFound);
        test::writeFileBytes(m_dir + "/file", "x");
        QCOMPARE(kindOf([&] { StorageManifest::load(m_dir + "/file"); }),
                 WorkloadError::Kind::NotFound);
        QCOMPARE(kindOf([&] { ModelLoadWorkload({m_dir + "/missing"}).job(); }),
                 WorkloadError::Kind::NotFound);
        QDir().mkpath(QString::fromStdString(m_dir + "/empty"));
        QCOMPARE(kindOf([&] { ModelLoadWorkload({m_dir + "/empty"}).job(); }),
                 WorkloadError::Kind::NotFound);
        test::writeFileBytes(m_dir + "/" + StorageManifest::kFileName, "not json");
        QCOMPARE(kindOf([&] { StorageManifest::load(m_dir); }), WorkloadError::Kind::Refused);
    }

    void aFileThatShrankIsAnError() {
        IoJob job;
        test::writeFileBytes(m_dir + "/short", std::string(8192, 's'));
        job.streams = {{{m_dir + "/short", 65536}}}; // claims more than is there
        job.blockSize = 4096;
        QCOMPARE(kindOf([&] { IoRunner(job).run(); }), WorkloadError::Kind::Io);
    }

    void cancelStopsEarlyAndDrains() {
        test::writeFileBytes(m_dir + "/big", std::string(8 << 20, 'b'));
        IoJob job;
        for (int i = 0; i < 64; ++i)
            job.streams.push_back({{m_dir + "/big", 8 << 20}});
        job.blockSize = 65536;
        IoRunner runner(job);
        std::atomic<bool> cancel{false};
        std::thread canceller([&] {
            while (runner.bytesRead() == 0)
                std::this_thread::yield();
            cancel = true;
        });
        const auto result = runner.run(&cancel);
        canceller.join();
        QVERIFY(result.cancelled);
        QVERIFY(result.bytesRead > 0);
        QVERIFY(result.bytesRead < 64ull * (8 << 20));
    }
};

QTEST_GUILESS_MAIN(TestStorageWorkloads)
#include "tst_storageworkloads.moc"
