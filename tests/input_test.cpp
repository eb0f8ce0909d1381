#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "io/json_input.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/input.hpp"

using namespace llmsize;
using json = nlohmann::json;

namespace {

std::string temp_dir() {
  char tmpl[] = "/tmp/llmsize-input-XXXXXX";
  const char* d = ::mkdtemp(tmpl);
  REQUIRE(d != nullptr);
  return d;
}

}  // namespace

TEST_CASE("inputs must be regular files, named with what they are", "[input]") {
  const std::string dir = temp_dir();
  const std::string fifo = dir + "/p.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // The FIFO has no writer: a blocking open would never return.
  CHECK_THROWS_MATCHES(io::read_text_input(fifo, io::kCatalogInput), InputError,
                       Catch::Message(fifo + ": not a regular file (a FIFO)"));
  CHECK_THROWS_MATCHES(io::read_text_input(dir, io::kPlanInput), InputError,
                       Catch::Message(dir + ": not a regular file (a directory)"));
  CHECK_THROWS_MATCHES(io::read_text_input("/dev/zero", io::kConfigJsonInput), InputError,
                       Catch::Message("/dev/zero: not a regular file (a character device)"));
  CHECK_THROWS_MATCHES(io::read_text_input(dir + "/none.json", io::kConfigJsonInput), io::OpenError,
                       Catch::Message(dir + "/none.json: cannot open (No such file or directory)"));
  ::unlink(fifo.c_str());
  ::rmdir(dir.c_str());
}

TEST_CASE("a text input larger than its kind's cap is refused before it is read", "[input]") {
  const std::string dir = temp_dir();
  const std::string big = dir + "/config.json";
  {
    std::ofstream out(big);
    out << "{}";
  }
  // A sparse 4 MiB + 1 byte file: too large for a config.json (4 MiB), no data read.
  REQUIRE(::truncate(big.c_str(), 4 * 1024 * 1024 + 1) == 0);
  CHECK_THROWS_MATCHES(io::read_text_input(big, io::kConfigJsonInput), InputError,
                       Catch::Message(big + ": 4194305 bytes is too large for a config.json (at "
                                            "most 4194304)"));
  CHECK(io::read_text_input(big, io::kCatalogInput).size() == 4194305);
  ::unlink(big.c_str());
  ::rmdir(dir.c_str());
}

TEST_CASE("JSON nesting is limited to 64 levels with the byte named", "[json]") {
  // 64 levels parse; the 65th '[' is at byte 64 (counted from 0).
  CHECK(io::parse_json(std::string(64, '[') + std::string(64, ']'), "x.json").is_array());
  CHECK_THROWS_MATCHES(io::parse_json(std::string(65, '[') + std::string(65, ']'), "x.json"),
                       InputError,
                       Catch::Message("x.json: not valid JSON: nesting deeper than 64 levels (at "
                                      "byte 64)"));
  // 87,000 levels in one field (the stack overflow of issue 12): refused at the same byte count.
  const std::string deep = "{\"a\": " + std::string(87000, '[') + std::string(87000, ']') + "}";
  CHECK_THROWS_MATCHES(io::parse_json(deep, "c.json"), InputError,
                       Catch::Message("c.json: not valid JSON: nesting deeper than 64 levels (at "
                                      "byte 69)"));
}

TEST_CASE("a key given twice in one object is an error naming its path", "[json]") {
  // {"a": {"b": 1, "b": 2}}: the second "b" is at byte 15.
  CHECK_THROWS_MATCHES(io::parse_json(R"({"a": {"b": 1, "b": 2}})", "d.json"), InputError,
                       Catch::Message("d.json: /a: duplicate key \"b\" (at byte 15)"));
  CHECK_THROWS_MATCHES(io::parse_json(R"({"k": 1, "k": 1})", "d.json"), InputError,
                       Catch::Message("d.json: /: duplicate key \"k\" (at byte 9)"));
  CHECK_THROWS_MATCHES(io::parse_json(R"([{"x": 0}, {"y": 1, "y": 2}])", "d.json"), InputError,
                       Catch::Message("d.json: /1: duplicate key \"y\" (at byte 20)"));
  // The same key in sibling objects is fine.
  CHECK(io::parse_json(R"([{"x": 0}, {"x": 1}])", "d.json").size() == 2);
}

TEST_CASE("a bad JSON value is described by type and a bounded excerpt", "[json]") {
  CHECK(io::describe_json(json("lots")) == "\"lots\"");
  CHECK(io::describe_json(json(-1)) == "-1");
  CHECK(io::describe_json(json(1.5)) == "1.5");
  CHECK(io::describe_json(json(nullptr)) == "null");
  CHECK(io::describe_json(json::parse("[[1], 2, 3]")) == "an array of 3 values");
  CHECK(io::describe_json(json::parse(R"({"a": 1})")) == "an object of 1 field");
  // 48 bytes kept: "\x1b[2J" escaped is 7 of them, then 41 x.
  CHECK(io::describe_json(json("\x1b[2J" + std::string(100, 'x'))) ==
        "\"\\x1b[2J" + std::string(41, 'x') + "... (104 bytes)\"");
}
