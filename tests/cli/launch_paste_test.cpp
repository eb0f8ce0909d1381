// Pasting `--emit` output into a shell runs the engine with the model as one argument and nothing
// else: for hostile checkpoint directory names (hand-picked shell payloads and a seeded generator
// of byte strings), every engine and every layout (one GPU, replicas, several nodes), the script
// parses under `bash -n`, and run under bash against stub engines on an empty PATH it calls only
// the engine's own commands, with the path as one argument, and writes no file it should not.
// LLMSIZE_PASTE_CASES=N raises the number of generated names (the default keeps ctest fast).
#include <catch2/catch.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Proc {
  int code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs argv[0] with exactly these arguments (no shell between), in `cwd`, with `env` as the whole
// environment when it is not empty.
Proc run_argv(const std::vector<std::string>& argv, const std::string& cwd,
              const std::vector<std::string>& env = {}) {
  char out_path[] = "/tmp/llmsize_paste_out_XXXXXX";
  char err_path[] = "/tmp/llmsize_paste_err_XXXXXX";
  const int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    const int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(127);
    std::vector<char*> a, e;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    for (const auto& s : env) e.push_back(const_cast<char*>(s.c_str()));
    e.push_back(nullptr);
    if (env.empty())
      execv(a[0], a.data());
    else
      execve(a[0], a.data(), e.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(out_fd);
  close(err_fd);
  Proc p;
  p.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  p.out = slurp(out_path);
  p.err = slurp(err_path);
  std::remove(out_path);
  std::remove(err_path);
  return p;
}

void write_file(const std::string& path, const std::string& text, mode_t mode = 0644) {
  std::ofstream(path, std::ios::binary) << text;
  chmod(path.c_str(), mode);
}

std::set<std::string> files_in(const std::string& dir) {
  std::set<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") names.insert(n);
    }
    closedir(d);
  }
  return names;
}

void remove_tree(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    for (const auto& n : files_in(path)) remove_tree(path + "/" + n);
    rmdir(path.c_str());
  } else {
    unlink(path.c_str());
  }
}

// One engine invocation the stubs logged: its command name and arguments.
struct Call {
  std::string name;
  std::vector<std::string> args;
};

// The stub log: per call, argc, the command's name and its arguments, each ended by a NUL.
std::vector<Call> read_calls(const std::string& log) {
  std::vector<std::string> fields;
  std::string f;
  for (char c : log) {
    if (c == '\0') {
      fields.push_back(f);
      f.clear();
    } else {
      f += c;
    }
  }
  std::vector<Call> calls;
  for (size_t i = 0; i + 1 < fields.size();) {
    const size_t argc = std::stoul(fields[i]);
    Call c{fields[i + 1], {}};
    for (size_t k = 0; k < argc && i + 2 + k < fields.size(); ++k)
      c.args.push_back(fields[i + 2 + k]);
    calls.push_back(c);
    i += 2 + argc;
  }
  return calls;
}

// The argument after `flag` in `c` ("" when there is none).
std::string arg_after(const Call& c, const std::string& flag) {
  for (size_t i = 0; i + 1 < c.args.size(); ++i)
    if (c.args[i] == flag) return c.args[i + 1];
  return "";
}

// The FROM value of a Modelfile as Ollama's parser reads it (parser/parser.go at 00dc3af8: the
// line trimmed, then unquote(): """...""" or "..." stripped).
std::string modelfile_from(const std::string& modelfile) {
  std::istringstream in(modelfile);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("FROM ", 0) != 0) continue;
    std::string v = line.substr(5);
    while (!v.empty() && v.back() == ' ') v.pop_back();
    while (!v.empty() && v.front() == ' ') v.erase(0, 1);
    if (v.size() >= 6 && v.compare(0, 3, "\"\"\"") == 0 &&
        v.compare(v.size() - 3, 3, "\"\"\"") == 0)
      return v.substr(3, v.size() - 6);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return v.substr(1, v.size() - 2);
    return v;
  }
  return "<no FROM line>";
}

// The model argument of an engine's call ("" when `c` is not the engine's serving call).
std::string model_of(const std::string& engine, const Call& c) {
  if (engine == "vllm" && c.name == "vllm" && !c.args.empty() && c.args[0] == "serve")
    return c.args.size() > 1 ? c.args[1] : "";
  if (engine == "sglang" && c.name == "python3") return arg_after(c, "--model-path");
  if (engine == "trt-llm" && (c.name == "trtllm-serve" || c.name == "mpirun")) {
    if (c.name == "trtllm-serve") return c.args.empty() ? "" : c.args[0];
    return arg_after(c, "trtllm-serve");
  }
  if (engine == "llama-server" && c.name == "llama-server") return arg_after(c, "-m");
  return "";
}

// The commands each engine's script may run (the stubs on PATH).
const std::vector<std::string> kStubs = {"vllm",   "ray",          "python3", "trtllm-serve",
                                         "mpirun", "llama-server", "ollama"};

bool printable_ascii(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7F) return false;
  return true;
}

bool has_control(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7F) return true;
  return false;
}

// Shell payloads and names no quoting but POSIX single quotes carries.
const std::vector<std::string> kHandPicked = {
    "m;echo PWNED>>CANARY;x",
    "$(echo PWNED>CANARY)",
    "`echo PWNED>CANARY`",
    "a&echo PWNED>CANARY&b",
    "a|tee CANARY",
    "a||echo PWNED>CANARY",
    "it's",
    "'; echo PWNED>CANARY; '",
    "'\\''",
    "\"quoted\"",
    "\"\"\"",
    "\"lead quote",
    "with space",
    "  lead and trail  ",
    "*",
    "?",
    "[a]",
    "~root",
    "~",
    "$HOME",
    "${IFS}x",
    "!!",
    "#comment",
    "\\",
    "\\n",
    "{a,b}",
    "a>CANARY",
    "<CANARY",
    "EOF",
    "<<EOF",
    "-rf",
    "--help",
    "x=1",
    "caf\xc3\xa9",
    "\xe6\xa8\xa1\xe5\x9e\x8b",
    // Refused (exit 2): a newline out of the heredoc, an escape, bidi and invisible characters,
    // bytes that are not UTF-8; Ollama alone refuses the no-break space.
    "a\nEOF\necho PWNED>CANARY",
    "\x1b[31mred",
    "x\xd8\x9c",
    "x\xe2\x80\xaey",
    "\xff\xfe",
    "tab\there",
    "nbsp\xc2\xa0x",
};

std::string random_name(std::mt19937& rng) {
  static const std::string meta = " ;&|$()`'\"\\*?[]{}~!#<>=,%^-+@:.";
  static const std::vector<std::string> wide = {"\xc3\xa9", "\xe6\xa8\xa1", "\xd8\x9c",
                                                "\xc2\xa0", "\xe2\x80\xae", "\xf0\x9f\x98\x80"};
  std::uniform_int_distribution<int> len(1, 20), pick(0, 99), byte(1, 255);
  std::string s;
  const int n = len(rng);
  for (int i = 0; i < n; ++i) {
    const int p = pick(rng);
    if (p < 50)
      s += meta[static_cast<size_t>(pick(rng)) % meta.size()];
    else if (p < 80)
      s += static_cast<char>('a' + pick(rng) % 26);
    else if (p < 92)
      s += wide[static_cast<size_t>(pick(rng)) % wide.size()];
    else if (p < 97)
      s += "EOF";
    else
      s += static_cast<char>(byte(rng));
  }
  for (auto& c : s)
    if (c == '/') c = '_';
  if (s == "." || s == "..") s = "x" + s;
  return s;
}

struct Layouts {
  std::string engine;              // the --emit name
  std::vector<std::string> plans;  // the plan's flags in each layout
};

// One GPU, replicas in a node, and several nodes for each engine (the layouts the plan makes for
// an 8B model: replicas for 64 users at 20 tok/s each; four RTX 4090s are two desktops).
struct Layout {
  std::string engine, args;
};

const std::vector<Layouts> kLayouts = {
    {"vllm",
     {"--engine vllm --gpu h100-sxm --gpus 1",
      "--engine vllm --gpu h100-sxm --users 64 --target-tps 20",
      "--engine vllm --gpu rtx-4090 --gpus 4"}},
    {"sglang",
     {"--engine sglang --gpu h100-sxm --gpus 1",
      "--engine sglang --gpu h100-sxm --users 64 --target-tps 20",
      "--engine sglang --gpu rtx-4090 --gpus 4"}},
    {"trt-llm",
     {"--engine trt-llm --gpu h100-sxm --gpus 1 --kv-quant fp8",
      "--engine trt-llm --gpu h100-sxm --users 64 --target-tps 20",
      "--engine trt-llm --gpu rtx-4090 --gpus 4"}},
    {"llama-server",
     {"--quant q4_k_m --gpu rtx-4090 --users 2",
      "--quant q4_k_m --gpu rtx-4090 --gpus 2 --users 2"}},
    {"ollama", {"--engine ollama --quant q4_k_m --gpu rtx-4090 --users 2"}},
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

TEST_CASE("Pasted --emit output runs only the engine, with the model path as one argument",
          "[cli][emit][paste]") {
  char tmpl[] = "/tmp/llmsize_paste_XXXXXX";
  const std::string root = mkdtemp(tmpl);
  const std::string models = root + "/models", stubs = root + "/bin";
  mkdir(models.c_str(), 0755);
  mkdir(stubs.c_str(), 0755);
  for (const auto& s : kStubs)
    write_file(stubs + "/" + s,
               "#!/bin/bash\nprintf '%s\\0' \"$#\" \"${0##*/}\" \"$@\" >> \"$LLMSIZE_STUB_LOG\"\n",
               0755);
  write_file(stubs + "/cat", "#!/bin/bash\nexec /bin/cat \"$@\"\n", 0755);
  const std::string config =
      slurp(std::string(LLMSIZE_SOURCE_DIR) + "/tests/fixtures/llama-3.1-8b_config.json");
  REQUIRE(!config.empty());

  std::vector<std::string> names = kHandPicked;
  std::mt19937 rng(20261202);
  const char* n_env = std::getenv("LLMSIZE_PASTE_CASES");
  const int generated = n_env ? std::atoi(n_env) : 24;
  for (int i = 0; i < generated; ++i) names.push_back(random_name(rng));

  int ran = 0, refused = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    const std::string dir = models + "/" + name;
    if (mkdir(dir.c_str(), 0755) != 0) continue;  // a name the file system refuses
    write_file(dir + "/config.json", config);
    // Each name under every engine, in one of its layouts in turn.
    for (const Layouts& layouts : kLayouts) {
      const Layout L{layouts.engine, layouts.plans[i % layouts.plans.size()]};
      std::vector<std::string> argv = {LLMSIZE_BIN, dir + "/config.json"};
      for (const auto& w : split(L.args)) argv.push_back(w);
      argv.push_back("--emit");
      argv.push_back(L.engine);
      INFO("name: " << name << "\nlayout: " << L.args);
      const Proc p = run_argv(argv, root);
      INFO("stderr: " << p.err);
      const bool gguf = L.engine == "llama-server" || L.engine == "ollama";
      const std::string expected = gguf ? dir + "/" + name + "-Q4_K_M.gguf" : dir;
      if (p.code == 2) {
        ++refused;
        CHECK(p.out.empty());
        CHECK(p.err.find("--emit " + L.engine + ": the model") != std::string::npos);
        // Printable ASCII is always carried; only Ollama refuses more than the shell does.
        CHECK_FALSE(printable_ascii(name));
        continue;
      }
      REQUIRE(p.code == 0);
      CHECK_FALSE(has_control(name));
      ++ran;
      const std::string run_dir = root + "/run";
      remove_tree(run_dir);
      mkdir(run_dir.c_str(), 0755);
      const std::string script = run_dir + "/script.sh";
      write_file(script,
                 "command_not_found_handle() { printf '%s\\n' \"$1\" >> \"$LLMSIZE_UNEXPECTED\"; "
                 "return 127; }\n" +
                     p.out + "wait\n");
      INFO("script:\n" << p.out);
      CHECK(run_argv({"/bin/bash", "-n", script}, run_dir).code == 0);
      const std::string log = root + "/calls.log", unexpected = root + "/unexpected.log";
      std::remove(log.c_str());
      std::remove(unexpected.c_str());
      const Proc b = run_argv({"/bin/bash", script}, run_dir,
                              {"PATH=" + stubs, "HOME=" + run_dir, "LLMSIZE_STUB_LOG=" + log,
                               "LLMSIZE_UNEXPECTED=" + unexpected});
      INFO("bash stderr: " << b.err);
      CHECK(b.code == 0);
      CHECK(slurp(unexpected).empty());
      // Nothing but the script and the files it writes on purpose.
      for (const auto& f : files_in(run_dir))
        CHECK((f == "script.sh" || f == "Modelfile" || f == "extra_llm_api_options.yaml"));
      const auto calls = read_calls(slurp(log));
      size_t serving_calls = 0;
      for (const auto& c : calls) {
        INFO("call: " << c.name);
        if (L.engine == "ollama") {
          CHECK(c.name == "ollama");
          continue;
        }
        const std::string m = model_of(L.engine, c);
        if (c.name == "ray") continue;
        CHECK(m == expected);
        serving_calls += m == expected;
      }
      if (L.engine == "ollama") {
        CHECK(calls.size() == 2);  // ollama serve, ollama create
        CHECK(modelfile_from(slurp(run_dir + "/Modelfile")) == expected);
      } else {
        CHECK(serving_calls >= 1);
      }
    }
  }
  // The hand-picked names alone make both outcomes happen many times.
  CHECK(ran > 100);
  // Six names every engine refuses, and the no-break space Ollama's parser would drop.
  CHECK(refused >= 6 * 5 + 1);
  remove_tree(root);
}
