#pragma once
// Small helpers shared by the cuzk-gpu-bench commands: argument parsing,
// random field data, and the timing statistics of tools/common/timing.hpp. No
// dependencies beyond the C++ library, so the binary runs on a bare GPU host.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/util/parallel.hpp"
#include "tools/common/timing.hpp"

namespace cuzk::gpubench {

// Timing helpers shared with the other tools (header-only, C++ library only).
using tools::MsSince;
using tools::SecondsSince;
using tools::Stats;
using tools::Summarize;

// --name value / --flag arguments after the command name.
class Args {
 public:
  explicit Args(std::map<std::string, std::string> values) : values_(std::move(values)) {}
  Args(int argc, char** argv, int first) {
    for (int i = first; i < argc; ++i) {
      std::string a = argv[i];
      if (a.rfind("--", 0) != 0) throw std::invalid_argument("unexpected argument '" + a + "'");
      a = a.substr(2);
      if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) {
        values_[a] = argv[++i];
      } else {
        values_[a] = "";
      }
    }
  }
  bool Has(const std::string& k) const { return values_.count(k) != 0; }
  std::string Get(const std::string& k, const std::string& def) const {
    auto it = values_.find(k);
    return it == values_.end() ? def : it->second;
  }
  long GetInt(const std::string& k, long def) const {
    auto it = values_.find(k);
    if (it == values_.end()) return def;
    char* end = nullptr;
    long v = std::strtol(it->second.c_str(), &end, 10);
    if (it->second.empty() || *end) throw std::invalid_argument("--" + k + " needs an integer");
    return v;
  }
  // "10,12,14" or "20-24" or a mix "10,20-22".
  std::vector<unsigned> GetList(const std::string& k, const std::string& def) const {
    std::vector<unsigned> out;
    std::string s = Get(k, def);
    size_t pos = 0;
    while (pos < s.size()) {
      size_t comma = s.find(',', pos);
      std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      size_t dash = item.find('-');
      if (dash == std::string::npos) {
        out.push_back(Number(k, item));
      } else {
        const unsigned a = Number(k, item.substr(0, dash)), b = Number(k, item.substr(dash + 1));
        if (b < a) throw std::invalid_argument("--" + k + ": range '" + item + "' runs backwards");
        for (unsigned v = a; v <= b; ++v) out.push_back(v);
      }
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    return out;
  }
  // "64,128,256": plain values (not log2 sizes), each at most 2^31.
  std::vector<unsigned> GetValues(const std::string& k, const std::string& def) const {
    std::vector<unsigned> out;
    std::stringstream list(Get(k, def));
    for (std::string item; std::getline(list, item, ',');) {
      if (item.empty() || item.size() > 10 || item.find_first_not_of("0123456789") != std::string::npos ||
          std::stoul(item) > (1ul << 31)) {
        throw std::invalid_argument("--" + k + ": '" + item + "' is not a list of values such as 0,64,128");
      }
      out.push_back(unsigned(std::stoul(item)));
    }
    if (out.empty()) throw std::invalid_argument("--" + k + ": empty list");
    return out;
  }
  // "-1,0,32": small signed values (option choices), each in [-1000, 1000].
  std::vector<int> GetChoices(const std::string& k, const std::string& def) const {
    std::vector<int> out;
    std::stringstream list(Get(k, def));
    for (std::string item; std::getline(list, item, ',');) {
      const size_t digits = item.rfind('-', 0) == 0 ? 1 : 0;
      if (item.size() <= digits || item.size() > digits + 4 ||
          item.find_first_not_of("0123456789", digits) != std::string::npos) {
        throw std::invalid_argument("--" + k + ": '" + item + "' is not a list of values such as -1,0,1");
      }
      out.push_back(std::stoi(item));
    }
    if (out.empty()) throw std::invalid_argument("--" + k + ": empty list");
    return out;
  }

 private:
  // A log2 size of a list: digits only, at most 64 (every command checks its own range).
  static unsigned Number(const std::string& k, const std::string& text) {
    if (text.empty() || text.size() > 2 || text.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(text) > 64)
      throw std::invalid_argument("--" + k + ": '" + text + "' is not a size list such as 10,12 or 20-24");
    return unsigned(std::stoul(text));
  }
  std::map<std::string, std::string> values_;
};

// One line of `kernels`' closing table, added by the ntt and msm runners.
struct SummaryRow {
  std::string what;  // "G1 MSM", "NTT forward", "H2D pinned"
  unsigned log_n = 0;
  double value = 0;    // ms, or GB/s for H2D
  std::string unit;    // "ms" or "GB/s"
  double sppark = -1;  // the anchor (same unit), -1: none
  std::string check;   // "PASS (...)" or "FAIL (...)"
};
using Summary = std::vector<SummaryRow>;

// Uniform random field elements, generated in parallel from per-chunk seeds.
template <class F>
void FillRandom(std::span<F> out, uint64_t seed) {
  util::ParallelForChunks(out.size(), 0, [&](size_t b, size_t e, size_t c) {
    std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + c);
    for (size_t i = b; i < e; ++i) out[i] = F::Random(rng);
  });
}

// Index of the first difference, or -1.
template <class F>
long long FirstMismatch(std::span<const F> a, std::span<const F> b) {
  if (a.size() != b.size()) return 0;
  std::vector<long long> first(64, -1);
  util::ParallelForChunks(a.size(), 0, [&](size_t lo, size_t hi, size_t c) {
    for (size_t i = lo; i < hi; ++i) {
      if (a[i] != b[i]) {
        first[c % 64] = (long long)i;
        return;
      }
    }
  });
  long long best = -1;
  for (long long f : first) {
    if (f >= 0 && (best < 0 || f < best)) best = f;
  }
  return best;
}

}  // namespace cuzk::gpubench
