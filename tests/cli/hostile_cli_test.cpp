// Hostile and careless input through the real binary (issue 12): every case exits 2 with nothing on
// stdout and a message naming the file or flag and the field or byte, within 1 s and 200 MB; or,
// for valid extreme input, gives the right answer within the same bounds.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../model_file_writer.hpp"
#include "run_binary.hpp"

using json = nlohmann::json;
using namespace llmsize::test;
using llmsize::cli_test::parse_csv;
using llmsize::cli_test::Result;

namespace {

// Sanitizer builds run several times slower and map far more memory.
#ifdef LLMSIZE_SANITIZED
constexpr double kMaxSeconds = 20;
constexpr long kMaxRssKb = 2'000'000;
#else
constexpr double kMaxSeconds = 1;
constexpr long kMaxRssKb = 200'000;
#endif
// Wall time only guards against a hang: on a loaded 2-core machine (ctest -j2 beside a build)
// 0.3 s of CPU was seen to take 4 s of wall time, so a 1 s wall bound would fail at random.
constexpr double kHangGuardSeconds = 10 * kMaxSeconds;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// CPU seconds (user + system) of a finished child, from wait4's rusage.
double cpu_seconds(const rusage& ru) {
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// Runs `/bin/sh -c "llmsize ARGS"` and checks the time and the peak resident memory of that run
// (wait4's rusage: the child and the descendants it waited for): at most kMaxSeconds of CPU time
// and kMaxRssKb. The CPU time is the bound that holds on a shared machine; wall time there also
// counts the waits for a core, so `max_seconds` of wall time is only a hang guard.
Result run(const std::string& args, double max_seconds = kHangGuardSeconds) {
  char out_path[] = "/tmp/llmsize_hostile_out_XXXXXX";
  char err_path[] = "/tmp/llmsize_hostile_err_XXXXXX";
  const int out_fd = ::mkstemp(out_path), err_fd = ::mkstemp(err_path);
  REQUIRE(out_fd >= 0);
  REQUIRE(err_fd >= 0);
  const std::string cmd = std::string(LLMSIZE_BIN) + " " + args;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  rusage ru{};
  ::wait4(pid, &status, 0, &ru);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ::close(out_fd);
  ::close(err_fd);
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  std::remove(out_path);
  std::remove(err_path);
  INFO("llmsize " << args.substr(0, 200));
  CHECK(s < max_seconds);
  CHECK(cpu_seconds(ru) < kMaxSeconds);
  CHECK(ru.ru_maxrss < kMaxRssKb);
  return r;
}

// Exit 2, nothing on stdout, exactly `message` on stderr.
void expect_error(const std::string& args, const std::string& message,
                  double max_seconds = kHangGuardSeconds) {
  const Result r = run(args, max_seconds);
  INFO("llmsize " << args.substr(0, 200));
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "llmsize: error: " + message + "\n");
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string nested(size_t n) {
  return std::string(n, '[') + std::string(n, ']');
}

const std::string kPlan = R"({"plans": [{"model": "llama-3.1-8b", "gpu": "rtx-4090"}]})";

// A config.json of a tiny Llama, with `extra` fields spliced in.
std::string tiny_config(const std::string& extra = "") {
  return R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, )"
         R"("intermediate_size": 128, "num_attention_heads": 2, "vocab_size": 10)" +
         (extra.empty() ? "" : ", " + extra) + "}";
}

bool has_control(const std::string& s) {
  for (const char c : s)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) return true;
  return false;
}

}  // namespace

TEST_CASE("87,000 nested arrays in any JSON input are an error at their byte, not a crash",
          "[hostile]") {
  TempDir d;
  // 64 containers may nest; the 65th is refused. In {"model_type": "llama", "x": [[[... the root
  // object is the first, so the 64th '[' is the 65th container: 29 bytes precede the first '[',
  // the 64th is at 29 + 63 = 92.
  const std::string deep = nested(87000);
  write(d / "config.json", R"({"model_type": "llama", "x": )" + deep + "}");
  expect_error(d / "config.json",
               d / "config.json" + ": not valid JSON: nesting deeper than 64 levels (at byte 92)");
  write(d / "m.safetensors.index.json", R"({"weight_map": )" + deep + "}");
  // {"weight_map": is 15 bytes: 15 + 63; {"gpus": 9 + 63; {"plans": 10 + 63.
  expect_error(d / "m.safetensors.index.json",
               d / "m.safetensors.index.json" +
                   ": not valid JSON: nesting deeper than 64 levels (at byte 78)");
  write(d / "cat.json", R"({"gpus": )" + deep + "}");
  expect_error("llama-3.1-8b --catalog " + d / "cat.json",
               d / "cat.json" + ": not valid JSON: nesting deeper than 64 levels (at byte 72)");
  write(d / "plan.json", R"({"plans": )" + deep + "}");
  expect_error("check " + d / "plan.json",
               d / "plan.json" + ": not valid JSON: nesting deeper than 64 levels (at byte 73)");
}

TEST_CASE("a FIFO, a device or a directory is refused without blocking, named for what it is",
          "[hostile]") {
  TempDir d;
  for (const char* name : {"m.gguf", "m.safetensors", "m.safetensors.index.json", "cat.json",
                           "plan.json", "config.json"})
    REQUIRE(::mkfifo((d / name).c_str(), 0600) == 0);
  expect_error(d / "m.gguf", d / "m.gguf" + ": not a regular file (a FIFO)");
  expect_error(d / "m.safetensors", d / "m.safetensors" + ": not a regular file (a FIFO)");
  expect_error(d / "m.safetensors.index.json",
               d / "m.safetensors.index.json" + ": not a regular file (a FIFO)");
  expect_error("inspect " + d / "m.gguf", d / "m.gguf" + ": not a regular file (a FIFO)");
  expect_error("llama-3.1-8b --catalog " + d / "cat.json",
               d / "cat.json" + ": not a regular file (a FIFO)");
  expect_error("check " + d / "plan.json", d / "plan.json" + ": not a regular file (a FIFO)");
  // Not "no such file": it exists.
  expect_error(d / "config.json", d / "config.json" + ": not a regular file (a FIFO)");
  expect_error("/dev/zero", "/dev/zero: not a regular file (a character device)");
  expect_error("llama-3.1-8b --catalog /dev/zero",
               "/dev/zero: not a regular file (a character device)");
  expect_error("llama-3.1-8b --catalog /dev/urandom",
               "/dev/urandom: not a regular file (a character device)");
  expect_error("check /dev/zero", "/dev/zero: not a regular file (a character device)");
  expect_error("llama-3.1-8b --catalog " + d.path(),
               d.path() + ": not a regular file (a directory)");
  expect_error("check " + d.path(), d.path() + ": not a regular file (a directory)");
}

TEST_CASE("inputs over their kind's size cap are refused before a byte is read", "[hostile]") {
  TempDir d;
  // Sparse: 100 GB on paper, nothing on disk.
  write_sparse(d / "cat.json", "{", 100'000'000'000ull);
  expect_error(
      "llama-3.1-8b --catalog " + d / "cat.json",
      d / "cat.json" + ": 100000000000 bytes is too large for a catalog (at most 67108864)");
  write_sparse(d / "plan.json", "{", 100'000'000'000ull);
  expect_error(
      "check " + d / "plan.json",
      d / "plan.json" + ": 100000000000 bytes is too large for a plan file (at most 67108864)");
  // 16 MB config.json: over the 4 MiB a config.json may take.
  write_sparse(d / "config.json", "{", 16'000'000);
  expect_error(d / "config.json", d / "config.json" +
                                      ": 16000000 bytes is too large for a config.json (at most "
                                      "4194304)");
  write_sparse(d / "m.safetensors.index.json", "{", 40'000'000);
  expect_error(d / "m.safetensors.index.json",
               d / "m.safetensors.index.json" +
                   ": 40000000 bytes is too large for a safetensors index (at most 33554432)");
}

TEST_CASE("safetensors headers cost memory in proportion to their tensors", "[hostile]") {
  TempDir d;
  // A valid 66 MB header: one tensor and 66 MB of JSON whitespace (the format allows it).
  const std::string t = R"({"a": {"dtype": "F16", "shape": [2, 2], "data_offsets": [0, 8]})";
  std::string h = t + std::string(66'000'000, ' ') + "}";
  SafetensorsWriter::write_raw(d / "ws.safetensors", h, 8);
  // Read through a 1 MiB window and scanned: a few MB (nlohmann kept every byte of the run in its
  // token text, 1.06 s and 132 MB). Under 1 s of CPU and 200 MB (run()); the wall bound is a hang
  // guard for a loaded machine.
  const Result ws = run("inspect " + d / "ws.safetensors" + " --format json", kHangGuardSeconds);
  CHECK(ws.code == 0);
  CHECK(json::parse(ws.out)["tensor_count"] == 1);
  // 7 M __metadata__ entries in 90 MB: counted as they stream, refused past 65,536.
  std::string meta = R"({"__metadata__": {)";
  for (int i = 0; i < 70000; ++i)
    meta += (i ? "," : "") + std::string("\"k") + std::to_string(i) + "\":\"\"";
  meta += "}}";
  SafetensorsWriter::write_raw(d / "meta.safetensors", meta, 0);
  expect_error(d / "meta.safetensors",
               d / "meta.safetensors" + ": __metadata__ has more than 65536 entries (at byte 9)");
  // A 260,000-byte tensor name: refused, shown cut.
  const std::string big_name(260000, 'n');
  SafetensorsWriter::write_raw(
      d / "name.safetensors",
      "{\"" + big_name + R"(": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}})", 1);
  expect_error(d / "name.safetensors",
               d / "name.safetensors" + ": tensor name of 260000 bytes (\"" + std::string(40, 'n') +
                   "... (260000 bytes)\") is longer than 1024 (at byte 9)");
}

TEST_CASE("a safetensors header of the format's full 100 MB parses within 1 s and 200 MB",
          "[hostile]") {
  TempDir d;
  const uint64_t limit = 100'000'000;  // the format's header limit (kSafetensorsMaxHeader)
  const std::string t = R"("a": {"dtype": "F16", "shape": [2, 2], "data_offsets": [0, 8]})";
  {
    // Exactly 100,000,000 bytes: one tensor and a metadata string filling the rest. nlohmann's
    // parser held such a string three times over (its token text, its token buffer, the value): a
    // 99 MB one cost 3.4 s of CPU and 490 MB. Built in its own scope: the test's own memory counts
    // in the child's peak until exec.
    const std::string head = R"({"__metadata__": {"k": ")", tail = "\"}, " + t + "}";
    SafetensorsWriter::write_raw(d / "meta.safetensors",
                                 head + std::string(limit - head.size() - tail.size(), 'x') + tail,
                                 8);
  }
  const Result meta = run("inspect " + d / "meta.safetensors" + " --format json");
  CHECK(meta.code == 0);
  CHECK(json::parse(meta.out)["tensor_count"] == 1);
  {
    // 131,072 tensors, the most one file may hold, each with a 640-byte extra field: 95 MB (1.5 s
    // and 127 MB before).
    std::string h = "{";
    const std::string pad(640, 'y');
    for (int i = 0; i < (1 << 17); ++i)
      h += (i ? ",\"t" : "\"t") + std::to_string(i) +
           R"(": {"dtype": "U8", "shape": [1], "data_offsets": [)" + std::to_string(i) + ", " +
           std::to_string(i + 1) + R"(], "x": ")" + pad + "\"}";
    h += "}";
    SafetensorsWriter::write_raw(d / "many.safetensors", h, 1 << 17);
  }
  const Result many = run("inspect " + d / "many.safetensors" + " --format json");
  CHECK(many.code == 0);
  CHECK(json::parse(many.out)["tensor_count"] == 1 << 17);
  // One byte over the format's limit: refused by the length, before the header is read.
  write_sparse(d / "over.safetensors", ByteWriter().u64(limit + 1).raw("{").buf, limit + 9);
  expect_error(d / "over.safetensors", d / "over.safetensors" +
                                           ": header length 100000001 exceeds the format's limit "
                                           "of 100000000 bytes (at byte 0)");
}

TEST_CASE("config.json fields have plausible bounds named by their key", "[hostile]") {
  TempDir d;
  // 157 bytes asking for 4,194,304 layers (20 tensor descriptors each would take 1.6 GB).
  write(d / "layers.json", R"({"model_type":"llama","num_hidden_layers":4194304,"hidden_size":64,)"
                           R"("intermediate_size":128,"num_attention_heads":2,"vocab_size":10})");
  expect_error(d / "layers.json",
               d / "layers.json" + ": /num_hidden_layers: out of range: 4194304 (at most 4096)");
  // 2,097,152 shared experts: a 32-bit product once wrapped to the parameters of 0 experts.
  write(d / "shared.json",
        R"({"model_type":"deepseek_v3","num_hidden_layers":2,"hidden_size":64,)"
        R"("intermediate_size":128,"num_attention_heads":2,"vocab_size":10,"n_routed_experts":4,)"
        R"("num_experts_per_tok":2,"moe_intermediate_size":2048,"n_shared_experts":2097152,)"
        R"("kv_lora_rank":16,"qk_rope_head_dim":8,"qk_nope_head_dim":8,"v_head_dim":8})");
  expect_error(d / "shared.json",
               d / "shared.json" + ": /n_shared_experts: out of range: 2097152 (at most 64)");
  // 1,000,000 MTP layers: 7 s, 1 GB and 243 trillion parameters before the bound.
  write(d / "mtp.json",
        R"({"model_type":"qwen3_5_text","num_hidden_layers":4,"hidden_size":64,)"
        R"("num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"vocab_size":100,)"
        R"("intermediate_size":128,"linear_conv_kernel_dim":4,"linear_key_head_dim":16,)"
        R"("linear_num_key_heads":2,"linear_num_value_heads":4,"linear_value_head_dim":16,)"
        R"("mtp_num_hidden_layers":1000000})");
  expect_error(d / "mtp.json",
               d / "mtp.json" + ": /mtp_num_hidden_layers: out of range: 1000000 (at most 16)");
  // kv_lora_rank 0 is not MLA: a KV cache 71 x DeepSeek-V3's, refused.
  write(d / "mla.json",
        R"({"model_type":"deepseek_v3","num_hidden_layers":2,"hidden_size":64,)"
        R"("intermediate_size":128,"num_attention_heads":2,"vocab_size":10,"n_routed_experts":4,)"
        R"("num_experts_per_tok":2,"moe_intermediate_size":64,"kv_lora_rank":0,)"
        R"("qk_rope_head_dim":8,"qk_nope_head_dim":8,"v_head_dim":8})");
  expect_error(d / "mla.json", d / "mla.json" +
                                   ": /kv_lora_rank: 0 (expected at least 1: MLA caches a latent "
                                   "of kv_lora_rank + qk_rope_head_dim per token and layer)");
  // validate()'s problems name the keys of the file, not llama.cpp's n_head_kv.
  write(d / "kv.json", tiny_config(R"("num_key_value_heads": 4)"));
  expect_error(
      d / "kv.json",
      d / "kv.json" + ": num_attention_heads (2) is not divisible by num_key_value_heads (4)");
  // A key given twice: last-wins would hide the first.
  write(d / "dup.json", tiny_config(R"("num_hidden_layers": 3)"));
  expect_error(d / "dup.json", d / "dup.json" +
                                   ": /: duplicate key \"num_hidden_layers\" (at "
                                   "byte 137)");
}

TEST_CASE("sums that pass 64 bits are errors naming the quantity, never wrapped", "[hostile]") {
  TempDir d;
  // Mixtral-shaped, every field within its bound: 4096 layers x 4096 experts x 3 x 2^20 x 2^22
  // elements = 3 x 2^66 parameters.
  write(d / "moe.json",
        R"({"model_type":"mixtral","num_hidden_layers":4096,"hidden_size":1048576,)"
        R"("intermediate_size":4194304,"num_attention_heads":8,"num_key_value_heads":8,)"
        R"("vocab_size":10,"num_local_experts":4096,"num_experts_per_tok":2})");
  const Result moe = run(d / "moe.json");
  CHECK(moe.code == 2);
  CHECK(moe.out.empty());
  CHECK(moe.err.rfind("llmsize: error: " + d / "moe.json" + ": ", 0) == 0);
  CHECK(moe.err.find("overflows 64 bits (an input is absurdly large)") != std::string::npos);
  // KV cache: 2^24 cells x 4096 layers x 1024 KV heads x 65536 x 2 bytes = 2^63 for K and 2^63
  // for V, whose sum printed 0.
  write(d / "kv.json",
        R"({"model_type":"llama","num_hidden_layers":4096,"hidden_size":1024,)"
        R"("intermediate_size":16,"num_attention_heads":1024,"num_key_value_heads":1024,)"
        R"("head_dim":65536,"vocab_size":10,"max_position_embeddings":16777216})");
  const Result kv = run(d / "kv.json --ctx 16777216");
  CHECK(kv.code == 2);
  CHECK(kv.out.empty());
  CHECK(kv.err.find(d / "kv.json") != std::string::npos);
  CHECK(kv.err.find("overflows 64 bits") != std::string::npos);
}

TEST_CASE("a catalog GPU with zero bandwidth or TFLOPS is refused when read", "[hostile]") {
  TempDir d;
  const std::string gpu =
      R"("id": "z", "name": "Z", "vendor": "v", "memory_gib": 24, "bandwidth_gb_per_s": )";
  write(d / "bw.json", "{\"gpus\": [{" + gpu + "0}]}");
  expect_error("llama-3.1-8b -g z --catalog " + d / "bw.json",
               d / "bw.json" +
                   ": /gpus/0/bandwidth_gb_per_s: expected a number above 0, got 0 "
                   "(leave it out if unknown)");
  write(d / "tf.json", "{\"gpus\": [{" + gpu + R"(1000, "fp16_tflops_dense": 0}]})");
  expect_error("llama-3.1-8b -g z --catalog " + d / "tf.json",
               d / "tf.json" +
                   ": /gpus/0/fp16_tflops_dense: expected a number above 0, got 0 "
                   "(leave it out if unknown)");
}

TEST_CASE("a --catalog platform is read as data/platforms.json's rows and --platform picks it",
          "[hostile]") {
  TempDir d;
  // An 8-GPU SXM server in data/platforms.json's fields.
  const std::string row = R"({"id": "my-hgx", "name": "My HGX", "vendor": "acme", "class": "server",
    "gpu": {"mount": "sxm", "counts": [8], "ids": ["h100-sxm"]},
    "cpu": {"sockets": 2, "model": "Intel Xeon Platinum 8480C", "cores_per_socket": 56},
    "psu": {"bays": 6, "watts": 3300, "redundancy": "4+2"}, "sources": {"all": "datasheet"})";
  write(d / "p.json", "{\"platforms\": [" + row + "}]}");
  const Result ok =
      run("llama-3.1-70b -g h100-sxm --platform my-hgx -f json --catalog " + d / "p.json");
  REQUIRE(ok.code == 0);
  CHECK(json::parse(ok.out)["machine"]["platform_id"] == "my-hgx");
  const Result listed = run("platforms -f json --catalog " + d / "p.json");
  CHECK(listed.code == 0);
  CHECK(listed.out.find("\"my-hgx\"") != std::string::npos);
  // Bad rows: exit 2 naming the file and the JSON path, as the built-in catalog's reader does.
  write(d / "class.json", "{\"platforms\": [" + row + R"(, "rack_units": 1000}]})");
  expect_error(
      "llama-3.1-70b -g h100-sxm --catalog " + d / "class.json",
      d / "class.json" + ": /platforms/0/rack_units: out of range: 1000 (expected 0 to 64)");
  write(d / "sxm.json", R"({"platforms": [{"id": "x", "name": "X", "vendor": "v",)"
                        R"( "class": "server", "gpu": {"mount": "sxm", "counts": [6]}}]})");
  expect_error(
      "platforms --catalog " + d / "sxm.json",
      d / "sxm.json" + ": /platforms/0/gpu/counts: SXM/OAM baseboards hold 4 or 8 GPUs, got 6");
  write(d / "dup.json", "{\"platforms\": [" + row + "}, " + row + "}]}");
  expect_error("llama-3.1-70b --catalog " + d / "dup.json",
               d / "dup.json" + ": /platforms/1/id: duplicate id \"my-hgx\" (also /platforms/0)");
}

TEST_CASE("duplicate catalog ids and JSON keys are refused, not silently last-wins", "[hostile]") {
  TempDir d;
  const std::string g = R"({"id": "z", "name": "Z", "vendor": "v", "memory_gib": 24})";
  write(d / "ids.json", "{\"gpus\": [" + g + ", " + g + "]}");
  expect_error("llama-3.1-8b --catalog " + d / "ids.json",
               d / "ids.json" + ": /gpus/1/id: duplicate id \"z\" (also /gpus/0)");
  write(d / "keys.json", R"({"gpus": [{"id": "z", "id": "y"}]})");
  expect_error("llama-3.1-8b --catalog " + d / "keys.json",
               d / "keys.json" + ": /gpus/0: duplicate key \"id\" (at byte 22)");
  write(d / "plan.json",
        R"({"plans": [{"model": "llama-3.1-8b", "gpu": "rtx-4090", "gpu": "h100-sxm"}]})");
  expect_error("check " + d / "plan.json",
               d / "plan.json" + ": /plans/0: duplicate key \"gpu\" (at byte 56)");
  // An id of the built-in catalog is replaced by a user catalog: that is what --catalog is for.
  write(d / "over.json",
        R"({"gpus": [{"id": "rtx-4090", "name": "Mine", "vendor": "v", "memory_gib": 48}]})");
  const Result over = run("llama-3.1-8b -g rtx-4090 --format json --catalog " + d / "over.json");
  CHECK(over.code == 0);
}

TEST_CASE("a catalog of 60,000 GPUs merges in linear time, and past 65,536 a list is refused",
          "[hostile]") {
  TempDir d;
  std::string s = "{\"gpus\": [";
  for (int i = 0; i < 60000; ++i)
    s += (i ? "," : "") + std::string(R"({"id": "g)") + std::to_string(i) +
         R"(", "name": "G", "vendor": "v", "memory_gib": 24, "bandwidth_gb_per_s": 1000})";
  write(d / "cat.json", s + "]}");
  // Quadratic, 100,000 took over 10 s; linear, 60,000 take about 0.6 s of CPU here. Under 1 s
  // of CPU and 200 MB (run()); the wall bound is a hang guard for a loaded machine.
  // `models` reads and checks every catalog entry, then lists the models only.
  const Result r = run("models --catalog " + d / "cat.json", kHangGuardSeconds);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  // Past 65,536 entries a list is refused (time and memory), as soon as the 65,537th is read.
  s = "{\"gpus\": [";
  for (int i = 0; i < 65537; ++i)
    s += (i ? "," : "") + std::string(R"({"id":"g)") + std::to_string(i) +
         R"(","name":"G","vendor":"v","memory_gib":1})";
  write(d / "many.json", s + "]}");
  expect_error("models --catalog " + d / "many.json",
               d / "many.json" + ": /gpus: more than 65536 entries",
               kHangGuardSeconds);  // wall: hang guard
}

// --emit prints the draft model's path (llama-server -md) into the script as it prints the main
// model's: a path that would carry a terminal escape to whoever pastes the script is refused, the
// same way, naming the draft.
TEST_CASE("A launch script refuses a draft model path it cannot print safely", "[hostile]") {
  TempDir d;
  tiny_llama(1, kQ4_K, kQ6_K).write(d / "main.gguf");
  tiny_llama(1, kQ4_K, kQ6_K).write(d / "d\x1b[31m.gguf");
  const std::string draft = "\"$(printf '" + d / "d\\033[31m.gguf')\"";
  // The plan itself is answered (the path is shown escaped); only the script is refused.
  CHECK(run(d / "main.gguf --draft " + draft).code == 0);
  expect_error(d / "main.gguf --draft " + draft + " --emit llama-server",
               "--emit llama-server: the draft model \"" + d / "d\\x1b[31m.gguf" +
                   "\" holds a control, invisible or non-UTF-8 character (shown escaped), which a "
                   "pasted command would carry to the terminal or break on; rename it");
}

TEST_CASE("untrusted names reach the terminal escaped and CSV cells are never formulas",
          "[hostile]") {
  TempDir d;
  // A llama GGUF whose general.name sets the terminal title and clears the screen.
  GgufWriter e;
  e.str("general.architecture", "llama").str("general.name", "x\x1b]0;pwned\x07\x1b[2J");
  e.u32("llama.block_count", 1)
      .u32("llama.context_length", 8192)
      .u32("llama.embedding_length", 256);
  e.u32("llama.feed_forward_length", 512).u32("llama.attention.head_count", 8);
  e.u32("llama.attention.head_count_kv", 2).u32("llama.rope.dimension_count", 32).vocab(1024);
  e.tensor("token_embd.weight", kQ4_K, {256, 1024});
  e.write(d / "evil.gguf");
  for (const std::string& args :
       {d / "evil.gguf", "inspect " + d / "evil.gguf", d / "evil.gguf --format markdown"}) {
    const Result r = run(args);
    INFO(args);
    CHECK(r.code == 0);
    CHECK_FALSE(has_control(r.out));
    CHECK(r.out.find("x\\x1b]0;pwned\\x07\\x1b[2J") != std::string::npos);
  }
  write(d / "config.json", tiny_config(R"("_name_or_path": "=HYPERLINK(\"http://x\")\u001b[31m")"));
  const Result csv = run(d / "config.json --format csv");
  CHECK(csv.code == 0);
  CHECK_FALSE(has_control(csv.out));
  CHECK(csv.out.find(",\"'=HYPERLINK(\"\"http://x\"\")\\x1b[31m\",") != std::string::npos);
  write(d / "type.json", R"({"model_type": "\u001b]0;t\u0007llama"})");
  const Result type = run(d / "type.json");
  CHECK(type.code == 2);
  CHECK(type.out.empty());
  CHECK(type.err.rfind("llmsize: error: " + d / "type.json" +
                           ": /model_type: unsupported \"\\x1b]0;t\\x07llama\"",
                       0) == 0);
}

TEST_CASE("MODEL and --gpu arguments are echoed escaped and cut", "[hostile]") {
  // /bin/sh is POSIX: printf makes the escape bytes.
  expect_error("\"$(printf 'evil\\033[31mred')\"",
               "MODEL: unknown model 'evil\\x1b[31mred'; see llmsize models");
  expect_error("llama-3.1-8b -g \"$(printf 'x\\033]0;t\\007')\"",
               "--gpu: unknown GPU 'x\\x1b]0;t\\x07'; see llmsize gpus");
  // A 131,000-byte argument comes back as 120 bytes and its length.
  const std::string big(131000, 'a');
  expect_error(big, "MODEL: unknown model '" + std::string(120, 'a') +
                        "... (131000 bytes)'; see llmsize models");
  expect_error("llama-3.1-8b -g " + big, "--gpu: unknown GPU '" + std::string(120, 'a') +
                                             "... (131000 bytes)'; see llmsize gpus");
}

TEST_CASE("flags take decimal numbers only", "[hostile]") {
  expect_error("llama-3.1-8b --headroom 0x1p-3",
               "--headroom: expected a number from 0 to 1, got '0x1p-3'");
  expect_error("llama-3.1-8b --headroom nan",
               "--headroom: expected a number from 0 to 1, got 'nan'");
  expect_error("llama-3.1-8b --headroom inf",
               "--headroom: expected a number from 0 to 1, got 'inf'");
}

TEST_CASE("a quantized KV cache on rows that are not whole blocks names --kv-quant and the head",
          "[hostile]") {
  TempDir d;
  // 1 KV head of 72: a K row of 72 elements, not a multiple of q4_0's 32.
  write(d / "config.json",
        R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 144, )"
        R"("intermediate_size": 128, "num_attention_heads": 2, "num_key_value_heads": 1, )"
        R"("vocab_size": 10})");
  expect_error(
      d / "config.json --kv-quant q4_0",
      "--kv-quant: q4_0 stores rows in blocks of 32 elements, but this model's K row is 72 "
      "elements (1 KV heads x head size 72); use f16, bf16 or a type whose block divides "
      "it");
  CHECK(run(d / "config.json --kv-quant q8_0").code == 2);
  CHECK(run(d / "config.json --kv-quant f16").code == 0);
}

TEST_CASE("a directory of GGUF shards says to name a file", "[hostile]") {
  TempDir d;
  write(d / "m-00001-of-00002.gguf", "");
  write(d / "m-00002-of-00002.gguf", "");
  expect_error(d.path(), d.path() +
                             ": directory holds 2 GGUF files (m-00001-of-00002.gguf, "
                             "m-00002-of-00002.gguf): give one .gguf file (a split model's first "
                             "shard) as MODEL");
  TempDir empty;
  expect_error(empty.path(),
               empty.path() + ": directory holds no config.json, *.safetensors or *.gguf file");
}

TEST_CASE("a failed write to stdout is exit 2 with a message", "[hostile]") {
  TempDir d;
  write(d / "plan.json", kPlan);
  for (const std::string& args :
       {std::string("llama-3.1-8b"), "check " + d / "plan.json", std::string("models"),
        std::string("llama-3.1-8b --format json")}) {
    INFO(args);
    const Result r = run(args + " > /dev/full");
    CHECK(r.code == 2);
    CHECK(r.err == "llmsize: error: cannot write to standard output (No space left on device)\n");
  }
}

TEST_CASE("GGUF per-layer arrays are kept per key, whatever arrays came before", "[hostile]") {
  TempDir d;
  // 16 tokenizer-like arrays of 4096 exhaust the 65,536-element budget for other keys; the
  // 2-element head_count_kv array of the architecture is still read.
  GgufWriter w;
  w.str("general.architecture", "llama").str("general.name", "budget");
  for (int i = 0; i < 16; ++i) w.u32s("junk." + std::to_string(i), std::vector<uint32_t>(4096, 1));
  w.u32("llama.block_count", 2)
      .u32("llama.context_length", 8192)
      .u32("llama.embedding_length", 256);
  w.u32("llama.feed_forward_length", 512).u32("llama.attention.head_count", 8);
  w.u32s("llama.attention.head_count_kv", {2, 4});
  w.u32("llama.rope.dimension_count", 32).vocab(1024);
  w.tensor("token_embd.weight", kQ4_K, {256, 1024});
  w.write(d / "m.gguf");
  const Result r = run(d / "m.gguf --format json --ctx 4096");
  REQUIRE(r.code == 0);
  // K+V per layer per cell in f16: (2 + 4) heads x 32 x 2 bytes x 2 (K and V) = 768 bytes;
  // x 4096 cells = 3,145,728.
  CHECK(json::parse(r.out)["vram"]["kv_cache_bytes"] == 3145728);
}

TEST_CASE("running out of memory is an error naming the input, not std::bad_alloc", "[hostile]") {
#ifndef LLMSIZE_SANITIZED  // ASan reserves terabytes of address space: no ulimit -v under it
  TempDir d;
  std::string s = "{\"gpus\": [";
  for (int i = 0; i < 100000; ++i)
    s += (i ? "," : "") + std::string(R"({"id": "g)") + std::to_string(i) +
         R"(", "name": "G", "vendor": "v", "memory_gib": 24})";
  write(d / "cat.json", s + "]}");
  // 40 MB of address space cannot hold 100,000 catalog entries.
  const Result r = llmsize::cli_test::sh("ulimit -v 40000; " + std::string(LLMSIZE_BIN) +
                                         " models --catalog " + d / "cat.json");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "llmsize: error: --catalog " + d / "cat.json" +
                     ": out of memory (an input is too large for the memory available)\n");
#endif
}

TEST_CASE("an empty path is named as one", "[hostile]") {
  expect_error("llama-3.1-8b --catalog ''",
               "'' (an empty path): cannot open (No such file or "
               "directory)");
}

TEST_CASE("catalog names reach tables escaped, ids must be plain", "[hostile]") {
  TempDir d;
  write(
      d / "cat.json",
      R"({"gpus": [{"id": "evil", "name": "E\u001b[2J", "vendor": "v\u0007", "memory_gib": 24}]})");
  const Result r = run("llama-3.1-8b -g evil --catalog " + d / "cat.json");
  CHECK(r.code == 0);
  CHECK_FALSE(has_control(r.out));
  CHECK(r.out.find("E\\x1b[2J") != std::string::npos);
  write(d / "id.json",
        R"({"gpus": [{"id": "a\u001bb", "name": "E", "vendor": "v", "memory_gib": 24}]})");
  expect_error("llama-3.1-8b --catalog " + d / "id.json",
               d / "id.json" + ": /gpus/0/id: expected a lowercase id, got \"a\\x1bb\"");
}

TEST_CASE("JSON memory follows what a reader keeps: no quadratic or unbounded document",
          "[hostile]") {
  TempDir d;
  // 1.39 M empty objects in a 4 MB config.json: nlohmann's callback parser rescanned the array at
  // each '}' (quadratic, minutes); the linear builder stops at 500,000 values held.
  std::string junk;
  for (int i = 0; i < 1390000; ++i) junk += i ? ",{}" : "{}";
  write(d / "config.json", R"({"model_type": "llama", "junk": [)" + junk + "]}");
  expect_error(d / "config.json",
               d / "config.json" + ": /junk: more than 500000 JSON values held at once");
  // The same junk beside an index's weight_map is dropped as it is read, costing nothing.
  write(d / "m.safetensors.index.json",
        R"({"weight_map": {"a": "m-1.safetensors"}, "junk": [)" + junk + "]}");
  expect_error(d / "m.safetensors.index.json",
               d / "m-1.safetensors: cannot open (No such file or directory)");
}

TEST_CASE("output files, flags and catalogs the hostile corpus caught", "[hostile]") {
  // Each found by scripts/hostile_corpus.py (the contract: exit 2, empty stdout, a message naming
  // the flag or file).
  TempDir d;
  REQUIRE(::mkfifo((d / "f.svg").c_str(), 0600) == 0);
  // --plot and --junit opened a FIFO with fopen and waited for a reader forever; /dev/full was
  // written after the table (stdout then not empty on error).
  expect_error("llama-3.1-8b -g rtx-4090 --plot " + d / "f.svg",
               "--plot: cannot write '" + d / "f.svg" + "': not a regular file (a FIFO)");
  expect_error("llama-3.1-8b -g rtx-4090 --plot /dev/full",
               "--plot: cannot write '/dev/full': not a regular file (a character device)");
  write(d / "plan.json", kPlan);
  expect_error("check " + d / "plan.json" + " --junit " + d / "f.svg",
               "--junit: cannot write '" + d / "f.svg" + "': not a regular file (a FIFO)");
  expect_error("sweep --models 8b -g rtx-4090 --plot " + d.path(),
               "--plot: cannot write '" + d.path() + "': not a regular file (a directory)");
  // An empty value read as "not given": -g '' recommended GPUs instead of refusing.
  expect_error("llama-3.1-8b --gpu ''", "--gpu: expected a value, got ''");
  expect_error("fit -g ''", "--gpu: expected a value, got ''");
  // "-0" for a flag that takes no negative number; hex and spaces in --power-limit.
  expect_error("llama-3.1-8b --headroom -0", "--headroom: expected a number from 0 to 1, got '-0'");
  expect_error("llama-3.1-8b --power-limit 0x50",
               "--power-limit: expected a percentage from 10% to 100% (or a fraction 0.1 to 1), "
               "got '0x50'");
  // nlohmann's lexer ends the input at a NUL byte: what followed was ignored.
  write(d / "nul.json", std::string("{\"gpus\": []}\0{\"gpus\": [1]}", 26));
  expect_error("gpus --catalog " + d / "nul.json",
               d / "nul.json" + ": not valid JSON: a NUL byte (at byte 12)");
  // quants took --catalog and never read it.
  expect_error("quants --catalog " + d / "nul.json",
               d / "nul.json" + ": not valid JSON: a NUL byte (at byte 12)");
}

TEST_CASE("a sweep that cannot write its rows says so as every command does", "[hostile]") {
  const Result r = run("sweep --models 8b -g rtx-4090 > /dev/full");
  CHECK(r.code == 2);
  CHECK(r.err == "llmsize: error: cannot write to standard output (No space left on device)\n");
}

TEST_CASE("check --format json streams: memory per plan bounded, the document unchanged",
          "[hostile]") {
  TempDir d;
  // 20,000 plans: each report is ~16 KB of JSON (320 MB of output). Held until the end they took
  // 263 MB and over 10 s; spooled to a temporary file, one text per distinct report, 16 MB and
  // 0.6 s of CPU (run() checks 1 s of CPU and 200 MB).
  std::string s = "{\"plans\": [";
  for (int i = 0; i < 20000; ++i)
    s += (i ? "," : "") + std::string(R"({"model": "8b", "gpu": "rtx-4090"})");
  write(d / "plans.json", s + "]}");
  const Result r =
      run("check " + d / "plans.json" + " --format json > " + d / "out.json", kHangGuardSeconds);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  // The same document as render_check_json's (the whole held): the second file's plan follows.
  // (Run before the large document is parsed here: a child forked from this process counts its
  // pages in its peak RSS.)
  write(d / "one.json", kPlan);
  const Result two = run("check " + d / "one.json" + " " + d / "one.json" + " --format json");
  const json t = json::parse(two.out);
  REQUIRE(t["plans"].size() == 2);
  CHECK(t["plans"][1]["file"] == d / "one.json");
  CHECK(t["plans"][1]["report"]["model"] == t["plans"][0]["report"]["model"]);
  // The large document, checked as text (parsed, it would take 1 GB here): every plan in order,
  // and valid JSON (json::accept builds no tree).
  const std::string out = slurp(d / "out.json");
  CHECK(out.find("\"passed\": 20000,") != std::string::npos);
  size_t at = 0, n = 0;
  while ((at = out.find("\"pointer\": \"/plans/" + std::to_string(n) + "\"", at)) !=
         std::string::npos)
    ++n;
  CHECK(n == 20000);
  CHECK(json::accept(out));
}

namespace {

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

}  // namespace

TEST_CASE("no CSV output has a text cell a spreadsheet would run as a formula", "[hostile][csv]") {
  TempDir d;
  // A config whose name and a catalog GPU whose every free-text field open as formulas (the form
  // factor is a word of the catalog's, checked on read: not free text).
  json cfg = json::parse(
      slurp(std::string(LLMSIZE_SOURCE_DIR) + "/tests/fixtures/llama-3.1-8b_config.json"));
  cfg["_name_or_path"] = "=HYPERLINK(\"http://x\",\"y\")";
  write(d / "config.json", cfg.dump());
  write(d / "cat.json", R"({"gpus": [{"id": "evil", "name": "=cmd|' /C calc'!A0",
      "vendor": "@evil", "class": "datacenter", "memory_gib": 80, "memory_type": "+HBM3",
      "bandwidth_gb_per_s": 3350, "board_power_w": 700, "bf16_tflops_dense": 989,
      "form_factor": "sxm", "price_usd": 25000, "price_date": "-2026", "price_kind": "=1+1",
      "backends": ["cuda"]}]})");
  const std::string cat = " --catalog " + d / "cat.json";
  const std::string cfg_path = d / "config.json";
  for (const std::string& args : std::vector<std::string>{
           cfg_path + " -g evil --format csv" + cat,
           cfg_path + " -g evil --format bom-csv" + cat,
           cfg_path + " -g evil --gpus 8 --format bom-csv" + cat,
           cfg_path + " --compare evil,rtx-4090 --format csv" + cat,
           "fit -g evil --format csv" + cat,
           "gpus --format csv" + cat,
           "models --format csv",
           "platforms --format csv",
           "sweep --models " + cfg_path + " --gpu evil --gpus 1,2 --ctx 4096 --format csv" + cat,
       }) {
    INFO("llmsize " << args);
    const Result r = run(args);
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto rows = parse_csv(r.out);
    REQUIRE(rows.size() >= 2);
    size_t text_cells = 0;
    for (const auto& row : rows) {
      CHECK(row.size() == rows.front().size());
      for (const auto& cell : row) {
        if (cell.empty() || is_number(cell)) continue;
        ++text_cells;
        INFO("cell: " << cell);
        CHECK(std::string("=+-@\t\r").find(cell[0]) == std::string::npos);
      }
    }
    CHECK(text_cells > 0);
  }
}

TEST_CASE("flags valid one by one but not together are refused, naming the flags and the limit",
          "[hostile]") {
  struct Case {
    std::string args, message;
  };
  for (const auto& c : std::vector<Case>{
           // --isl and --osl each take up to 2^24 = 16,777,216 tokens, the most --ctx takes; one
           // request holds both: 2 x 2^24 = 33,554,432 is past it.
           {"llama-3.1-8b --isl 16777216 --osl 16777216",
            "--isl + --osl: 16777216 + 16777216 = 33554432 tokens per request, past the 16777216 "
            "a context may hold (--ctx)"},
           // Llama 3.1 was trained to 131,072 positions (config.json max_position_embeddings):
           // 131,072 + 1 is one past.
           {"llama-3.1-8b --isl 131072 --osl 1",
            "--isl + --osl: 131072 + 1 = 131073 tokens per request, past llama-3.1-8b's trained "
            "context of 131072 tokens"},
           {"llama-3.1-8b --engine vllm --osl 131000 --isl 100",
            "--isl + --osl: 100 + 131000 = 131100 tokens per request, past llama-3.1-8b's trained "
            "context of 131072 tokens"},
           // One RTX 4090 goes in an AM5 desktop: 2 DDR5 channels. 24 channels x 4800 MT/s x 8 B
           // read offloaded layers at 921.6 GB/s before; the most it has is 2 x 4800 x 8 = 76.8.
           {"llama-3.1-70b -g rtx-4090 -n 1 --ram-channels 24",
            "--ram-channels 24: the am5-desktop planned for 1 × rtx-4090 has 2 memory channels; "
            "give 1 to 2"},
           {"llama-3.1-70b -g rtx-4090 -n 1 --ram-channels 3",
            "--ram-channels 3: the am5-desktop planned for 1 × rtx-4090 has 2 memory channels; "
            "give 1 to 2"},
           // A unified-memory computer has no DIMMs: its GPU reads the memory at 819 GB/s.
           {"llama-3.1-8b -g m3-ultra --ram-channels 8",
            "--ram-channels 8: m3-ultra is a unified-memory computer, its memory is the GPU's (819 "
            "GB/s); it has no DIMM channels to set"},
       })
    expect_error(c.args, c.message);
  // Within the platform's channels the flag applies: 2 x 4800 x 8 = 76.8 GB/s, printed as 77.
  const Result r = run("llama-3.1-70b -g rtx-4090 -n 1 --ram-channels 2");
  CHECK(r.code == 0);
  CHECK(r.out.find("at 77 GB/s: 2 ch × 4800 MT/s") != std::string::npos);
}

TEST_CASE("a --compare list: at most 64 entries, counts from 1, a system once, no flag dropped",
          "[hostile]") {
  std::string many, distinct;
  for (int i = 0; i < 10000; ++i) many += (i ? "," : "") + std::string("rtx-4090");
  for (int i = 1; i <= 65; ++i)
    distinct += std::string(i > 1 ? "," : "") + "rtx-4090x" + std::to_string(i);
  struct Case {
    std::string args, message;
  };
  for (const auto& c : std::vector<Case>{
           // 10,000 entries took 976 MB before the cap.
           {"llama-3.1-8b --compare " + many, "--compare: 10000 entries, at most 64"},
           {"llama-3.1-8b --compare " + distinct, "--compare: 65 entries, at most 64"},
           // x0 planned one GPU before.
           {"llama-3.1-8b --compare rtx-4090x0",
            "--compare: rtx-4090x0: expected a count from 1 to 1024, got 0"},
           {"llama-3.1-8b --compare 0xrtx-4090,m3-ultra",
            "--compare: 0xrtx-4090: expected a count from 1 to 1024, got 0"},
           {"llama-3.1-8b --compare rtx-4090x2000",
            "--compare: rtx-4090x2000: expected a count from 1 to 1024, got 2000"},
           {"llama-3.1-8b --compare rtx-4090 --ctx max",
            "--compare: --ctx max does not apply (it finds the largest context of one set of "
            "GPUs; give --ctx N); drop it"},
           {"llama-3.1-8b --compare rtx-4090 --emit vllm",
            "--compare: --emit does not apply (it prints the launch command of one plan); drop it"},
           {"llama-3.1-8b --compare --explain",
            "--compare: --explain does not apply (it prints the formulas of one plan); drop it"},
           {"llama-3.1-8b --compare rtx-4090 --plot /tmp/never-written.svg",
            "--compare: --plot does not apply (it draws one plan); drop it"},
           {"llama-3.1-8b --compare rtx-4090 --top 3",
            "--compare: --top does not apply (the comparison lists each system once); drop it"},
           // Each system is held to its own machine: 2 channels fit the desktop, not the Mac.
           {"llama-3.1-8b --compare rtx-4090,m3-ultra --ram-channels 2",
            "--ram-channels 2: m3-ultra is a unified-memory computer, its memory is the GPU's (819 "
            "GB/s); it has no DIMM channels to set"},
           {"llama-3.1-8b --compare rtx-4090,m3-ultra --ram-channels 8",
            "--ram-channels 8: the am5-desktop planned for 1 × rtx-4090 has 2 memory channels; "
            "give 1 to 2"},
       })
    expect_error(c.args, c.message);
  // 64 is allowed; the same system written five ways is planned and shown once: one RTX 4090
  // holds the 8B, so rtx-4090 (as many as needed) is rtx-4090x1; x2 and 2*rtx-4090 are one more.
  const Result r =
      run("llama-3.1-8b --compare rtx-4090,rtx-4090x1,1xrtx-4090,rtx-4090x2,2*rtx-4090 -f json");
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  REQUIRE(j.size() == 2);
  CHECK(j[0]["gpu"]["count"] == 1);
  CHECK(j[1]["gpu"]["count"] == 2);
}
