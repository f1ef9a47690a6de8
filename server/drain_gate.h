// Counts the calls in progress so that shutdown can wait for exactly those.
//
// gRPC's Server::Shutdown(deadline) also waits for idle client connections
// to close, which clients holding a channel open never do, so a drain with
// nothing in flight would still take the whole deadline. Instead satord
// closes this gate (new calls get UNAVAILABLE, which clients retry
// elsewhere), waits until the calls already admitted finish, and only then
// shuts gRPC down with an immediate deadline.
//
// The gate also applies the admission limits (overload_limiter.h): Enter,
// for a unary call, checks how long the call waited in gRPC's queue, takes a
// slot of the limiter and the bytes of the call's messages, and is refused
// with RESOURCE_EXHAUSTED past any limit; EnterStream, for a Session stream
// (limited by --max_sessions instead), and EnterExempt, for Ping, do not.
#ifndef SATOR_SERVER_DRAIN_GATE_H_
#define SATOR_SERVER_DRAIN_GATE_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "google/protobuf/message.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/server_callback.h"
#include "server/overload/overload_limiter.h"

namespace sator::server {

class DrainGate {
 public:
  // Admits one call; the returned Pass releases it when destroyed (or on
  // Release). A pass that is not `admitted()` carries the status to return
  // to the caller (`refusal()`): UNAVAILABLE while draining,
  // RESOURCE_EXHAUSTED at the in-flight limit.
  class Pass {
   public:
    Pass() = default;
    ~Pass() { Release(); }
    Pass(Pass&& other) noexcept
        : gate_(other.gate_),
          limited_(other.limited_),
          bytes_(other.bytes_),
          overloaded_(other.overloaded_),
          reason_(other.reason_),
          pushback_(other.pushback_),
          limiter_(other.limiter_) {
      other.gate_ = nullptr;
      other.limited_ = false;
      other.bytes_ = 0;
    }
    Pass& operator=(Pass&& other) noexcept;
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;

    bool admitted() const { return gate_ != nullptr; }
    // Refused at the in-flight limit (not draining).
    bool overloaded() const { return overloaded_; }
    // Why the pass was refused (OK when admitted).
    absl::Status refusal() const;
    // The retry hint of an overloaded refusal: the limiter's Pushback() when
    // it refused, the number refusal() names too.
    absl::Duration retry_after() const { return pushback_; }
    void Release();
    // Gives back the in-flight slot of the limiter once the call's work is
    // done and its response is handed to gRPC, while the drain still counts
    // the call until gRPC is done with it. Holding the slot until then made a
    // closed-loop client see refusals when gRPC's completion threads ran
    // late under CPU load (the next call arrived before OnDone of the last).
    void LeaveLimiter();

   private:
    friend class DrainGate;
    explicit Pass(DrainGate* gate, bool limited)
        : gate_(gate), limited_(limited) {}
    DrainGate* gate_ = nullptr;
    // Holds a slot of the gate's limiter.
    bool limited_ = false;
    // Bytes taken from the limiter's budget, given back on Release.
    std::int64_t bytes_ = 0;
    // When refused: by the limiter (else by the drain), which outlives every
    // pass and words the refusal, and why.
    bool overloaded_ = false;
    ShedReason reason_ = ShedReason::kInflightRequests;
    absl::Duration pushback_ = absl::ZeroDuration();
    const OverloadLimiter* limiter_ = nullptr;
  };

  // Sets the limiter Enter applies (before serving; it must outlive the
  // gate's passes). Without one, only the drain refuses.
  void set_overload_limiter(OverloadLimiter* limiter) { limiter_ = limiter; }

  // For a unary call: subject to the drain and to the admission limits.
  // `request` is the call's parsed request; its arena (or, off an arena, its
  // serialized size) counts against --max_admitted_bytes.
  Pass Enter(const grpc::CallbackServerContext& context,
             const google::protobuf::Message& request);
  // The in-flight limit only (no queue wait, no bytes).
  Pass Enter();
  // For a stream, and for Ping: subject to the drain only.
  Pass EnterStream();
  Pass EnterExempt() { return EnterStream(); }
  static absl::Status DrainingStatus();

  // Closes the gate: every later Enter is refused. Then runs the close
  // listeners, on this thread, with no lock held.
  void Close();
  // Runs `listener` when the gate closes (at once if it is already closed).
  // For calls that would otherwise wait for their client, such as open
  // Session streams, to end themselves promptly during a drain.
  void OnClose(std::function<void()> listener);
  bool closed() const;
  // Waits until every admitted call has left, or `deadline`. Returns whether
  // the gate emptied in time.
  bool WaitUntilEmpty(absl::Time deadline);

  std::int64_t in_flight() const;

 private:
  Pass Admit(bool limited);
  Pass Counted(Pass pass);
  void Leave(bool limited, std::int64_t bytes);

  OverloadLimiter* limiter_ = nullptr;
  // std::mutex rather than absl::Mutex: Debian's Abseil is a shared library
  // built without ThreadSanitizer, which then cannot see its locking.
  mutable std::mutex mutex_;
  std::condition_variable emptied_;
  bool closed_ = false;                                 // Guarded by mutex_.
  std::vector<std::function<void()>> close_listeners_;  // Guarded by mutex_.
  std::int64_t in_flight_ = 0;                          // Guarded by mutex_.
};

// A unary reactor that holds the call's pass until gRPC is done with the call
// (the response sent, or the call cancelled), so a drain waits for the
// response to leave and not only for the handler to return.
class GatedUnaryReactor final : public grpc::ServerUnaryReactor {
 public:
  explicit GatedUnaryReactor(DrainGate::Pass pass) : pass_(std::move(pass)) {}
  void OnDone() override { delete this; }

 private:
  DrainGate::Pass pass_;
};

// Finishes an admitted unary call with `status` (mapped to gRPC's once,
// here: every unary handler ends through this or FinishRefused) through a
// GatedUnaryReactor that keeps `pass` until the call is done. A
// RESOURCE_EXHAUSTED here is a hard limit (a batch, a shape or a setting
// over its flag) that the same call can never pass: it carries
// `grpc-retry-pushback-ms: -1`, which tells gRPC's retry policy not to
// retry it (gRFC A6).
grpc::ServerUnaryReactor* FinishGated(grpc::CallbackServerContext* context,
                                      DrainGate::Pass pass,
                                      const absl::Status& status);

// Finishes a unary call whose pass was refused with the pass's refusal, and
// the pushback trailers when the refusal is load shedding.
grpc::ServerUnaryReactor* FinishRefused(grpc::CallbackServerContext* context,
                                        const DrainGate::Pass& pass);

}  // namespace sator::server

#endif  // SATOR_SERVER_DRAIN_GATE_H_
