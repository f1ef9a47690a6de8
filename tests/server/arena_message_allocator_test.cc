// ArenaMessageAllocator: both messages of a call on one arena that grows for
// big messages and is freed with the holder (ASan checks the freeing).
#include "server/arena_message_allocator.h"

#include "gtest/gtest.h"
#include "sator/v1/query_service.pb.h"

namespace sator::server {
namespace {

using BatchAllocator = ArenaMessageAllocator<sator::v1::QueryBatchRequest,
                                             sator::v1::QueryBatchResponse>;

TEST(ArenaMessageAllocatorTest, RequestAndResponseShareOneArena) {
  BatchAllocator allocator;
  auto* holder = allocator.AllocateMessages();
  ASSERT_NE(holder->request(), nullptr);
  ASSERT_NE(holder->response(), nullptr);
  EXPECT_NE(holder->request()->GetArena(), nullptr);
  EXPECT_EQ(holder->request()->GetArena(), holder->response()->GetArena());
  holder->Release();
}

TEST(ArenaMessageAllocatorTest, HoldsABigBatchAndParsesIntoTheArena) {
  sator::v1::QueryBatchRequest sent;
  sent.set_scene_id("big");
  for (int i = 0; i < 5000; ++i) {
    sator::v1::RaycastQuery* ray = sent.add_queries()->mutable_raycast();
    ray->mutable_origin()->set_x(static_cast<float>(i));
    ray->mutable_direction()->set_z(1.0f);
    ray->set_max_distance(100.0f);
  }
  const std::string wire = sent.SerializeAsString();

  BatchAllocator allocator;
  auto* holder = allocator.AllocateMessages();
  ASSERT_TRUE(holder->request()->ParseFromString(wire));
  ASSERT_EQ(holder->request()->queries_size(), 5000);
  EXPECT_EQ(holder->request()->queries(4999).GetArena(),
            holder->request()->GetArena());
  EXPECT_EQ(holder->request()->queries(4999).raycast().origin().x(), 4999.0f);
  for (int i = 0; i < 5000; ++i) {
    holder->response()->add_entries()->mutable_status()->set_code(i);
  }
  EXPECT_EQ(holder->response()->entries(4321).status().code(), 4321);
  holder->Release();
}

TEST(ArenaMessageAllocatorTest, EveryCallGetsItsOwnArena) {
  BatchAllocator allocator;
  auto* first = allocator.AllocateMessages();
  auto* second = allocator.AllocateMessages();
  EXPECT_NE(first->request()->GetArena(), second->request()->GetArena());
  first->Release();
  second->Release();
}

}  // namespace
}  // namespace sator::server
