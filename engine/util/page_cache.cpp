#include "engine/util/page_cache.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

namespace cuzk::util {

double ResidentShare(const std::string& path, uint64_t offset, uint64_t bytes) {
  if (bytes == 0) return 0;
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (page_size <= 0) return 0;
  const uint64_t page = uint64_t(page_size);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const uint64_t begin = offset / page * page, end = offset + bytes;
  const size_t length = size_t(end - begin);
  void* map = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, off_t(begin));
  ::close(fd);  // the mapping keeps the file
  if (map == MAP_FAILED) return 0;
  std::vector<unsigned char> in_core((length + page - 1) / page);
  double share = 0;
  if (::mincore(map, length, in_core.data()) == 0) {
    size_t resident = 0;
    for (unsigned char c : in_core) resident += c & 1;
    share = double(resident) / double(in_core.size());
  }
  ::munmap(map, length);
  return share;
}

}  // namespace cuzk::util
