// The closed-loop load generator (see load_client.h).
#include "bench/grpc_models/load_client.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/client_context.h"
#include "sator/v1/query_service.grpc.pb.h"

namespace sator::bench {
namespace {

using Clock = std::chrono::steady_clock;
using Stub = sator::v1::QueryService::Stub;

// What every slot (one call in flight) shares with the run.
class Run {
 public:
  Run(const LoadOptions& options, int slots)
      : options_(options),
        record_from_(Clock::now() + absl::ToChronoNanoseconds(options.warmup)),
        end_at_(record_from_ + absl::ToChronoNanoseconds(options.duration)),
        running_(slots) {}

  const LoadOptions& options() const { return options_; }
  Clock::time_point end_at() const { return end_at_; }

  // Records one correct answer to a call started at `start`, if it falls in
  // the measured window and the bound is not reached.
  void Answered(Clock::time_point start, Clock::time_point now,
                std::vector<std::int64_t>* latencies) {
    if (start < record_from_) return;
    if (options_.max_calls > 0 &&
        recorded_.fetch_add(1) >= options_.max_calls) {
      return;
    }
    latencies->push_back(
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - start)
            .count());
  }
  void Failed(const grpc::Status& status) {
    std::lock_guard lock(mutex_);
    if (errors_++ == 0) {
      first_error_ =
          absl::StrCat(status.error_code(), ": ", status.error_message());
    }
  }
  void Mismatched() { ++mismatches_; }
  // Whether a slot should start another call now.
  bool KeepGoing(Clock::time_point now) const {
    return now < end_at_ &&
           (options_.max_calls == 0 || recorded_.load() < options_.max_calls);
  }
  void SlotDone() {
    std::lock_guard lock(mutex_);
    last_done_ = Clock::now();
    if (--running_ == 0) all_done_.notify_all();
  }
  // Waits for every slot (each call has a deadline, so this ends).
  void Wait(LoadResult* result) {
    std::unique_lock lock(mutex_);
    all_done_.wait(lock, [this] { return running_ == 0; });
    result->errors = errors_;
    result->first_error = first_error_;
    result->mismatches = mismatches_.load();
    result->seconds = std::chrono::duration<double>(
                          std::min(last_done_, end_at_) - record_from_)
                          .count();
  }

 private:
  const LoadOptions options_;
  const Clock::time_point record_from_;
  const Clock::time_point end_at_;
  std::atomic<std::int64_t> recorded_{0};
  std::atomic<std::int64_t> mismatches_{0};
  std::mutex mutex_;
  std::condition_variable all_done_;
  int running_;
  std::int64_t errors_ = 0;
  std::string first_error_;
  Clock::time_point last_done_{};
};

// The payload of call `serial`: its number, padded to `bytes`.
std::string Payload(std::uint64_t serial, int bytes) {
  std::string payload = absl::StrCat(serial, ":");
  payload.resize(
      std::max<std::size_t>(payload.size(), static_cast<std::size_t>(bytes)),
      'x');
  return payload;
}

// One unary call in flight at a time, restarted from its own callback.
class UnarySlot {
 public:
  UnarySlot(Stub* stub, Run* run, int index)
      : stub_(stub),
        run_(run),
        serial_(static_cast<std::uint64_t>(index) << 40) {}

  void Start() {
    context_ = std::make_unique<grpc::ClientContext>();
    context_->set_deadline(
        std::chrono::system_clock::now() +
        absl::ToChronoNanoseconds(run_->options().call_deadline));
    request_.set_payload(Payload(++serial_, run_->options().payload_bytes));
    response_.Clear();
    start_ = Clock::now();
    stub_->async()->Ping(context_.get(), &request_, &response_,
                         [this](grpc::Status status) { OnDone(status); });
  }

  std::vector<std::int64_t>& latencies() { return latencies_; }

 private:
  void OnDone(const grpc::Status& status) {
    const Clock::time_point now = Clock::now();
    if (!status.ok()) {
      run_->Failed(status);
      run_->SlotDone();
      return;
    }
    if (response_.payload() != request_.payload()) {
      run_->Mismatched();
    } else {
      run_->Answered(start_, now, &latencies_);
    }
    if (run_->KeepGoing(now)) {
      Start();
    } else {
      run_->SlotDone();
    }
  }

  Stub* stub_;
  Run* run_;
  std::uint64_t serial_;
  std::unique_ptr<grpc::ClientContext> context_;
  sator::v1::PingRequest request_;
  sator::v1::PingResponse response_;
  Clock::time_point start_{};
  std::vector<std::int64_t> latencies_;
};

// One Session stream: write a message, wait for both the write to complete
// and the answer to arrive, then the next.
class StreamSlot final
    : public grpc::ClientBidiReactor<sator::v1::SessionRequest,
                                     sator::v1::SessionResponse> {
 public:
  StreamSlot(Stub* stub, Run* run) : stub_(stub), run_(run) {}

  void Start() {
    context_.set_deadline(
        std::chrono::system_clock::now() +
        absl::ToChronoNanoseconds(run_->options().call_deadline) +
        (run_->end_at() - Clock::now()));
    stub_->async()->Session(&context_, this);
    Send();
    StartCall();
  }

  std::vector<std::int64_t>& latencies() { return latencies_; }

  void OnWriteDone(bool ok) override {
    if (ok) RoundStepDone();
  }
  void OnReadDone(bool ok) override {
    if (!ok) return;  // OnDone reports why.
    if (response_.sequence() != request_.sequence())
      run_->Mismatched();
    else
      run_->Answered(start_, Clock::now(), &latencies_);
    RoundStepDone();
  }
  void OnDone(const grpc::Status& status) override {
    if (!status.ok()) run_->Failed(status);
    run_->SlotDone();
  }

 private:
  void Send() {
    steps_left_ = 2;  // The write and the read.
    request_.set_sequence(++sequence_);
    start_ = Clock::now();
    StartWrite(&request_);
    StartRead(&response_);
  }
  // The write or the read of this round completed; the second one starts the
  // next round (they may complete on two threads).
  void RoundStepDone() {
    if (--steps_left_ != 0) return;
    if (run_->KeepGoing(Clock::now())) {
      Send();
    } else {
      StartWritesDone();
    }
  }

  Stub* stub_;
  Run* run_;
  grpc::ClientContext context_;
  sator::v1::SessionRequest request_;
  sator::v1::SessionResponse response_;
  std::uint64_t sequence_ = 0;
  std::atomic<int> steps_left_{0};
  Clock::time_point start_{};
  std::vector<std::int64_t> latencies_;
};

template <typename Slot>
void Collect(std::vector<std::unique_ptr<Slot>>& slots, LoadResult* result) {
  for (auto& slot : slots) {
    result->latencies_ns.insert(result->latencies_ns.end(),
                                slot->latencies().begin(),
                                slot->latencies().end());
  }
}

}  // namespace

absl::StatusOr<LoadKind> ParseLoadKind(absl::string_view name) {
  if (name == "unary") return LoadKind::kUnary;
  if (name == "stream") return LoadKind::kStream;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown load kind '", name, "' (unary or stream)"));
}

double LoadResult::calls_per_second() const {
  return seconds > 0.0 ? static_cast<double>(calls) / seconds : 0.0;
}

double LoadResult::QuantileMicros(double q) const {
  if (latencies_ns.empty()) return 0.0;
  const auto index = std::min(
      latencies_ns.size() - 1,
      static_cast<std::size_t>(q * static_cast<double>(latencies_ns.size())));
  return static_cast<double>(latencies_ns[index]) / 1000.0;
}

absl::StatusOr<LoadResult> RunLoad(
    const std::shared_ptr<grpc::Channel>& channel, const LoadOptions& options) {
  if (options.concurrency < 1 || options.concurrency > 4096) {
    return absl::InvalidArgumentError("concurrency must be 1 to 4096");
  }
  if (options.duration <= absl::ZeroDuration() ||
      options.warmup < absl::ZeroDuration() ||
      options.call_deadline <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "duration and call_deadline must be positive, warmup not negative");
  }
  if (options.payload_bytes < 0 || options.payload_bytes > (1 << 20)) {
    return absl::InvalidArgumentError("payload_bytes must be 0 to 1 MiB");
  }
  if (options.max_calls < 0) {
    return absl::InvalidArgumentError("max_calls must not be negative");
  }
  std::unique_ptr<Stub> stub = sator::v1::QueryService::NewStub(channel);
  Run run(options, options.concurrency);
  LoadResult result;
  if (options.kind == LoadKind::kUnary) {
    std::vector<std::unique_ptr<UnarySlot>> slots;
    for (int i = 0; i < options.concurrency; ++i) {
      slots.push_back(std::make_unique<UnarySlot>(stub.get(), &run, i));
    }
    for (auto& slot : slots) slot->Start();
    run.Wait(&result);
    Collect(slots, &result);
  } else {
    std::vector<std::unique_ptr<StreamSlot>> slots;
    for (int i = 0; i < options.concurrency; ++i) {
      slots.push_back(std::make_unique<StreamSlot>(stub.get(), &run));
    }
    for (auto& slot : slots) slot->Start();
    run.Wait(&result);
    Collect(slots, &result);
  }
  std::sort(result.latencies_ns.begin(), result.latencies_ns.end());
  result.calls = static_cast<std::int64_t>(result.latencies_ns.size());
  return result;
}

}  // namespace sator::bench
