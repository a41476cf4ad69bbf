#include "engine/groth16/params_io.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <functional>
#include <system_error>

#include "engine/ec/encoding.hpp"
#include "engine/util/mapped_file.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::groth16 {

namespace {

std::string N(uint64_t v) { return std::to_string(v); }

std::string Describe(const std::string& file, const std::string& section, std::optional<uint64_t> index,
                     const std::string& what) {
  std::string s = file + ": ";
  if (!section.empty()) s += "section " + section + ": ";
  if (index) s += "point " + N(*index) + ": ";
  return s + what;
}

}  // namespace

ParamsError::ParamsError(const std::string& file, const std::string& section, std::optional<uint64_t> index,
                         const std::string& what)
    : std::runtime_error(Describe(file, section, index, what)), section_(section), index_(index) {}

ParamsShape ParamsShape::ForCircuit(const r1cs::CompiledCircuit& c) {
  const uint64_t m = std::bit_ceil(std::max<uint64_t>(c.num_prover_rows(), 1));
  return {.ic = c.num_inputs, .h = m - 1, .l = c.num_aux, .a = c.a_density.Count(), .b = c.b_density.Count()};
}

ParamsShape ParamsShape::Of(const ProvingKey& pk) {
  return {.ic = pk.vk.ic.size(), .h = pk.h.size(), .l = pk.l.size(), .a = pk.a.size(), .b = pk.b_g1.size()};
}

uint64_t ParamsShape::FileBytes() const {
  return kVerifyingKeyFixedBytes + 4 + 96 * ic + 5 * 4 + 96 * (h + l + a + b) + 192 * b;
}

// ---- writing -----------------------------------------------------------------

namespace {

using Sink = std::function<void(std::span<const uint8_t>)>;

void PutU32(const Sink& sink, uint64_t v, const char* what) {
  if (v > UINT32_MAX) throw std::invalid_argument(std::string("params: ") + what + " count exceeds 2^32 - 1");
  const uint8_t b[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
  sink(b);
}

template <size_t kSize, class Affine>
void PutPoint(const Sink& sink, const Affine& p) {
  std::array<uint8_t, kSize> buf;
  ec::EncodeUncompressed(p, std::span<uint8_t, kSize>(buf));
  sink(buf);
}

// Encodes points in chunks on `threads` threads; one sink call per chunk.
template <size_t kSize, class Affine>
void PutPoints(const Sink& sink, std::span<const Affine> pts, unsigned threads) {
  constexpr size_t kChunk = size_t(1) << 15;
  std::vector<uint8_t> buf;
  for (size_t lo = 0; lo < pts.size(); lo += kChunk) {
    const size_t n = std::min(kChunk, pts.size() - lo);
    buf.resize(n * kSize);
    util::ParallelFor(n, n < 1024 ? 1 : threads, [&](size_t i) {
      ec::EncodeUncompressed(pts[lo + i], std::span<uint8_t, kSize>(buf.data() + i * kSize, kSize));
    });
    sink(buf);
  }
}

void PutVerifyingKey(const Sink& sink, const VerifyingKey& vk, unsigned threads) {
  PutPoint<ec::kG1UncompressedBytes>(sink, vk.alpha_g1);
  PutPoint<ec::kG1UncompressedBytes>(sink, vk.beta_g1);
  PutPoint<ec::kG2UncompressedBytes>(sink, vk.beta_g2);
  PutPoint<ec::kG2UncompressedBytes>(sink, vk.gamma_g2);
  PutPoint<ec::kG1UncompressedBytes>(sink, vk.delta_g1);
  PutPoint<ec::kG2UncompressedBytes>(sink, vk.delta_g2);
  PutU32(sink, vk.ic.size(), "ic");
  PutPoints<ec::kG1UncompressedBytes, ec::G1Affine>(sink, vk.ic, threads);
}

void PutParams(const Sink& sink, const ProvingKey& pk, unsigned threads) {
  if (pk.h_form != HQueryForm::kBellperson) {
    throw std::invalid_argument("params: only bellperson-form keys have a .params layout (this key is snarkjs-form)");
  }
  if (pk.b_g1.size() != pk.b_g2.size()) throw std::invalid_argument("params: b_g1 and b_g2 differ in length");
  PutVerifyingKey(sink, pk.vk, threads);
  PutU32(sink, pk.h.size(), "h");
  PutPoints<ec::kG1UncompressedBytes, ec::G1Affine>(sink, pk.h, threads);
  PutU32(sink, pk.l.size(), "l");
  PutPoints<ec::kG1UncompressedBytes, ec::G1Affine>(sink, pk.l, threads);
  PutU32(sink, pk.a.size(), "a");
  PutPoints<ec::kG1UncompressedBytes, ec::G1Affine>(sink, pk.a, threads);
  PutU32(sink, pk.b_g1.size(), "b_g1");
  PutPoints<ec::kG1UncompressedBytes, ec::G1Affine>(sink, pk.b_g1, threads);
  PutU32(sink, pk.b_g2.size(), "b_g2");
  PutPoints<ec::kG2UncompressedBytes, ec::G2Affine>(sink, pk.b_g2, threads);
}

// Writes through a FILE*, removing the file if anything fails.
void WriteFile(const std::string& path, const std::function<void(const Sink&)>& produce) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::system_error(errno, std::generic_category(), "cannot create " + path);
  try {
    produce([&](std::span<const uint8_t> b) {
      if (std::fwrite(b.data(), 1, b.size(), f) != b.size()) {
        throw std::system_error(errno, std::generic_category(), "cannot write " + path);
      }
    });
    if (std::fflush(f) != 0) throw std::system_error(errno, std::generic_category(), "cannot write " + path);
  } catch (...) {
    std::fclose(f);
    std::remove(path.c_str());
    throw;
  }
  if (std::fclose(f) != 0) {
    std::remove(path.c_str());
    throw std::system_error(errno, std::generic_category(), "cannot close " + path);
  }
}

Sink AppendTo(std::vector<uint8_t>& out) {
  return [&out](std::span<const uint8_t> b) { out.insert(out.end(), b.begin(), b.end()); };
}

}  // namespace

std::vector<uint8_t> SerializeVerifyingKey(const VerifyingKey& vk) {
  std::vector<uint8_t> out;
  PutVerifyingKey(AppendTo(out), vk, 1);
  return out;
}

void WriteVerifyingKey(const VerifyingKey& vk, const std::string& path) {
  WriteFile(path, [&](const Sink& sink) { PutVerifyingKey(sink, vk, 1); });
}

std::vector<uint8_t> SerializeParams(const ProvingKey& pk, unsigned threads) {
  std::vector<uint8_t> out;
  out.reserve(ParamsShape::Of(pk).FileBytes());
  PutParams(AppendTo(out), pk, threads);
  return out;
}

void WriteParams(const ProvingKey& pk, const std::string& path, unsigned threads) {
  WriteFile(path, [&](const Sink& sink) { PutParams(sink, pk, threads); });
}

// ---- reading -----------------------------------------------------------------

namespace {

class Reader {
 public:
  Reader(std::span<const uint8_t> data, const std::string& name) : data_(data), name_(name) {}

  [[noreturn]] void Fail(const std::string& section, std::optional<uint64_t> index, const std::string& what) const {
    throw ParamsError(name_, section, index, what);
  }

  std::span<const uint8_t> Take(size_t n, const std::string& section, const std::string& what) {
    if (remaining() < n) {
      Fail(section, std::nullopt,
           "file truncated: " + what + " needs " + N(n) + " bytes at offset " + N(pos_) + ", only " + N(remaining()) +
               " remain (file is " + N(data_.size()) + " bytes)");
    }
    auto s = data_.subspan(pos_, n);
    pos_ += n;
    return s;
  }

  uint32_t U32(const std::string& section) {
    auto b = Take(4, section, "the point count");
    return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | uint32_t(b[3]);
  }

  // Reads a count, checks it against `expected` and against the bytes left,
  // and only then allocates and decodes.
  template <class Affine, size_t kSize, class Decode>
  util::OverwriteVector<Affine> Section(const std::string& section, std::optional<uint64_t> expected,
                                        const ec::DecodeOptions& opts, unsigned threads, Decode&& decode,
                                        const std::function<void(uint64_t)>& check_count = nullptr,
                                        const char* expected_from = "the circuit needs") {
    const uint64_t count = U32(section);
    if (expected && count != *expected) {
      Fail(section, std::nullopt, "file has " + N(count) + " points, " + expected_from + " " + N(*expected));
    }
    if (check_count) check_count(count);
    if (count > remaining() / kSize) {
      Fail(section, std::nullopt,
           "file truncated: " + N(count) + " points need " + N(count * kSize) + " bytes at offset " + N(pos_) +
               ", only " + N(remaining()) + " remain");
    }
    auto bytes = Take(size_t(count) * kSize, section, "the points");
    util::OverwriteVector<Affine> out(count);  // every point decoded into it, on `threads` threads
    ec::BatchDecodeResult r = decode(bytes, ec::PointFormat::kUncompressed, std::span<Affine>(out), opts, threads);
    if (!r.ok()) Fail(section, r.index, std::string(ec::DecodeErrorMessage(r.error)));
    return out;
  }

  template <class Result>
  auto Point(const std::string& what, Result r) {
    if (!r.ok()) Fail("vk", std::nullopt, what + ": " + std::string(ec::DecodeErrorMessage(r.error)));
    return *r.point;
  }

  size_t remaining() const { return data_.size() - pos_; }
  size_t position() const { return pos_; }

 private:
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  const std::string& name_;
};

VerifyingKey ReadVk(Reader& rd, std::optional<uint64_t> expected_ic, unsigned threads) {
  const ec::DecodeOptions strict{.check_subgroup = true, .allow_infinity = false};
  VerifyingKey vk;
  auto g1 = [&](const char* what) {
    return rd.Point(what, ec::DecodeG1Uncompressed(rd.Take(ec::kG1UncompressedBytes, "vk", what), strict));
  };
  auto g2 = [&](const char* what) {
    return rd.Point(what, ec::DecodeG2Uncompressed(rd.Take(ec::kG2UncompressedBytes, "vk", what), strict));
  };
  vk.alpha_g1 = g1("alpha_g1");
  vk.beta_g1 = g1("beta_g1");
  vk.beta_g2 = g2("beta_g2");
  vk.gamma_g2 = g2("gamma_g2");
  vk.delta_g1 = g1("delta_g1");
  vk.delta_g2 = g2("delta_g2");
  const G1Points ic = rd.Section<ec::G1Affine, ec::kG1UncompressedBytes>(
      "ic", expected_ic, strict, threads,
      [](auto&&... a) { return ec::DecodeG1Batch(std::forward<decltype(a)>(a)...); },
      [&](uint64_t n) {
        if (n == 0) rd.Fail("ic", std::nullopt, "a verifying key needs at least one IC point (for ONE)");
      });
  vk.ic.assign(ic.begin(), ic.end());
  return vk;
}

}  // namespace

VerifyingKey ParseVerifyingKey(std::span<const uint8_t> bytes, const std::string& name,
                               std::optional<uint64_t> expected_ic) {
  Reader rd(bytes, name);
  VerifyingKey vk = ReadVk(rd, expected_ic, 1);
  if (rd.remaining()) rd.Fail("", std::nullopt, N(rd.remaining()) + " unexpected bytes after the verifying key");
  return vk;
}

VerifyingKey ReadVerifyingKey(const std::string& path, std::optional<uint64_t> expected_ic) {
  util::MappedFile f(path, util::MappedFile::Access::kSequential);
  return ParseVerifyingKey(f.bytes(), path, expected_ic);
}

ProvingKey ParseParams(std::span<const uint8_t> bytes, const std::string& name, const ParamsReadOptions& o) {
  Reader rd(bytes, name);
  const auto& e = o.expected;
  ProvingKey pk;
  pk.h_form = HQueryForm::kBellperson;
  pk.vk = ReadVk(rd, e ? std::optional(e->ic) : std::nullopt, o.threads);
  const ec::DecodeOptions big{.check_subgroup = o.check_subgroup, .allow_infinity = false};
  auto g1 = [](auto&&... a) { return ec::DecodeG1Batch(std::forward<decltype(a)>(a)...); };
  auto g2 = [](auto&&... a) { return ec::DecodeG2Batch(std::forward<decltype(a)>(a)...); };
  const uint64_t ic = pk.vk.ic.size();
  pk.h = rd.Section<ec::G1Affine, ec::kG1UncompressedBytes>(
      "h", e ? std::optional(e->h) : std::nullopt, big, o.threads, g1, [&](uint64_t n) {
        if (!std::has_single_bit(n + 1)) rd.Fail("h", std::nullopt, N(n) + " points: m - 1 for no power of two m");
      });
  pk.l = rd.Section<ec::G1Affine, ec::kG1UncompressedBytes>("l", e ? std::optional(e->l) : std::nullopt, big, o.threads,
                                                            g1);
  const uint64_t vars = ic + pk.l.size();
  pk.a = rd.Section<ec::G1Affine, ec::kG1UncompressedBytes>(
      "a", e ? std::optional(e->a) : std::nullopt, big, o.threads, g1, [&](uint64_t n) {
        // Every input is A-dense (its appended row); no more than all variables.
        if (n < ic || n > vars) {
          rd.Fail("a", std::nullopt,
                  N(n) + " points, outside [" + N(ic) + ", " + N(vars) + "] (inputs, all variables)");
        }
      });
  pk.b_g1 = rd.Section<ec::G1Affine, ec::kG1UncompressedBytes>(
      "b_g1", e ? std::optional(e->b) : std::nullopt, big, o.threads, g1, [&](uint64_t n) {
        if (n > vars) rd.Fail("b_g1", std::nullopt, N(n) + " points for " + N(vars) + " variables");
      });
  pk.b_g2 = rd.Section<ec::G2Affine, ec::kG2UncompressedBytes>("b_g2", pk.b_g1.size(), big, o.threads, g2, nullptr,
                                                               "section b_g1 has");
  if (rd.remaining()) {
    rd.Fail("", std::nullopt,
            N(rd.remaining()) + " unexpected bytes after section b_g2 (at offset " + N(rd.position()) + ")");
  }
  return pk;
}

ProvingKey ReadParams(const std::string& path, const ParamsReadOptions& options) {
  util::MappedFile f(path, util::MappedFile::Access::kSequential);
  return ParseParams(f.bytes(), path, options);
}

void BindCircuit(ProvingKey& pk, const r1cs::CompiledCircuit& circuit) {
  ParamsShape want = ParamsShape::ForCircuit(circuit), have = ParamsShape::Of(pk);
  if (pk.h_form == HQueryForm::kSnarkjsOddCoset) want.h = have.h;  // any domain >= rows
  if (!(want == have)) {
    throw ParamsError("proving key", "shape", std::nullopt,
                      "counts (ic, h, l, a, b) = (" + N(have.ic) + ", " + N(have.h) + ", " + N(have.l) + ", " +
                          N(have.a) + ", " + N(have.b) + "), the circuit needs (" + N(want.ic) + ", " + N(want.h) +
                          ", " + N(want.l) + ", " + N(want.a) + ", " + N(want.b) + ")");
  }
  pk.a_density = circuit.a_density;
  pk.b_density = circuit.b_density;
}

ProvingKey ReadParamsForCircuit(const std::string& path, const r1cs::CompiledCircuit& circuit,
                                ParamsReadOptions options) {
  options.expected = ParamsShape::ForCircuit(circuit);
  ProvingKey pk = ReadParams(path, options);
  BindCircuit(pk, circuit);
  return pk;
}

}  // namespace cuzk::groth16
