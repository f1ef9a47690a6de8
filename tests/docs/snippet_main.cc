// The C++ snippets of the docs compile and link against the client library
// (the build is the test); this program runs none of them, since they need a
// satord, and checks only that each generated function exists.
#include <fstream>
#include <sstream>
#include <string>

#include "tests/docs/snippet_prelude.h"

namespace sator_doc_snippets {

std::string ReadSecret(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace sator_doc_snippets

int main() { return 0; }
