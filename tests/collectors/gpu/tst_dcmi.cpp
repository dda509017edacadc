#include "TestSupport.h"
#include "collectors/gpu/AscendNpuCollector.h"
#include "collectors/gpu/GpuBackends.h"

#include <QFile>
#include <dlfcn.h>
#include <map>
#include <nlohmann/json.hpp>

using namespace tierscope;

// DCMI through the real dlopen path, against a fake libdcmi.so with known values.
class TestDcmi : public QObject {
    Q_OBJECT
  private slots:
    void knownValuesThroughDlopen() {
        GpuBackendStatus status;
        auto dcmi = AscendDcmi::open({"/nonexistent/libdcmi.so", FAKE_DCMI}, status);
        QVERIFY2(dcmi, status.summary().c_str());
        QCOMPARE(status.detail, std::string("2 NPU(s) via ") + FAKE_DCMI);
        AscendNpuCollector collector(dcmi, 0);
        std::map<std::string, Reading> r;
        for (const auto& reading : collector.sample(0))
            r.emplace(reading.metric.path, reading);
        QCOMPARE(r.at("gpu/0/busy_pct").value, 76.0);
        QCOMPARE(r.at("gpu/0/vram_used_bytes").value, 32768.0 * 1024 * 1024);
        QCOMPARE(r.at("gpu/0/vram_total_bytes").value, 65536.0 * 1024 * 1024);
        QCOMPARE(r.at("gpu/0/power_w").value, 280.5);
        QCOMPARE(r.at("gpu/0/temp_c").value, 48.0);
        QVERIFY(r.count("gpu/1/busy_pct") == 0); // DCMI error: absent
        QCOMPARE(r.at("gpu/1/vram_used_bytes").value, 1024.0 * 1024 * 1024);
        QCOMPARE(r.at("gpu/1/power_w").value, 123.4);
        const auto labels = nlohmann::json::parse(r.at("gpu/1/power_w").metric.labels);
        QCOMPARE(labels["model"].get<std::string>(), std::string("Ascend910B3"));
        QCOMPARE(labels["bus"].get<std::string>(), std::string("card 4 device 1"));
        QCOMPARE(collector.devices().size(), std::size_t(2));
    }

    // DCMI has no energy counter: gpu/<n>/energy_j is the power readings integrated (the
    // trapezoid between consecutive readings), from 0 J at the first, labelled so.
    void energyIntegratedFromPower() {
        GpuBackendStatus status;
        auto dcmi = AscendDcmi::open({FAKE_DCMI}, status);
        QVERIFY2(dcmi, status.summary().c_str());
        void* fake = dlopen(FAKE_DCMI, RTLD_NOW | RTLD_NOLOAD); // the library DCMI loaded
        QVERIFY(fake);
        auto* setPower = reinterpret_cast<void (*)(int, int)>(dlsym(fake, "fakeDcmiSetPower"));
        QVERIFY(setPower);
        AscendNpuCollector collector(dcmi, 0);
        constexpr std::int64_t kSecond = 1'000'000'000;
        std::map<std::string, std::vector<double>> joules;
        // NPU 0 at 280.5 W, then 300.5 W from the reading at 2 s on; NPU 1 at 123.4 W.
        for (const auto& [t, tenths] : {std::pair{0LL, 2805}, {2LL, 3005}, {3LL, 3005}}) {
            setPower(0, tenths);
            for (const auto& r : collector.sample(t * kSecond)) {
                if (!r.metric.path.ends_with("/energy_j"))
                    continue;
                QCOMPARE(r.metric.unit, std::string("J"));
                QCOMPARE(r.metric.kind, std::string("counter"));
                QVERIFY(nlohmann::json::parse(r.metric.labels)["integrated"].get<bool>());
                joules[r.metric.path].push_back(r.value);
            }
        }
        setPower(0, 2805);
        dlclose(fake);
        // (280.5 + 300.5) / 2 W for 2 s, then 300.5 W for 1 s.
        QCOMPARE(joules["gpu/0/energy_j"], (std::vector<double>{0.0, 581.0, 881.5}));
        const auto& npu1 = joules["gpu/1/energy_j"];
        QCOMPARE(npu1.size(), std::size_t(3));
        QCOMPARE(npu1[0], 0.0);
        QCOMPARE(npu1[1], 246.8); // 123.4 W for 2 s
        QCOMPARE(npu1[2], 370.2); // 3 s: equal to within the sum's rounding
    }

    void missingLibraryAndFunction() {
        GpuBackendStatus status;
        // The default search names libdcmi.so; an explicit path names that path.
        QVERIFY(!AscendDcmi::open(GpuBackends::Libraries{}.dcmi, status) ||
                QFile::exists("/usr/local/Ascend"));
        QCOMPARE(status.summary(), std::string("Ascend backend unavailable: libdcmi.so not found"));
        const auto record = status.toDeviceRecord();
        QVERIFY2(record.attrs.find("\"display\":\"Ascend NPU\"") != std::string::npos,
                 record.attrs.c_str());
        QVERIFY(!AscendDcmi::open({"/opt/nowhere/libdcmi.so"}, status));
        QCOMPARE(status.summary(), std::string("Ascend backend unavailable: /opt/nowhere/libdcmi.so not found"));
        // A library without the DCMI entry points (the fake NVML) is refused by name.
        QVERIFY(!AscendDcmi::open({FAKE_NVML}, status));
        QCOMPARE(status.reason, std::string(FAKE_NVML) + " lacks dcmi_init");
    }
};

QTEST_GUILESS_MAIN(TestDcmi)
#include "tst_dcmi.moc"
