// loader_cxx.cpp - a C++ kernel: std::vector, an exception thrown and caught inside, and an
// extern "C" entry. Its imports come versioned from libstdc++ (GLIBCXX_, CXXABI_) and libgcc_s.
// loader_cxx_mangled lacks extern "C", so naming it as an entry must be refused with a hint.
#include <cstdint>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <vector>

static uint32_t sum_checked(const std::vector<uint32_t> &v)
{
    if (v.empty())
        throw std::invalid_argument("empty");
    return std::accumulate(v.begin(), v.end(), 0u);
}

extern "C" uint32_t loader_cxx_entry(void *args)
{
    uint32_t n = 0;
    std::memcpy(&n, args, sizeof(n));
    std::vector<uint32_t> v(n);
    for (uint32_t i = 0; i < n; i++)
        v[i] = i;
    try {
        return sum_checked(v);
    } catch (const std::exception &) {
        return 0xE0u;
    }
}

uint32_t loader_cxx_mangled(void *args)
{
    return args != nullptr;
}
