#include "TestSupport.h"
#include "core/util/Redaction.h"

using namespace tierscope;

// Secrets found by name where they have one, by form where they do not; and nothing else.
class TestRedaction : public QObject {
    Q_OBJECT
  private slots:
    void secretsGoWhateverTheyAreCalled_data() {
        QTest::addColumn<QString>("in");
        QTest::addColumn<QString>("out");
        QTest::newRow("upper env") << "HF_TOKEN = \"hf_abc\""
                                   << "HF_TOKEN = \"<redacted>\"";
        QTest::newRow("lower env") << "hf_token = 'x1'"
                                   << "hf_token = '<redacted>'";
        QTest::newRow("a password by another name")
            << "env = { DB_PASS = \"hunter2\", MODE = \"fast\" }"
            << "env = { DB_PASS = \"<redacted>\", MODE = \"fast\" }";
        QTest::newRow("a header") << "AUTH_HEADER = \"Bearer eyJhbGciOi.x.y\""
                                  << "AUTH_HEADER = \"<redacted>\"";
        QTest::newRow("a bearer under no name")
            << "setup = \"curl -H 'Authorization: Bearer abcdef123' http://h/reset\""
            << "setup = \"curl -H 'Authorization: Bearer <redacted>' http://h/reset\"";
        QTest::newRow("a URL's password inside a value")
            << "engine_url = \"http://admin:s3cret@10.0.0.5:8000\""
            << "engine_url = \"http://<redacted>@10.0.0.5:8000\"";
        QTest::newRow("a query key") << "url = \"http://h:8000/v1?api_key=abc123&x=1\""
                                     << "url = \"http://h:8000/v1?api_key=<redacted>&x=1\"";
        QTest::newRow("shell export") << "export OPENAI_API_KEY=sk-live && run"
                                      << "export OPENAI_API_KEY=<redacted> && run";
        QTest::newRow("a flag") << "--api-key=abc"
                                << "--api-key=<redacted>";
        QTest::newRow("JSON") << R"({"clientSecret": "zz", "n": 1})"
                              << R"({"clientSecret": "<redacted>", "n": 1})";
        QTest::newRow("a token by its form")
            << "echo hf_aBcDeFgHiJkLmNoPqRsT and ghp_0123456789abcdefghijABCD"
            << "echo <redacted> and <redacted>";
    }
    void secretsGoWhateverTheyAreCalled() {
        QFETCH(QString, in);
        QFETCH(QString, out);
        QCOMPARE(QString::fromStdString(Redaction::text(in.toStdString())), out);
    }

    // The plan's own keys are figures: the shipped plans come through unchanged.
    void figuresStay() {
        for (const char* plan : {"disk-vs-shm.toml", "vllm-lmcache-nvmeof.toml"}) {
            QFile f(QStringLiteral(TIERSCOPE_FIXTURES "/../../resources/plans/") + plan);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const std::string text = f.readAll().toStdString();
            QCOMPARE(QString::fromStdString(Redaction::text(text)), QString::fromStdString(text));
        }
        for (const char* line :
             {"kv_bytes_per_token = 65536", "tokens = 1024", "document_tokens = 8000",
              "max_tokens: 16", "keys = 3", "bypass = true", "path = \"/mnt/fx100/kv\""})
            QCOMPARE(Redaction::text(line), std::string(line));
    }

    void urlsLoseTheirUserinfoAndSecretParameters() {
        QCOMPARE(Redaction::url("http://user:pw@host:8000/v1?api_key=k&model=m&token=t#f"),
                 std::string("http://host:8000/v1?api_key=<redacted>&model=m&token=<redacted>#f"));
        QCOMPARE(Redaction::url("https://host/metrics"), std::string("https://host/metrics"));
        QCOMPARE(Redaction::url("http://host?q=a@b"), std::string("http://host?q=a@b"));
        QCOMPARE(Redaction::url("https://a%40b:p@ss@host"), std::string("https://host"));
        QCOMPARE(Redaction::url("http://host:8000/path@x"), std::string("http://host:8000/path@x"));
    }
};

QTEST_GUILESS_MAIN(TestRedaction)
#include "tst_redaction.moc"
