// ThreadSanitizer's view of absl::Mutex, absl::CondVar and absl::Notification
// for builds against Debian's abseil (scripts/sanitize.sh tsan).
//
// Debian's libabsl_synchronization is not built with TSan, so the
// happens-before edges of a lock and unlock are invisible to it: every
// access guarded by an absl::Mutex would be reported as a race. This file is
// linked into each executable of the TSan build with -Wl,--wrap=<symbol> for
// the functions below: our objects' calls go to __wrap_X, which calls the
// real one (__real_X) and tells TSan what it did (__tsan_release on the
// mutex's address before it is given up, __tsan_acquire after it is taken).
// That is all TSan needs to order the critical sections; lock-order
// (deadlock) reports are not available this way. Only calls from our own
// objects are wrapped: abseil's own internals and gRPC's are not ours to check.
//
// A Condition (LockWhen, Await) is evaluated by abseil with the mutex held,
// but inside the real call: on the waiting thread before its __real_ call
// returns, or on another thread inside that thread's Unlock (abseil checks
// the waiters' conditions when it hands the mutex on). Either way it runs
// before our __tsan_acquire, so its reads of the guarded state would be
// reported against the last writer. The wrappers therefore pass abseil a
// Condition of their own that acquires the mutex for TSan and then evaluates
// the caller's (ShimCondition below).
//
// CUZK_ABSL_NS is abseil's inline namespace as it appears in mangled names
// ("7debian3" for absl::debian3, "12lts_20220623" for absl::lts_20220623);
// scripts/sanitize.sh reads it from the library's symbols.
#include <absl/synchronization/mutex.h>
#include <absl/synchronization/notification.h>
#include <absl/time/time.h>

extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);

#define CUZK_CAT3(a, b, c) a##b##c
#define CUZK_WRAP_(ns, rest) CUZK_CAT3(__wrap__ZN4absl, ns, rest)
#define CUZK_REAL_(ns, rest) CUZK_CAT3(__real__ZN4absl, ns, rest)
#define CUZK_WRAP(rest) CUZK_WRAP_(CUZK_ABSL_NS, rest)
#define CUZK_REAL(rest) CUZK_REAL_(CUZK_ABSL_NS, rest)
#define CUZK_WRAP_K_(ns, rest) CUZK_CAT3(__wrap__ZNK4absl, ns, rest)
#define CUZK_REAL_K_(ns, rest) CUZK_CAT3(__real__ZNK4absl, ns, rest)
#define CUZK_WRAP_K(rest) CUZK_WRAP_K_(CUZK_ABSL_NS, rest)
#define CUZK_REAL_K(rest) CUZK_REAL_K_(CUZK_ABSL_NS, rest)

using absl::Condition;
using absl::CondVar;
using absl::Duration;
using absl::Mutex;
using absl::Notification;
using absl::Time;

namespace {

// The caller's Condition, evaluated between an acquire and a release of the
// mutex for TSan (abseil only evaluates a Condition with the mutex held). The
// release matters when another thread evaluates it inside its Unlock: that
// thread's wrapper has already released, so without it the reads of the
// evaluation would not happen before the waiter's next writes. Lives on the
// waiting thread's stack for the whole call, as abseil requires of a Condition.
struct ShimCondition {
  const Condition* cond;
  Mutex* mu;
  static bool Eval(void* arg) {
    auto* self = static_cast<ShimCondition*>(arg);
    __tsan_acquire(self->mu);
    const bool r = self->cond->Eval();
    __tsan_release(self->mu);
    return r;
  }
};

}  // namespace

extern "C" {

// ---- Mutex: take ----
void CUZK_REAL(5Mutex4LockEv)(Mutex* mu);
void CUZK_WRAP(5Mutex4LockEv)(Mutex* mu) {
  CUZK_REAL(5Mutex4LockEv)(mu);
  __tsan_acquire(mu);
}
void CUZK_REAL(5Mutex10ReaderLockEv)(Mutex* mu);
void CUZK_WRAP(5Mutex10ReaderLockEv)(Mutex* mu) {
  CUZK_REAL(5Mutex10ReaderLockEv)(mu);
  __tsan_acquire(mu);
}
bool CUZK_REAL(5Mutex7TryLockEv)(Mutex* mu);
bool CUZK_WRAP(5Mutex7TryLockEv)(Mutex* mu) {
  const bool taken = CUZK_REAL(5Mutex7TryLockEv)(mu);
  if (taken) __tsan_acquire(mu);
  return taken;
}
void CUZK_REAL(5Mutex8LockWhenERKNS0_9ConditionE)(Mutex* mu, const Condition& c);
void CUZK_WRAP(5Mutex8LockWhenERKNS0_9ConditionE)(Mutex* mu, const Condition& c) {
  ShimCondition sc{&c, mu};
  CUZK_REAL(5Mutex8LockWhenERKNS0_9ConditionE)(mu, Condition(&ShimCondition::Eval, &sc));
  __tsan_acquire(mu);
}
bool CUZK_REAL(5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE)(Mutex* mu, const Condition& c, Time t);
bool CUZK_WRAP(5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE)(Mutex* mu, const Condition& c, Time t) {
  ShimCondition sc{&c, mu};
  const bool r =
      CUZK_REAL(5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE)(mu, Condition(&ShimCondition::Eval, &sc), t);
  __tsan_acquire(mu);  // held on return either way
  return r;
}

// ---- Mutex: give up ----
void CUZK_REAL(5Mutex6UnlockEv)(Mutex* mu);
void CUZK_WRAP(5Mutex6UnlockEv)(Mutex* mu) {
  __tsan_release(mu);
  CUZK_REAL(5Mutex6UnlockEv)(mu);
}
void CUZK_REAL(5Mutex12ReaderUnlockEv)(Mutex* mu);
void CUZK_WRAP(5Mutex12ReaderUnlockEv)(Mutex* mu) {
  __tsan_release(mu);
  CUZK_REAL(5Mutex12ReaderUnlockEv)(mu);
}

// ---- waits that give the mutex up and take it back ----
void CUZK_REAL(5Mutex5AwaitERKNS0_9ConditionE)(Mutex* mu, const Condition& c);
void CUZK_WRAP(5Mutex5AwaitERKNS0_9ConditionE)(Mutex* mu, const Condition& c) {
  ShimCondition sc{&c, mu};
  __tsan_release(mu);
  CUZK_REAL(5Mutex5AwaitERKNS0_9ConditionE)(mu, Condition(&ShimCondition::Eval, &sc));
  __tsan_acquire(mu);
}
bool CUZK_REAL(5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE)(Mutex* mu, const Condition& c, Time t);
bool CUZK_WRAP(5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE)(Mutex* mu, const Condition& c, Time t) {
  ShimCondition sc{&c, mu};
  __tsan_release(mu);
  const bool r =
      CUZK_REAL(5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE)(mu, Condition(&ShimCondition::Eval, &sc), t);
  __tsan_acquire(mu);
  return r;
}
bool CUZK_REAL(5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE)(Mutex* mu, const Condition& c, Duration d);
bool CUZK_WRAP(5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE)(Mutex* mu, const Condition& c, Duration d) {
  ShimCondition sc{&c, mu};
  __tsan_release(mu);
  const bool r =
      CUZK_REAL(5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE)(mu, Condition(&ShimCondition::Eval, &sc), d);
  __tsan_acquire(mu);
  return r;
}
void CUZK_REAL(7CondVar4WaitEPNS0_5MutexE)(CondVar* cv, Mutex* mu);
void CUZK_WRAP(7CondVar4WaitEPNS0_5MutexE)(CondVar* cv, Mutex* mu) {
  __tsan_release(mu);
  CUZK_REAL(7CondVar4WaitEPNS0_5MutexE)(cv, mu);
  __tsan_acquire(mu);
}
bool CUZK_REAL(7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE)(CondVar* cv, Mutex* mu, Time t);
bool CUZK_WRAP(7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE)(CondVar* cv, Mutex* mu, Time t) {
  __tsan_release(mu);
  const bool r = CUZK_REAL(7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE)(cv, mu, t);
  __tsan_acquire(mu);
  return r;
}
bool CUZK_REAL(7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE)(CondVar* cv, Mutex* mu, Duration d);
bool CUZK_WRAP(7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE)(CondVar* cv, Mutex* mu, Duration d) {
  __tsan_release(mu);
  const bool r = CUZK_REAL(7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE)(cv, mu, d);
  __tsan_acquire(mu);
  return r;
}

// ---- Notification: Notify happens before the waits that see it ----
void CUZK_REAL(12Notification6NotifyEv)(Notification* n);
void CUZK_WRAP(12Notification6NotifyEv)(Notification* n) {
  __tsan_release(n);
  CUZK_REAL(12Notification6NotifyEv)(n);
}
void CUZK_REAL_K(12Notification19WaitForNotificationEv)(const Notification* n);
void CUZK_WRAP_K(12Notification19WaitForNotificationEv)(const Notification* n) {
  CUZK_REAL_K(12Notification19WaitForNotificationEv)(n);
  __tsan_acquire(const_cast<Notification*>(n));
}
bool CUZK_REAL_K(12Notification30WaitForNotificationWithTimeoutENS0_8DurationE)(const Notification* n, Duration d);
bool CUZK_WRAP_K(12Notification30WaitForNotificationWithTimeoutENS0_8DurationE)(const Notification* n, Duration d) {
  const bool r = CUZK_REAL_K(12Notification30WaitForNotificationWithTimeoutENS0_8DurationE)(n, d);
  if (r) __tsan_acquire(const_cast<Notification*>(n));
  return r;
}

}  // extern "C"
