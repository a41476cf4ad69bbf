#pragma once
// 32-bit add/multiply-add instructions that pass a carry flag along a chain,
// the building blocks of multi-precision arithmetic on NVIDIA GPUs.
//
// On the device each function is one PTX instruction (add.cc, madc.hi.cc, ...)
// and the carry lives in the condition-code register (CC.CF) between calls, so
// a chain must be a straight sequence of these calls with no other carry user
// in between (plain C integer code does not touch CC). The statements are
// `asm volatile` so that NVVM keeps their order; ptxas schedules the SASS.
//
// On the host the same functions emulate the instructions with a thread-local
// flag. That makes the device field code run (slowly) on any CPU, which is how
// tests check the arithmetic on machines without a GPU.
//
// Naming follows PTX: Cc = sets the carry (".cc"), c prefix = consumes it
// ("addc", "madc"). Sub* carry is the borrow (PTX: subc d = a - (b + CF)).
#include <cstdint>

#include "cuda/ff/host_device.hpp"

namespace cuzk::cuda::ptx {

#if !CUZK_DEVICE_PASS
namespace internal {
inline thread_local uint32_t host_carry = 0;
}  // namespace internal
#endif

// add.cc: a + b, carry out.
CUZK_HD uint32_t AddCc(uint32_t a, uint32_t b) {
#if CUZK_DEVICE_PASS
  uint32_t d;
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
#else
  uint64_t s = uint64_t(a) + b;
  internal::host_carry = uint32_t(s >> 32);
  return uint32_t(s);
#endif
}

// addc.cc: a + b + CF, carry out.
CUZK_HD uint32_t AddcCc(uint32_t a, uint32_t b) {
#if CUZK_DEVICE_PASS
  uint32_t d;
  asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
#else
  uint64_t s = uint64_t(a) + b + internal::host_carry;
  internal::host_carry = uint32_t(s >> 32);
  return uint32_t(s);
#endif
}

// addc: a + b + CF (ends a chain).
CUZK_HD uint32_t Addc(uint32_t a, uint32_t b) {
#if CUZK_DEVICE_PASS
  uint32_t d;
  asm volatile("addc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
#else
  return uint32_t(uint64_t(a) + b + internal::host_carry);
#endif
}

// sub.cc: a - b, borrow out.
CUZK_HD uint32_t SubCc(uint32_t a, uint32_t b) {
#if CUZK_DEVICE_PASS
  uint32_t d;
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
#else
  uint64_t s = uint64_t(a) - b;
  internal::host_carry = uint32_t(s >> 63);
  return uint32_t(s);
#endif
}

// subc.cc: a - (b + CF), borrow out.
CUZK_HD uint32_t SubcCc(uint32_t a, uint32_t b) {
#if CUZK_DEVICE_PASS
  uint32_t d;
  asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
#else
  uint64_t s = uint64_t(a) - b - internal::host_carry;
  internal::host_carry = uint32_t(s >> 63);
  return uint32_t(s);
#endif
}

// subc: a - (b + CF) (ends a chain). Subc(0, 0) turns the borrow into a mask.
CUZK_HD uint32_t Subc(uint32_t a, uint32_t b) {
#if CUZK_DEVICE_PASS
  uint32_t d;
  asm volatile("subc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
#else
  return uint32_t(uint64_t(a) - b - internal::host_carry);
#endif
}

// mad.lo.cc: lo(a * b) + c, carry out.
CUZK_HD uint32_t MadLoCc(uint32_t a, uint32_t b, uint32_t c) {
#if CUZK_DEVICE_PASS
  uint32_t d;
  asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  uint64_t s = uint64_t(uint32_t(uint64_t(a) * b)) + c;
  internal::host_carry = uint32_t(s >> 32);
  return uint32_t(s);
#endif
}

// madc.lo.cc: lo(a * b) + c + CF, carry out.
CUZK_HD uint32_t MadcLoCc(uint32_t a, uint32_t b, uint32_t c) {
#if CUZK_DEVICE_PASS
  uint32_t d;
  asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  uint64_t s = uint64_t(uint32_t(uint64_t(a) * b)) + c + internal::host_carry;
  internal::host_carry = uint32_t(s >> 32);
  return uint32_t(s);
#endif
}

// mad.hi.cc: hi(a * b) + c, carry out.
CUZK_HD uint32_t MadHiCc(uint32_t a, uint32_t b, uint32_t c) {
#if CUZK_DEVICE_PASS
  uint32_t d;
  asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  uint64_t s = ((uint64_t(a) * b) >> 32) + c;
  internal::host_carry = uint32_t(s >> 32);
  return uint32_t(s);
#endif
}

// madc.hi.cc: hi(a * b) + c + CF, carry out.
CUZK_HD uint32_t MadcHiCc(uint32_t a, uint32_t b, uint32_t c) {
#if CUZK_DEVICE_PASS
  uint32_t d;
  asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  uint64_t s = ((uint64_t(a) * b) >> 32) + c + internal::host_carry;
  internal::host_carry = uint32_t(s >> 32);
  return uint32_t(s);
#endif
}

// mul.hi: hi(a * b), no carry involved.
CUZK_HD uint32_t MulHi(uint32_t a, uint32_t b) {
#if CUZK_DEVICE_PASS
  return __umulhi(a, b);
#else
  return uint32_t((uint64_t(a) * b) >> 32);
#endif
}

// madc.hi: hi(a * b) + c + CF (ends a chain).
CUZK_HD uint32_t MadcHi(uint32_t a, uint32_t b, uint32_t c) {
#if CUZK_DEVICE_PASS
  uint32_t d;
  asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  return uint32_t(((uint64_t(a) * b) >> 32) + c + internal::host_carry);
#endif
}

}  // namespace cuzk::cuda::ptx
