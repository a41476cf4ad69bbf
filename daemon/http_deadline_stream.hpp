#pragma once
// One HTTP connection of the status endpoint as a cpp-httplib Stream with a
// deadline for the whole exchange (request read, handler, response written)
// and a ceiling on the bytes read. httplib's own SocketStream times each
// read separately, so a client that trickles one byte a second (slowloris)
// would hold a thread for as long as it likes; here it is cut off at the
// deadline, and a flood of header bytes at max_read_bytes.
//
//   DeadlineStream s(sock, steady_clock::now() + 3s, 16384);
//   server.process_request(s, /*close_connection=*/true, closed, nullptr);
#include <httplib.h>

#include <chrono>

namespace cuzk::daemon {

class DeadlineStream final : public httplib::Stream {
 public:
  DeadlineStream(int sock, std::chrono::steady_clock::time_point deadline, size_t max_read_bytes)
      : sock_(sock), deadline_(deadline), read_left_(max_read_bytes) {}

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  int socket() const override { return sock_; }

 private:
  bool WaitFor(short events) const;  // false once the deadline has passed

  const int sock_;
  const std::chrono::steady_clock::time_point deadline_;
  size_t read_left_;
};

}  // namespace cuzk::daemon
