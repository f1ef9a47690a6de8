// A protobuf message from its text format, for tests: a text that does not
// parse fails the running test, naming the text.
#ifndef SATOR_TESTS_SUPPORT_TEXT_PROTO_H_
#define SATOR_TESTS_SUPPORT_TEXT_PROTO_H_

#include <string>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace sator::testing {

template <typename Message>
Message ParseTextProto(const std::string& text) {
  Message message;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &message))
      << text;
  return message;
}

}  // namespace sator::testing

#endif  // SATOR_TESTS_SUPPORT_TEXT_PROTO_H_
