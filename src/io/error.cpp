#include "llmsize/io/error.hpp"

#include <algorithm>
#include <cctype>

namespace llmsize {
namespace {

constexpr size_t kMaxSuggestedName = 256;

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

}  // namespace

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] =
          std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string or_list(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i)
    out += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  return out;
}

std::vector<std::string> closest_names(std::string_view name,
                                       const std::vector<std::string>& candidates, size_t max) {
  // No name of a catalog is this long: an edit distance against a 100 KB argument would cost
  // seconds for nothing.
  if (name.size() > kMaxSuggestedName) return {};
  const std::string n = lower(name);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& c : candidates) {
    const std::string lc = lower(c);
    size_t d = edit_distance(n, lc);
    if (!n.empty() && lc.find(n) != std::string::npos)
      d = std::min(d, lc.size() - n.size() > 0 ? size_t{1} : size_t{0});
    // The name with a unit or word of its own after it (budget_usd for budget); a letter or two
    // more (q4_k_x) is a typo of a longer name, not this one.
    if (lc.size() >= 4 && n.size() >= lc.size() + 3 && n.compare(0, lc.size(), lc) == 0)
      d = std::min(d, size_t{1});
    // A shared size token ("72b", "4090") is a strong hint: qwen-72b -> qwen2.5-72b.
    const size_t tok = n.find_last_of("-_ ");
    const std::string last = tok == std::string::npos ? n : n.substr(tok + 1);
    if (last.size() >= 2 && std::isdigit(static_cast<unsigned char>(last[0])) &&
        lc.find(last) != std::string::npos)
      d = d >= 2 ? d - 2 : 0;
    const size_t limit = std::max<size_t>(2, n.size() / 3);
    if (d <= limit) scored.emplace_back(d, c);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [d, c] : scored) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    if (out.size() == max) break;
  }
  return out;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const auto c = closest_names(name, candidates);
  if (c.empty()) return "";
  std::string s = " (did you mean ";
  for (size_t i = 0; i < c.size(); ++i) s += (i ? ", " : "") + c[i];
  return s + "?)";
}

}  // namespace llmsize
