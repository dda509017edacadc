#include "workloads/KvGeometry.h"

#include <QtTest>

using namespace tierscope;

class TestKvGeometry : public QObject {
    Q_OBJECT
  private slots:
    void presetsMatchHandComputedBytesPerToken_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<qulonglong>("bytesPerToken");
        // layers x kv_heads x head_dim x 2 (K, V) x 2 (bf16), or layers x latent x 2 for MLA
        QTest::newRow("480B") << "Qwen3-Coder-480B-A35B" << qulonglong(62 * 8 * 128 * 2 * 2);
        QTest::newRow("235B") << "Qwen3-235B-A22B" << qulonglong(94 * 4 * 128 * 2 * 2);
        QTest::newRow("DeepSeek MLA") << "DeepSeek-V3" << qulonglong(61 * (512 + 64) * 2);
        QTest::newRow("70B") << "Llama-3.1-70B" << qulonglong(80 * 8 * 128 * 2 * 2);
        QTest::newRow("8B") << "Llama-3.1-8B" << qulonglong(32 * 8 * 128 * 2 * 2);
        QTest::newRow("32B") << "Qwen2.5-32B" << qulonglong(64 * 8 * 128 * 2 * 2);
    }
    void presetsMatchHandComputedBytesPerToken() {
        QFETCH(QString, name);
        QFETCH(qulonglong, bytesPerToken);
        const auto g = KvGeometry::findPreset(name.toStdString());
        QVERIFY(g);
        QCOMPARE(g->bytesPerToken(), bytesPerToken);
        QVERIFY(!g->source.empty());
    }

    void knownFigures() {
        QCOMPARE(KvGeometry::findPreset("Qwen3-Coder-480B-A35B")->bytesPerToken(), 253952ull);
        // A 256-token LMCache chunk of the 480B model: 62 MiB.
        QCOMPARE(KvGeometry::findPreset("Qwen3-Coder-480B-A35B")->chunkBytes(256), 65011712ull);
        QCOMPARE(KvGeometry::findPreset("DeepSeek-V3")->bytesPerToken(), 70272ull);
    }

    void allSixPresetsShip() { QCOMPARE(KvGeometry::builtinPresets().size(), std::size_t(6)); }

    void lookupIgnoresCase() {
        QVERIFY(KvGeometry::findPreset("llama-3.1-8b"));
        QVERIFY(!KvGeometry::findPreset("Llama-9"));
    }

    void customMla() {
        KvGeometry g;
        g.layers = 3;
        g.mlaLatentDim = 100;
        g.dtypeBytes = 1;
        QVERIFY(g.problem().empty());
        QCOMPARE(g.bytesPerToken(), 300ull);
    }

    void incompleteGeometryIsAProblem() {
        KvGeometry g;
        g.layers = 4;
        QVERIFY(!g.problem().empty()); // neither heads nor MLA latent
        g.kvHeads = 2;
        g.headDim = 64;
        QVERIFY(g.problem().empty());
        g.dtypeBytes = 0;
        QVERIFY(!g.problem().empty());
    }

    void malformedPresetsNameTheLine() {
        const char* bad =
            "[[model]]\nname = \"x\"\nlayers = 2\nmla_latent_dim = 8\n[[model]]\nname = "
            "\"y\"\nlayers = 0\n";
        try {
            KvGeometry::parsePresets(bad);
            QFAIL("accepted a model with 0 layers");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("line 5") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, KvGeometry::parsePresets("layers = ["));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, KvGeometry::parsePresets("x = 1"));
    }
};

QTEST_GUILESS_MAIN(TestKvGeometry)
#include "tst_kvgeometry.moc"
