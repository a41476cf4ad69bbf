#include "engine/circuits/snarkjs/bin_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

namespace cuzk::snarkjs {

util::MappedFile MapInputFile(const std::string& path) {
  try {
    return util::MappedFile(path);
  } catch (const std::system_error& e) {
    throw FormatError(e.what());
  }
}

namespace {

uint32_t LoadU32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

uint64_t LoadU64(const uint8_t* p) { return uint64_t(LoadU32(p)) | uint64_t(LoadU32(p + 4)) << 32; }

}  // namespace

uint32_t ByteReader::U32(std::string_view what) { return LoadU32(Bytes(4, what).data()); }

uint64_t ByteReader::U64(std::string_view what) { return LoadU64(Bytes(8, what).data()); }

std::span<const uint8_t> ByteReader::Bytes(size_t n, std::string_view what) {
  if (n > remaining()) {
    std::ostringstream msg;
    msg << context_ << ": truncated while reading " << what << " (needs " << n << " bytes at offset " << pos_
        << ", only " << remaining() << " left)";
    throw FormatError(msg.str());
  }
  auto s = data_.subspan(pos_, n);
  pos_ += n;
  return s;
}

void ByteReader::ExpectEnd() const {
  if (remaining() != 0) {
    std::ostringstream msg;
    msg << context_ << ": " << remaining() << " unexpected trailing bytes (section is " << data_.size()
        << " bytes, its contents end at " << pos_ << ")";
    throw FormatError(msg.str());
  }
}

BinFile::BinFile(std::span<const uint8_t> bytes, std::string name, std::string_view magic, uint32_t max_version)
    : name_(std::move(name)) {
  ByteReader r(bytes, name_);
  if (bytes.size() < 12) {
    throw FormatError(name_ + ": not a " + std::string(magic) + " file (" + std::to_string(bytes.size()) +
                      " bytes, shorter than the 12-byte header)");
  }
  auto m = r.Bytes(4, "magic");
  if (std::string_view(reinterpret_cast<const char*>(m.data()), 4) != magic) {
    std::string got;
    for (uint8_t c : m) got += (c >= 32 && c < 127) ? char(c) : '?';
    throw FormatError(name_ + ": not a " + std::string(magic) + " file (magic \"" + got + "\", expected \"" +
                      std::string(magic) + "\")");
  }
  version_ = r.U32("version");
  if (version_ == 0 || version_ > max_version) {
    throw FormatError(name_ + ": " + std::string(magic) + " version " + std::to_string(version_) +
                      " is not supported (1.." + std::to_string(max_version) + ")");
  }
  uint32_t n_sections = r.U32("section count");
  // Each section header takes 12 bytes: a count the file cannot hold is corrupt
  // (and must not size an allocation).
  if (uint64_t(n_sections) * 12 > r.remaining()) {
    throw FormatError(name_ + ": header claims " + std::to_string(n_sections) + " sections but only " +
                      std::to_string(r.remaining()) + " bytes follow");
  }
  sections_.reserve(n_sections);
  for (uint32_t i = 0; i < n_sections; ++i) {
    std::string what = "header of section #" + std::to_string(i);
    uint32_t type = r.U32(what);
    uint64_t size = r.U64(what);
    if (size > r.remaining()) {
      throw FormatError(name_ + ": section #" + std::to_string(i) + " (type " + std::to_string(type) + ") claims " +
                        std::to_string(size) + " bytes but only " + std::to_string(r.remaining()) +
                        " remain in the file (truncated?)");
    }
    sections_.push_back({type, r.Bytes(size_t(size), what)});
  }
  if (r.remaining() != 0) {
    throw FormatError(name_ + ": " + std::to_string(r.remaining()) + " trailing bytes after the last section");
  }
}

bool BinFile::Has(uint32_t type) const {
  for (const auto& e : sections_) {
    if (e.type == type) return true;
  }
  return false;
}

std::span<const uint8_t> BinFile::Section(uint32_t type, std::string_view what) const {
  const Entry* found = nullptr;
  for (const auto& e : sections_) {
    if (e.type != type) continue;
    if (found) {
      throw FormatError(name_ + ": section " + std::to_string(type) + " (" + std::string(what) + ") is duplicated");
    }
    found = &e;
  }
  if (!found) throw FormatError(name_ + ": missing section " + std::to_string(type) + " (" + std::string(what) + ")");
  return found->data;
}

ByteReader BinFile::Reader(uint32_t type, std::string_view what) const {
  return ByteReader(Section(type, what), name_ + ": section " + std::to_string(type) + " (" + std::string(what) + ")");
}

void AppendU32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

void AppendU64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

std::vector<uint8_t> BeginBinFile(std::string_view magic, uint32_t version, uint32_t n_sections) {
  std::vector<uint8_t> out(magic.begin(), magic.end());
  AppendU32(out, version);
  AppendU32(out, n_sections);
  return out;
}

void AppendSection(std::vector<uint8_t>& out, uint32_t type, std::span<const uint8_t> data) {
  AppendU32(out, type);
  AppendU64(out, data.size());
  out.insert(out.end(), data.begin(), data.end());
}

void WriteFileBytes(const std::string& path, std::span<const uint8_t> bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw std::runtime_error(path + ": cannot create: " + std::strerror(errno));
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  f.close();
  if (!f) throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
}

void WriteFileText(const std::string& path, std::string_view text) {
  WriteFileBytes(path, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
}

std::string ReadFileText(const std::string& path) {
  util::MappedFile file = MapInputFile(path);
  auto b = file.bytes();
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

}  // namespace cuzk::snarkjs
