// krt_cxx.cpp - a C++ kernel: std::vector, an exception thrown and caught inside the kernel,
// and an extern "C" entry. It writes sum(i*i, i = 1..n) and whether the catch ran.
#include <cstdint>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

uint64_t checked_sum(const std::vector<uint64_t> &v, uint32_t n)
{
    if (v.size() != n)
        throw std::length_error("vector has the wrong size");
    // Always leave through an exception: the value travels in the message.
    throw std::runtime_error(std::to_string(std::accumulate(v.begin(), v.end(), uint64_t{0})));
}

} // namespace

// args: [u64 out][u32 n]; out receives {u64 sum, u32 caught, u32 vector size}.
extern "C" uint32_t krt_cxx_sum(void *args)
{
    uint64_t out = 0;
    uint32_t n = 0;
    std::memcpy(&out, args, sizeof(out));
    std::memcpy(&n, static_cast<const uint8_t *>(args) + 8, sizeof(n));

    std::vector<uint64_t> v;
    for (uint32_t i = 1; i <= n; i++)
        v.push_back(uint64_t{i} * i);
    uint64_t sum = 0;
    uint32_t caught = 0;
    try {
        sum = checked_sum(v, n);
    } catch (const std::runtime_error &e) {
        sum = std::stoull(e.what());
        caught = 1;
    } catch (...) {
        return 5;
    }
    uint8_t result[16];
    uint32_t size = static_cast<uint32_t>(v.size());
    std::memcpy(result, &sum, 8);
    std::memcpy(result + 8, &caught, 4);
    std::memcpy(result + 12, &size, 4);
    std::memcpy(reinterpret_cast<void *>(static_cast<uintptr_t>(out)), result, sizeof(result));
    return 0;
}
