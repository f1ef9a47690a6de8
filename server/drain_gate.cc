// The drain gate; see drain_gate.h.
#include "server/drain_gate.h"

#include "server/status_mapping.h"

namespace sator::server {

DrainGate::Pass& DrainGate::Pass::operator=(Pass&& other) noexcept {
  if (this != &other) {
    Release();
    gate_ = other.gate_;
    limited_ = other.limited_;
    overloaded_ = other.overloaded_;
    limiter_ = other.limiter_;
    other.gate_ = nullptr;
    other.limited_ = false;
  }
  return *this;
}

absl::Status DrainGate::Pass::refusal() const {
  if (admitted()) return absl::OkStatus();
  if (overloaded_ && limiter_ != nullptr) return limiter_->InflightStatus();
  return DrainingStatus();
}

void DrainGate::Pass::Release() {
  if (gate_ != nullptr) {
    gate_->Leave(limited_);
    gate_ = nullptr;
    limited_ = false;
  }
}

void DrainGate::Pass::LeaveLimiter() {
  if (gate_ != nullptr && limited_) {
    gate_->limiter_->Leave();
    limited_ = false;
  }
}

DrainGate::Pass DrainGate::Enter() { return Admit(limiter_ != nullptr); }

DrainGate::Pass DrainGate::EnterStream() { return Admit(false); }

DrainGate::Pass DrainGate::Admit(bool limited) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) return Pass();
    if (!limited) {
      ++in_flight_;
      return Pass(this, false);
    }
  }
  // The limiter is lock-free; taking its slot outside the gate's mutex keeps
  // the refusal path cheap. A drain that begins meanwhile still waits for
  // this call, which is counted below before it does any work.
  if (!limiter_->TryEnter()) {
    Pass refused;
    refused.overloaded_ = true;
    refused.limiter_ = limiter_;
    return refused;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) {
    limiter_->Leave();
    return Pass();
  }
  ++in_flight_;
  return Pass(this, true);
}

absl::Status DrainGate::DrainingStatus() {
  return absl::UnavailableError("satord is shutting down; retry elsewhere");
}

void DrainGate::Close() {
  std::vector<std::function<void()>> listeners;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    listeners.swap(close_listeners_);
  }
  for (const std::function<void()>& listener : listeners) listener();
}

void DrainGate::OnClose(std::function<void()> listener) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!closed_) {
      close_listeners_.push_back(std::move(listener));
      return;
    }
  }
  listener();
}

bool DrainGate::closed() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return closed_;
}

bool DrainGate::WaitUntilEmpty(absl::Time deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  return emptied_.wait_until(lock, absl::ToChronoTime(deadline),
                             [this] { return in_flight_ == 0; });
}

std::int64_t DrainGate::in_flight() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return in_flight_;
}

void DrainGate::Leave(bool limited) {
  if (limited) limiter_->Leave();
  const std::lock_guard<std::mutex> lock(mutex_);
  if (--in_flight_ == 0) emptied_.notify_all();
}

grpc::ServerUnaryReactor* FinishGated(DrainGate::Pass pass,
                                      const grpc::Status& status) {
  pass.LeaveLimiter();
  auto* reactor = new GatedUnaryReactor(std::move(pass));
  reactor->Finish(status);
  return reactor;
}

grpc::ServerUnaryReactor* FinishRefused(grpc::CallbackServerContext* context,
                                        const DrainGate::Pass& pass) {
  if (pass.overloaded()) AddRetryAfter(*context, pass.retry_after());
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(pass.refusal()));
  return reactor;
}

}  // namespace sator::server
