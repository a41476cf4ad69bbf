#pragma once
// The iden3 "binfile" container shared by circom's .r1cs and snarkjs's .wtns,
// .zkey and .ptau files (@iden3/binfileutils):
//
//   magic[4] ("r1cs", "wtns", "zkey")  version:u32  n_sections:u32
//   n_sections times:  type:u32  size:u64  data[size]
//
// all integers little-endian. Sections are found by type, in any order; a
// type may only appear once where a reader asks for it (snarkjs's
// startReadUniqueSection). Nothing here allocates from a length read from the
// file: a section is a view into the input, checked against its end first.
//
//   util::MappedFile file = MapInputFile(path);  // throws FormatError if unreadable
//   BinFile bin(file.bytes(), path, "zkey", 1);  // checks magic, version, table
//   ByteReader header = bin.Reader(2, "groth16 header");
//   uint32_t n8q = header.U32("n8q");
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/circuits/snarkjs/format_error.hpp"
#include "engine/util/mapped_file.hpp"

namespace cuzk::snarkjs {

// Maps a whole input file read-only (util::MappedFile); throws FormatError
// ("PATH: cannot open: <reason>") if it cannot.
util::MappedFile MapInputFile(const std::string& path);

// Sequential little-endian reads within one section; every read is checked
// against the end and names `what` on failure.
class ByteReader {
 public:
  ByteReader(std::span<const uint8_t> data, std::string context) : data_(data), context_(std::move(context)) {}

  uint32_t U32(std::string_view what);
  uint64_t U64(std::string_view what);
  // n bytes; throws (naming `what` and the shortfall) if fewer remain.
  std::span<const uint8_t> Bytes(size_t n, std::string_view what);
  // Checks that the section was consumed exactly (snarkjs's endReadSection).
  void ExpectEnd() const;

  size_t position() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  const std::string& context() const { return context_; }

 private:
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  std::string context_;
};

class BinFile {
 public:
  // name: used in every error message (usually the path).
  BinFile(std::span<const uint8_t> bytes, std::string name, std::string_view magic, uint32_t max_version);

  uint32_t version() const { return version_; }
  const std::string& name() const { return name_; }
  bool Has(uint32_t type) const;
  // The data of the one section of this type; throws if it is missing or duplicated.
  std::span<const uint8_t> Section(uint32_t type, std::string_view what) const;
  ByteReader Reader(uint32_t type, std::string_view what) const;

 private:
  struct Entry {
    uint32_t type;
    std::span<const uint8_t> data;
  };
  std::string name_;
  uint32_t version_ = 0;
  std::vector<Entry> sections_;
};

// Helpers for the writers (tests build corrupt files with them too).
void AppendU32(std::vector<uint8_t>& out, uint32_t v);
void AppendU64(std::vector<uint8_t>& out, uint64_t v);
// Starts a binfile: magic, version, section count.
std::vector<uint8_t> BeginBinFile(std::string_view magic, uint32_t version, uint32_t n_sections);
// Appends type, size and data of one section.
void AppendSection(std::vector<uint8_t>& out, uint32_t type, std::span<const uint8_t> data);

// Writes bytes to path (throws std::runtime_error with the path and errno text).
void WriteFileBytes(const std::string& path, std::span<const uint8_t> bytes);
void WriteFileText(const std::string& path, std::string_view text);
// Reads a whole (small) text file; throws FormatError naming the path.
std::string ReadFileText(const std::string& path);

}  // namespace cuzk::snarkjs
