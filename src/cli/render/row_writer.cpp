#include "cli/render/row_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "llmsize/sanitize.hpp"

namespace llmsize::cli {
namespace {

std::string_view group_of(const std::string& c) {
  const auto dot = c.find('.');
  return dot == std::string::npos ? std::string_view() : std::string_view(c).substr(0, dot);
}

std::string_view key_of(const std::string& c) {
  const auto dot = c.find('.');
  return dot == std::string::npos ? std::string_view(c) : std::string_view(c).substr(dot + 1);
}

// The first bytes csv_text_cell marks with an apostrophe (a spreadsheet would run the cell as a
// formula).
bool neutralised(char first) {
  return csv_formula_start(first);
}

// What csv_text_cell puts inside double quotes.
bool needs_csv_quotes(std::string_view s) {
  return std::memchr(s.data(), ',', s.size()) || std::memchr(s.data(), '"', s.size()) ||
         std::memchr(s.data(), '\n', s.size()) || std::memchr(s.data(), '\r', s.size());
}

// s copied to o, each quote doubled inside a quoted cell; returns the end.
char* copy_cell_text(char* o, std::string_view s, bool quoted) {
  for (const void* q; quoted && (q = std::memchr(s.data(), '"', s.size()));) {
    const auto len = static_cast<size_t>(static_cast<const char*>(q) - s.data()) + 1;
    std::memcpy(o, s.data(), len);
    o += len;
    *o++ = '"';
    s.remove_prefix(len);
  }
  std::memcpy(o, s.data(), s.size());
  return o + s.size();
}

}  // namespace

RowWriter::RowWriter(RowFormat format, std::vector<std::string> columns)
    : format_(format), columns_(std::move(columns)) {
  for (size_t i = 0; i < columns_.size(); ++i) {
    std::string l;
    if (format_ == RowFormat::csv) {
      l = i ? "," : "";
    } else {
      const std::string_view g = group_of(columns_[i]);
      const std::string_view prev = i ? group_of(columns_[i - 1]) : std::string_view();
      if (i == 0) l = "{";
      if (i && g != prev && !prev.empty()) l += "}";
      if (i) l += ",";
      if (g != prev && !g.empty()) l += "\"" + std::string(g) + "\":{";
      l += "\"" + std::string(key_of(columns_[i])) + "\":";
    }
    leads_.push_back(l);
  }
  memo_.resize(columns_.size());
  size_t longest = 0;
  for (const auto& l : leads_) longest = std::max(longest, l.size());
  slack_ = columns_.size() * (longest + 64) + 8;  // and the row's tail
  buf_.resize(2 * slack_);
  text_memo_.resize(columns_.size());
  if (format_ == RowFormat::csv) {
    tail_ = "\n";
  } else {
    tail_ = !columns_.empty() && !group_of(columns_.back()).empty() ? "}}\n" : "}\n";
  }
}

std::string RowWriter::header() const {
  if (format_ != RowFormat::csv) return "";
  std::string h;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (i) h += ',';
    h += csv_text_cell(columns_[i]);
  }
  return h + "\n";
}

size_t RowWriter::index(std::string_view name) const {
  for (size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i] == name) return i;
  throw std::logic_error("row writer: no column " + std::string(name));
}

void RowWriter::grow(size_t n) {
  const size_t used = static_cast<size_t>(cur_ - buf_.data());
  buf_.resize(std::max(2 * buf_.size(), used + n));
  cur_ = buf_.data() + used;
  end_ = buf_.data() + buf_.size();
}

void RowWriter::write_u64(uint64_t v) {
  static const char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  // The digits written in place, last first: their count first (no copy from a scratch buffer).
  static constexpr uint64_t kPow10[] = {1ull,
                                        10ull,
                                        100ull,
                                        1000ull,
                                        10000ull,
                                        100000ull,
                                        1000000ull,
                                        10000000ull,
                                        100000000ull,
                                        1000000000ull,
                                        10000000000ull,
                                        100000000000ull,
                                        1000000000000ull,
                                        10000000000000ull,
                                        100000000000000ull,
                                        1000000000000000ull,
                                        10000000000000000ull,
                                        100000000000000000ull,
                                        1000000000000000000ull,
                                        10000000000000000000ull};
  // Digits: log10 from the bit width (1233 / 4096 ~ log10 2), one more at or above that power.
  const auto bits = static_cast<uint32_t>(64 - __builtin_clzll(v | 1));
  const uint32_t t = (bits * 1233) >> 12;
  const size_t n = v ? t + (v >= kPow10[t]) : 1;
  char* p = cur_ + n;
  cur_ = p;
  while (v >= 100) {
    const auto i = static_cast<size_t>(v % 100) * 2;
    v /= 100;
    *--p = kPairs[i + 1];
    *--p = kPairs[i];
  }
  if (v >= 10) {
    const auto i = static_cast<size_t>(v) * 2;
    *--p = kPairs[i + 1];
    *--p = kPairs[i];
  } else {
    *--p = static_cast<char>('0' + v);
  }
}

void RowWriter::f64(double v) {
  Memo& m = memo_[col_];
  lead_number();
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  if (recall(m, Memo::kF64, bits)) return;
  // Then the texts of recent values of any column, by the value's bits: a value a column had some
  // rows before (a load time at the same GPU and count for the next context) is not formatted
  // again.
  Memo& g = f64_cache_[(bits * 0x9E3779B97F4A7C15ull) >> (64 - kF64CacheBits)];
  const char* at = cur_;
  if (!recall(g, Memo::kF64, bits)) {
    write_f64(v);
    if (cur_ - at > static_cast<ptrdiff_t>(sizeof m.text)) return;
    remember(g, Memo::kF64, bits, at);
  }
  remember(m, Memo::kF64, bits, at);
}

void RowWriter::write_f64(double v) {
  if (!std::isfinite(v)) {
    std::memcpy(cur_, "null", 4);  // nlohmann dumps NaN and infinities as null, in CSV cells too
    cur_ += 4;
    return;
  }
  // Whole numbers below 10^15 (the report rounds watts, dollars and tokens/s to them) print as
  // nlohmann prints them, integer digits and ".0" ("1600.0", "-0.0"): the value is exactly the
  // integer, at the centre of its rounding interval, so the digit generation ends on it. Other
  // values go through nlohmann's own Grisu2, which is not always the shortest form (84983.1178
  // prints as 84983.11780000001) and must be matched digit for digit.
  if (std::fabs(v) < 1e15 && v == std::floor(v)) {
    if (std::signbit(v)) *cur_++ = '-';
    write_u64(static_cast<uint64_t>(std::fabs(v)));
    std::memcpy(cur_, ".0", 2);
    cur_ += 2;
    return;
  }
  cur_ = nlohmann::detail::to_chars(cur_, cur_ + 64, v);
}

void RowWriter::write_json_string(std::string_view v) {
  // As nlohmann's serializer with ensure_ascii off: quotes, backslashes and control characters.
  need(6 * v.size() + 2);
  char* o = cur_;
  *o++ = '"';
  for (const char c : v) {
    const auto ch = static_cast<unsigned char>(c);
    if (ch >= 0x20 && ch != '"' && ch != '\\') {
      *o++ = c;
      continue;
    }
    const char* esc = nullptr;
    switch (ch) {
      case '"':
        esc = "\\\"";
        break;
      case '\\':
        esc = "\\\\";
        break;
      case '\b':
        esc = "\\b";
        break;
      case '\f':
        esc = "\\f";
        break;
      case '\n':
        esc = "\\n";
        break;
      case '\r':
        esc = "\\r";
        break;
      case '\t':
        esc = "\\t";
        break;
      default:
        break;
    }
    if (esc) {
      *o++ = esc[0];
      *o++ = esc[1];
    } else {
      static const char kHex[] = "0123456789abcdef";
      std::memcpy(o, "\\u00", 4);
      o[4] = kHex[ch >> 4];
      o[5] = kHex[ch & 15];
      o += 6;
    }
  }
  *o++ = '"';
  cur_ = o;
}

// csv_text_cell(v), quoted as csv_cell would: a cell starting with = + - @ TAB CR gets a leading
// quote mark so a spreadsheet does not run it as a formula.
void RowWriter::write_csv_text(std::string_view v) {
  need(2 * v.size() + 3);
  const bool quote = needs_csv_quotes(v);
  char* o = cur_;
  if (quote) *o++ = '"';
  if (!v.empty() && neutralised(v[0])) *o++ = '\'';
  o = copy_cell_text(o, v, quote);
  if (quote) *o++ = '"';
  cur_ = o;
}

void RowWriter::str(std::string_view v) {
  TextMemo& m = text_memo_[col_];
  lead();
  // The column's last text again (a sweep's rows repeat names and advice): its encoding.
  if (m.valid && v == m.text) {
    put(m.encoded);
    return;
  }
  const size_t at = static_cast<size_t>(cur_ - buf_.data());
  if (format_ == RowFormat::jsonl)
    write_json_string(v);
  else
    write_csv_text(v);
  m.valid = true;
  m.text.assign(v);
  m.encoded.assign(buf_.data() + at, static_cast<size_t>(cur_ - buf_.data()) - at);
}

void RowWriter::strs(const std::string_view* items, size_t n) {
  lead();
  if (format_ == RowFormat::jsonl) {
    need(2);
    *cur_++ = '[';
    for (size_t i = 0; i < n; ++i) {
      if (i) {
        need(1);
        *cur_++ = ',';
      }
      write_json_string(items[i]);
    }
    need(1);
    *cur_++ = ']';
    return;
  }
  // render_csv's flatten: items joined by "; " (a separator only after a non-empty prefix), the
  // cell quoted when any item needs it.
  bool quote = false;
  size_t room = 3;
  for (size_t i = 0; i < n; ++i) {
    quote = quote || needs_csv_quotes(items[i]);
    room += 2 * items[i].size() + 2;
  }
  need(room);
  char* o = cur_;
  if (quote) *o++ = '"';
  // The joined cell starts with the first non-empty item: neutralised as csv_text_cell would.
  for (size_t i = 0; i < n; ++i)
    if (!items[i].empty()) {
      if (neutralised(items[i][0])) *o++ = '\'';
      break;
    }
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    if (any) {
      o[0] = ';';
      o[1] = ' ';
      o += 2;
    }
    any = any || !items[i].empty();
    o = copy_cell_text(o, items[i], quote);
  }
  if (quote) *o++ = '"';
  cur_ = o;
}

std::string RowWriter::encode_strs(size_t col, const std::string_view* items, size_t n) {
  cur_ = buf_.data();
  end_ = buf_.data() + buf_.size();
  col_ = col;
  strs(items, n);
  std::string text(buf_.data(), static_cast<size_t>(cur_ - buf_.data()));
  cur_ = buf_.data();
  col_ = 0;
  return text;
}

void RowWriter::keep(size_t id, size_t from) {
  if (id >= kept_.size()) kept_.resize(id + 1);
  kept_[id].valid = true;
  kept_[id].text.assign(buf_.data() + from, pos() - from);
}

void RowWriter::keep_keyed(size_t id, uint64_t key, std::shared_ptr<const void> pin, size_t from) {
  if (n_keyed_ >= kMaxKeyed) forget_keyed();
  if (id >= keyed_.size()) keyed_.resize(id + 1);
  Keyed& k = keyed_[id][key];
  if (k.text.empty()) ++n_keyed_;
  k.pin = std::move(pin);
  k.text.assign(buf_.data() + from, pos() - from);
}

void RowWriter::end() {
  if (col_ != columns_.size())
    throw std::logic_error("row writer: " + std::to_string(col_) + " of " +
                           std::to_string(columns_.size()) + " columns written");
  put(tail_);
  out_->append(buf_.data(), static_cast<size_t>(cur_ - buf_.data()));
}

}  // namespace llmsize::cli
