// A gRPC MessageAllocator that puts a callback unary call's request and
// response on one protobuf Arena.
//
// Without it gRPC news the two messages and protobuf mallocs every
// sub-message: a QueryBatch of 1000 raycasts parses about 4000 heap objects
// (Query, RaycastQuery, two Vectors each) and builds about 6000 more (Entry,
// Status, QueryResult, Hit, two Vectors), then frees them one by one. On an
// arena each of those is a pointer bump in a few large blocks, and the whole
// call is freed at once when gRPC releases the holder (callgrind figures in
// docs/PERFORMANCE.md, "Service and load"). See
// https://protobuf.dev/reference/cpp/arenas/ and grpcpp/support/
// message_allocator.h.
//
// Code that fills an arena message must not move heap messages into it
// (`*arena_message = std::move(heap_message)` and Swap copy across arenas):
// write results straight into the response.
#ifndef SATOR_SERVER_ARENA_MESSAGE_ALLOCATOR_H_
#define SATOR_SERVER_ARENA_MESSAGE_ALLOCATOR_H_

#include <cstddef>

#include "google/protobuf/arena.h"
#include "grpcpp/support/message_allocator.h"

namespace sator::server {

template <typename Request, typename Response>
class ArenaMessageAllocator final
    : public grpc::MessageAllocator<Request, Response> {
 public:
  grpc::MessageHolder<Request, Response>* AllocateMessages() override {
    return new Holder();
  }

 private:
  // The first block lives inside the holder, so a small unary call costs one
  // malloc (the holder) in all; big calls grow the arena in blocks of up to
  // kMaxBlockBytes.
  static constexpr std::size_t kInitialBlockBytes = 2048;
  static constexpr std::size_t kMaxBlockBytes = 64 * 1024;

  class Holder final : public grpc::MessageHolder<Request, Response> {
   public:
    Holder() : arena_(Options(initial_block_)) {
      this->set_request(
          google::protobuf::Arena::CreateMessage<Request>(&arena_));
      this->set_response(
          google::protobuf::Arena::CreateMessage<Response>(&arena_));
    }
    // gRPC calls this once the call is done with both messages.
    void Release() override { delete this; }

   private:
    static google::protobuf::ArenaOptions Options(char* initial_block) {
      google::protobuf::ArenaOptions options;
      options.initial_block = initial_block;
      options.initial_block_size = kInitialBlockBytes;
      options.max_block_size = kMaxBlockBytes;
      return options;
    }

    alignas(std::max_align_t) char initial_block_[kInitialBlockBytes];
    google::protobuf::Arena arena_;  // After initial_block_, which it uses.
  };
};

}  // namespace sator::server

#endif  // SATOR_SERVER_ARENA_MESSAGE_ALLOCATOR_H_
