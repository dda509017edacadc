// A stand-in for Huawei's libdcmi.so with known values, declared from the DCMI API reference.
#include <cstring>

extern "C" {

struct dcmi_hbm_info {
    unsigned long long memory_size; // MB
    unsigned int freq;
    unsigned long long memory_usage; // MB
    int temp;
    unsigned int bandwith_util_rate;
};
struct dcmi_chip_info {
    unsigned char chip_type[32];
    unsigned char chip_name[32];
    unsigned char chip_ver[32];
    unsigned int aicore_cnt;
};

static bool g_init = false;

int dcmi_init(void) {
    g_init = true;
    return 0;
}
int dcmi_get_card_list(int* card_num, int* card_list, int list_len) {
    if (!g_init || list_len < 1)
        return -8001;
    *card_num = 1;
    card_list[0] = 4;
    return 0;
}
int dcmi_get_device_num_in_card(int card_id, int* device_num) {
    if (card_id != 4)
        return -8007;
    *device_num = 2;
    return 0;
}
int dcmi_get_device_chip_info(int, int, struct dcmi_chip_info* info) {
    std::memset(info, 0, sizeof *info);
    std::strcpy(reinterpret_cast<char*>(info->chip_type), "Ascend");
    std::strcpy(reinterpret_cast<char*>(info->chip_name), "910B3");
    info->aicore_cnt = 20;
    return 0;
}
int dcmi_get_device_utilization_rate(int, int device_id, int input_type, unsigned int* rate) {
    if (device_id == 1 || input_type != 2)
        return -8255; // not supported
    *rate = 76;
    return 0;
}
int dcmi_get_device_hbm_info(int, int device_id, struct dcmi_hbm_info* hbm) {
    hbm->memory_size = 65536;
    hbm->memory_usage = device_id == 0 ? 32768 : 1024;
    hbm->freq = 1600;
    hbm->temp = 40;
    hbm->bandwith_util_rate = 10;
    return 0;
}
// In 0.1 W; a test changes device 0's with fakeDcmiSetPower, found with dlsym.
static int g_power[2] = {2805, 1234};
void fakeDcmiSetPower(int device_id, int tenths_of_watt) {
    g_power[device_id] = tenths_of_watt;
}
int dcmi_get_device_power_info(int, int device_id, int* power) {
    *power = g_power[device_id];
    return 0;
}
int dcmi_get_device_temperature(int, int device_id, int* temperature) {
    *temperature = device_id == 0 ? 48 : 39;
    return 0;
}
}
