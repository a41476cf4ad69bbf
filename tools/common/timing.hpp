#pragma once
// Clocks and summaries shared by the cuzk tools' timings. The C++ library only,
// so that cuzk-gpu-bench (bare GPU hosts, no Debian libraries) can use it too.
//
//   auto t0 = std::chrono::steady_clock::now();
//   ...
//   std::printf("prove: %.3f s (%.0f ms CPU)\n", SecondsSince(t0), ProcessCpuMs() - cpu0);
#include <algorithm>
#include <chrono>
#include <ctime>
#include <vector>

namespace cuzk::tools {

inline double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

inline double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// CPU time of the whole process (all threads), in ms: on a shared machine the
// wall clock says more about the neighbours than about the code.
inline double ProcessCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

struct Stats {
  double median = 0, min = 0, max = 0;
};

// Median (the mean of the middle two for an even count), min and max; all 0 for no samples.
inline Stats Summarize(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  s.min = v.front();
  s.max = v.back();
  return s;
}

inline double Median(std::vector<double> v) { return Summarize(std::move(v)).median; }

}  // namespace cuzk::tools
