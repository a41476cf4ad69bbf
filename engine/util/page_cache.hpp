#pragma once
// Whether a file's bytes are in the page cache, without reading them: a load
// that can choose between two forms of the same data (a key image's H
// section, or its compressed copy that the GPU decompresses) reads the one
// that costs less now. mincore(2) over a read-only mapping of the range:
// nothing is faulted in; ~1 ms per 10 GB of range (one byte per 4 KiB page).
#include <cstdint>
#include <string>

namespace cuzk::util {

// The share (0..1) of the pages of bytes [offset, offset + bytes) of `path`
// that are in the page cache now; 0 when it cannot be told (no such file,
// an empty range, a failed mapping).
double ResidentShare(const std::string& path, uint64_t offset, uint64_t bytes);

}  // namespace cuzk::util
