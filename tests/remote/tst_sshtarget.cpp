#include "remote/SshCommandLine.h"
#include "remote/SshDiagnosis.h"
#include "remote/SshTarget.h"

#include <QtTest>
#include <algorithm>

using namespace tierscope;

class TestSshTarget : public QObject {
    Q_OBJECT
  private:
    static SshTarget ok(const char* text) {
        const auto p = SshTarget::parse(text);
        if (!p.target)
            qFatal("%s: %s", text, p.error.c_str());
        return *p.target;
    }
    static std::string refused(const char* text) {
        const auto p = SshTarget::parse(text);
        if (p.target)
            qFatal("%s was accepted", text);
        return p.error;
    }

  private slots:
    void parsesTheForms() {
        QVERIFY(ok("local").local);
        const auto plain = ok("ssh://gpu01");
        QVERIFY(!plain.local);
        QCOMPARE(plain.host, std::string("gpu01"));
        QVERIFY(plain.user.empty());
        QVERIFY(!plain.port);
        const auto full = ok("ssh://ops.team@gpu-01.rack_3.example.com:2222");
        QCOMPARE(full.user, std::string("ops.team"));
        QCOMPARE(full.host, std::string("gpu-01.rack_3.example.com"));
        QCOMPARE(*full.port, 2222);
        QCOMPARE(full.uri(), std::string("ssh://ops.team@gpu-01.rack_3.example.com:2222"));
        QCOMPARE(full.label(), std::string("gpu-01.rack_3.example.com"));
        const auto v6 = ok("ssh://root@[fe80::1]:22");
        QCOMPARE(v6.host, std::string("fe80::1"));
        QCOMPARE(v6.uri(), std::string("ssh://root@[fe80::1]:22"));
        QCOMPARE(ok("ssh://10.0.0.7/").host, std::string("10.0.0.7"));
    }

    void refusesHostileAndMalformedTargets() {
        // Option injection: an ssh destination starting with '-' is read as an option.
        QVERIFY(refused("ssh://-oProxyCommand=touch /tmp/pwned").find("host") != std::string::npos);
        QVERIFY(!refused("ssh://-p22").empty());
        QVERIFY(!refused("ssh://-l@host").empty());
        QVERIFY(!refused("ssh://-root@host").empty());
        QVERIFY(!refused("ssh://.hidden").empty());
        // Shell syntax and spaces never reach the remote command line.
        QVERIFY(!refused("ssh://host;rm -rf ~").empty());
        QVERIFY(!refused("ssh://host$(id)").empty());
        QVERIFY(!refused("ssh://ho st").empty());
        QVERIFY(!refused("ssh://host\n-oX").empty());
        QVERIFY(!refused("ssh://us er@host").empty());
        QVERIFY(!refused("ssh://a@b@host").empty());
        QVERIFY(!refused("ssh://").empty());
        QVERIFY(!refused("ssh://@host").empty());
        QVERIFY(!refused("gpu01").empty());
        QVERIFY(!refused("http://gpu01").empty());
        QVERIFY(!refused("ssh://host/path").empty());
        QVERIFY(!refused("ssh://host?x=1").empty());
        QVERIFY(!refused("ssh://host:").empty());
        QVERIFY(!refused("ssh://host:0").empty());
        QVERIFY(!refused("ssh://host:65536").empty());
        QVERIFY(!refused("ssh://host:+22").empty());
        QVERIFY(!refused("ssh://host:22x").empty());
        QVERIFY(!refused("ssh://[fe80::1").empty());
        QVERIFY(!refused("ssh://[-oX]").empty());
        QVERIFY(!refused("ssh://[::1]x").empty());
        QVERIFY(!refused(("ssh://" + std::string(254, 'a')).c_str()).empty());
        QVERIFY(!refused(("ssh://" + std::string(33, 'u') + "@h").c_str()).empty());
    }

    void commandLineIsSafeAndBounded() {
        SshCommandLine::Options o;
        o.controlPath = "/run/user/0/tierscope-ssh-abc/master";
        o.connectTimeout = std::chrono::seconds(7);
        o.remoteBinary = "/opt/tier scope/bin/tierscope";
        const SshCommandLine line(ok("ssh://me@gpu01:2222"), o);
        const auto argv = line.tierscope({"stream", "--label", "it's $(here)"});
        const auto has = [&](const std::string& s) {
            return std::find(argv.begin(), argv.end(), s) != argv.end();
        };
        QCOMPARE(argv.front(), std::string("ssh"));
        QVERIFY(has("BatchMode=yes"));
        QVERIFY(has("ConnectTimeout=7"));
        QVERIFY(has("ServerAliveInterval=5"));
        QVERIFY(has("ClearAllForwardings=yes"));
        QVERIFY(has("ControlPath=/run/user/0/tierscope-ssh-abc/master"));
        QVERIFY(has("ControlMaster=no"));
        // "--" ends ssh's options: the host, then one command string, come after it.
        const auto dashes = std::find(argv.begin(), argv.end(), "--");
        QVERIFY(dashes != argv.end());
        QCOMPARE(argv.end() - dashes, 3);
        QCOMPARE(*(dashes + 1), std::string("gpu01"));
        QCOMPARE(*(dashes + 2), std::string("'/opt/tier scope/bin/tierscope' 'stream' '--label' "
                                            "'it'\\''s $(here)'"));
        const auto port = std::find(argv.begin(), argv.end(), "-p");
        QVERIFY(port != argv.end() && port < dashes);
        QCOMPARE(*(port + 1), std::string("2222"));
        const auto user = std::find(argv.begin(), argv.end(), "-l");
        QVERIFY(user != argv.end() && user < dashes);

        const auto master = line.master();
        QVERIFY(std::find(master.begin(), master.end(), "ControlMaster=yes") != master.end());
        QVERIFY(std::find(master.begin(), master.end(), "-N") != master.end());
        QCOMPARE(master.back(), std::string("gpu01"));
        const auto check = line.control("check");
        QCOMPARE(*(check.end() - 2), std::string("--"));
    }

    void diagnosesOpenSshMessages() {
        const auto t = ok("ssh://me@gpu01:2222");
        using K = SshDiagnosis::Kind;
        const auto refusedPort = SshDiagnosis::classify(
            t, 255, "ssh: connect to host gpu01 port 2222: Connection refused\r\n");
        QCOMPARE(refusedPort.kind, K::Unreachable);
        QVERIFY(refusedPort.line.find("cannot reach gpu01:2222") != std::string::npos);
        QCOMPARE(SshDiagnosis::classify(t, 255,
                                        "ssh: Could not resolve hostname gpu01: Name or service "
                                        "not known\n")
                     .kind,
                 K::Unreachable);
        QCOMPARE(SshDiagnosis::classify(t, 255,
                                        "ssh: connect to host 10.1.1.1 port 22: Connection "
                                        "timed out\n")
                     .kind,
                 K::Unreachable);
        const auto key = SshDiagnosis::classify(
            t, 255,
            "Warning: Permanently added '[127.0.0.1]:2222' (ED25519) to the list of "
            "known hosts.\r\nme@127.0.0.1: Permission denied (publickey).\r\n");
        QCOMPARE(key.kind, K::AuthRefused);
        QVERIFY(key.line.find("refused the login of me") != std::string::npos);
        QVERIFY(key.line.find("password") != std::string::npos);
        QCOMPARE(SshDiagnosis::classify(t, 255, "Host key verification failed.\r\n").kind,
                 K::HostKey);
        const auto missing =
            SshDiagnosis::classify(t, 127, "bash: line 1: tierscope: command not found\n");
        QCOMPARE(missing.kind, K::MissingBinary);
        QVERIFY(missing.line.find("not installed on gpu01") != std::string::npos);
        QCOMPARE(
            SshDiagnosis::classify(t, 109, "The following arguments were not expected: stream\n")
                .kind,
            K::Incompatible);
        QCOMPARE(
            SshDiagnosis::classify(t, 255, "Connection to 127.0.0.1 closed by remote host.\r\n")
                .kind,
            K::Lost);
        // Whatever the server prints reaches the terminal without its escape sequences.
        const auto other = SshDiagnosis::classify(t, 3, "boom \x1b]0;owned\x07\n");
        QCOMPARE(other.kind, K::Other);
        QVERIFY(other.line.find('\x1b') == std::string::npos);
        QVERIFY(other.line.find("exit 3") != std::string::npos);
        for (const auto& r : {refusedPort, key, missing, other})
            QVERIFY(r.line.find('\n') == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestSshTarget)
#include "tst_sshtarget.moc"
