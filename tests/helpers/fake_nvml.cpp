// A stand-in for libnvidia-ml.so.1 with known values, declared from NVML's public API
// (nvml.h), independently of collectors/gpu/NvidiaNvmlApi.h. Built in three variants:
//   default            everything, memory v1 and v2
//   FAKE_NVML_V1_ONLY  no nvmlDeviceGetMemoryInfo_v2, and the clocks event reasons under their
//                      name before NVML 12.2, nvmlDeviceGetCurrentClocksThrottleReasons (older
//                      drivers)
//   FAKE_NVML_NO_INIT  no nvmlInit_v2 (a broken or foreign library)
//   FAKE_NVML_NO_PROCESSES  no running-process entry points at all (a driver older than them)
// The process lists come as _v3 (nvmlProcessInfo_v2_t) by default, and only under their
// unversioned names with the two-field nvmlProcessInfo_v1_t in FAKE_NVML_V1_ONLY.
#include <cstring>
#include <unistd.h>

extern "C" {

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;
typedef struct {
    unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
    unsigned int version;
    unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

#define NVML_SUCCESS 0
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_VALUE_NOT_AVAILABLE (~0ull)

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_v2_t;

static bool g_initialised = false;
static int g_devices[2];
static const unsigned long long kTotal = 85899345920ull; // 80 GiB
static const unsigned long long kReserved = 536870912ull;
static const unsigned long long kUsedV2[2] = {42949672960ull, 1073741824ull};

static int indexOf(nvmlDevice_t d) {
    return reinterpret_cast<int*>(d) - g_devices;
}

#ifndef FAKE_NVML_NO_INIT
nvmlReturn_t nvmlInit_v2(void) {
    g_initialised = true;
    return NVML_SUCCESS;
}
#endif
nvmlReturn_t nvmlShutdown(void) {
    g_initialised = false;
    return NVML_SUCCESS;
}
const char* nvmlErrorString(nvmlReturn_t r) {
    return r == NVML_ERROR_NOT_SUPPORTED ? "Not Supported" : "Unknown Error";
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
    if (!g_initialised)
        return NVML_ERROR_UNINITIALIZED;
    *count = 2;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
    if (index > 1)
        return NVML_ERROR_INVALID_ARGUMENT;
    *device = reinterpret_cast<nvmlDevice_t>(&g_devices[index]);
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t, char* name, unsigned int length) {
    std::strncpy(name, "NVIDIA H100 80GB HBM3", length);
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t* pci) {
    std::memset(pci, 0, sizeof *pci);
    std::strcpy(pci->busId, indexOf(d) == 0 ? "00000000:17:00.0" : "00000000:2A:00.0");
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t* u) {
    u->gpu = indexOf(d) == 0 ? 63 : 5;
    u->memory = indexOf(d) == 0 ? 21 : 1;
    return NVML_SUCCESS;
}
// v1 counts reserved memory as used.
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
    m->total = kTotal;
    m->used = kUsedV2[indexOf(d)] + kReserved;
    m->free = m->total - m->used;
    return NVML_SUCCESS;
}
#ifndef FAKE_NVML_V1_ONLY
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t* m) {
    if (m->version != (unsigned int)(sizeof(nvmlMemory_v2_t) | (2 << 24U)))
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    m->total = kTotal;
    m->reserved = kReserved;
    m->used = kUsedV2[indexOf(d)];
    m->free = m->total - m->reserved - m->used;
    return NVML_SUCCESS;
}
#endif
nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t d, int counter, unsigned int* kbPerS) {
    if (indexOf(d) == 1)
        return NVML_ERROR_NOT_SUPPORTED;
    *kbPerS = counter == 0 ? 1000 : 2000;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int* milliwatts) {
    if (indexOf(d) == 1)
        return NVML_ERROR_NOT_SUPPORTED;
    *milliwatts = 250000;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int* celsius) {
    if (sensor != 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    *celsius = indexOf(d) == 0 ? 55 : 41;
    return NVML_SUCCESS;
}
// Millijoules since the driver loaded, on GPU 0 only (GPU 1 predates Volta). A test moves the
// counter with fakeNvmlSetEnergy, found with dlsym, to play a run, a driver reload and so on.
static unsigned long long g_energyMj = 1000000500ull;
void fakeNvmlSetEnergy(unsigned long long millijoules) {
    g_energyMj = millijoules;
}
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long* energy) {
    if (indexOf(d) == 1)
        return NVML_ERROR_NOT_SUPPORTED;
    *energy = g_energyMj;
    return NVML_SUCCESS;
}
// nvmlClocksEventReasonSwPowerCap (0x4) on GPU 0; GPU 1 is idle (nvmlClocksEventReasonGpuIdle).
static nvmlReturn_t clocksEventReasons(nvmlDevice_t d, unsigned long long* reasons) {
    *reasons = indexOf(d) == 0 ? 0x4ull : 0x1ull;
    return NVML_SUCCESS;
}
#ifndef FAKE_NVML_V1_ONLY
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long* r) {
    return clocksEventReasons(d, r);
}
#else
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long* r) {
    return clocksEventReasons(d, r);
}
#endif
// GPU 0: a Gen5 x16 GPU whose link runs at Gen4 x16; GPU 1: x8 of x16 at Gen5, and no answer
// for the GPU's own maximum generation.
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned int* width) {
    *width = indexOf(d) == 0 ? 16 : 8;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t, unsigned int* width) {
    *width = 16;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned int* generation) {
    *generation = indexOf(d) == 0 ? 4 : 5;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t, unsigned int* generation) {
    *generation = 5;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int* generation) {
    if (indexOf(d) == 1)
        return NVML_ERROR_NOT_SUPPORTED;
    *generation = 5;
    return NVML_SUCCESS;
}

#ifndef FAKE_NVML_NO_PROCESSES
// GPU 0 runs, on its compute list: this very process (2 GiB; also on the graphics list, with
// the same allocation seen as 1.5 GiB), pid 4194304 (1 GiB), which no Linux process can have
// (PID_MAX_LIMIT), so it has vanished by the time its name is read, and `extra` more such pids
// (fakeNvmlSetExtraProcesses) to overflow the caller's first buffer. On its graphics list, also
// pid 4194305 with its memory not available. GPU 1 cannot list processes (not supported).
static unsigned int g_extraProcesses = 0;
void fakeNvmlSetExtraProcesses(unsigned int n) {
    g_extraProcesses = n;
}
struct FakeProcess {
    unsigned int pid;
    unsigned long long used;
};
static unsigned int fakeProcesses(bool graphics, FakeProcess* out, unsigned int capacity) {
    FakeProcess all[64];
    unsigned int n = 0;
    const unsigned int self = static_cast<unsigned int>(getpid());
    if (graphics) {
        all[n++] = {self, 1610612736ull};
        all[n++] = {4194305u, NVML_VALUE_NOT_AVAILABLE};
    } else {
        all[n++] = {self, 2147483648ull};
        all[n++] = {4194304u, 1073741824ull};
        for (unsigned int i = 0; i < g_extraProcesses && n < 64; ++i)
            all[n++] = {5000000u + i, 1048576ull};
    }
    for (unsigned int i = 0; i < n && i < capacity; ++i)
        out[i] = all[i];
    return n;
}
extern "C++" { // a template cannot have C linkage
template <typename Info>
static nvmlReturn_t listProcesses(nvmlDevice_t d, bool graphics, unsigned int* count, Info* infos) {
    if (indexOf(d) == 1)
        return NVML_ERROR_NOT_SUPPORTED;
    FakeProcess found[64];
    const unsigned int n = fakeProcesses(graphics, found, 64);
    if (*count < n || infos == nullptr) {
        const bool enough = *count >= n;
        *count = n;
        return enough && n == 0 ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (unsigned int i = 0; i < n; ++i) {
        std::memset(&infos[i], 0, sizeof infos[i]);
        infos[i].pid = found[i].pid;
        infos[i].usedGpuMemory = found[i].used;
    }
    *count = n;
    return NVML_SUCCESS;
}
}
#ifndef FAKE_NVML_V1_ONLY
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int* count,
                                                     nvmlProcessInfo_v2_t* infos) {
    return listProcesses(d, false, count, infos);
}
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t d, unsigned int* count,
                                                      nvmlProcessInfo_v2_t* infos) {
    return listProcesses(d, true, count, infos);
}
#else
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t d, unsigned int* count,
                                                  nvmlProcessInfo_v1_t* infos) {
    return listProcesses(d, false, count, infos);
}
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t d, unsigned int* count,
                                                   nvmlProcessInfo_v1_t* infos) {
    return listProcesses(d, true, count, infos);
}
#endif
#endif
}
