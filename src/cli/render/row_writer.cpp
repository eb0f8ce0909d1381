#include "cli/render/row_writer.hpp"

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

bool needs_csv_quotes(std::string_view s) {
  for (char ch : s)
    if (ch == ',' || ch == '"' || ch == '\n') return true;
  return false;
}

void append_csv_quoted(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char ch : s) {
    if (ch == '"') out.push_back('"');
    out.push_back(ch);
  }
  out.push_back('"');
}

}  // namespace

void append_u64(std::string& out, uint64_t v) {
  static const char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  char buf[24];
  char* p = buf + sizeof buf;
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
  out.append(p, static_cast<size_t>(buf + sizeof buf - p));
}

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
    if (needs_csv_quotes(columns_[i]))
      append_csv_quoted(h, columns_[i]);
    else
      h += columns_[i];
  }
  return h + "\n";
}

size_t RowWriter::index(std::string_view name) const {
  for (size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i] == name) return i;
  throw std::logic_error("row writer: no column " + std::string(name));
}

void RowWriter::null() {
  lead();
  if (format_ == RowFormat::jsonl) out_->append("null");
}

void RowWriter::skip() {
  if (format_ == RowFormat::csv)
    lead();
  else
    ++col_;
}

void RowWriter::boolean(bool v) {
  lead();
  out_->append(v ? "true" : "false");
}

void RowWriter::u64(uint64_t v) {
  lead();
  append_u64(*out_, v);
}

void RowWriter::f64(double v) {
  const size_t col = col_;
  lead();
  if (last_f64_.size() != columns_.size()) {
    last_f64_.assign(columns_.size(), std::numeric_limits<double>::quiet_NaN());
    last_f64_text_.assign(columns_.size(), std::string());
  }
  // The same bits as the column's last value: the same text.
  if (std::memcmp(&v, &last_f64_[col], sizeof v) == 0) {
    out_->append(last_f64_text_[col]);
    return;
  }
  const size_t at = out_->size();
  write_f64(v);
  last_f64_[col] = v;
  last_f64_text_[col].assign(*out_, at, std::string::npos);
}

void RowWriter::write_f64(double v) {
  if (!std::isfinite(v)) {
    out_->append("null");  // nlohmann dumps NaN and infinities as null, in CSV cells too
    return;
  }
  // Whole numbers below 10^15 (the report rounds watts, dollars and tokens/s to them) print as
  // nlohmann prints them, integer digits and ".0" ("1600.0", "-0.0"): the value is exactly the
  // integer, at the centre of its rounding interval, so the digit generation ends on it. Other
  // values go through nlohmann's own Grisu2, which is not always the shortest form (84983.1178
  // prints as 84983.11780000001) and must be matched digit for digit.
  if (std::fabs(v) < 1e15 && v == std::floor(v)) {
    if (std::signbit(v)) out_->push_back('-');
    append_u64(*out_, static_cast<uint64_t>(std::fabs(v)));
    out_->append(".0");
    return;
  }
  char buf[64];
  char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);
  out_->append(buf, static_cast<size_t>(end - buf));
}

void RowWriter::append_json_string(std::string_view v) {
  // As nlohmann's serializer with ensure_ascii off: quotes, backslashes and control characters.
  std::string& o = *out_;
  o.push_back('"');
  size_t run = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const auto ch = static_cast<unsigned char>(v[i]);
    if (ch >= 0x20 && ch != '"' && ch != '\\') continue;
    o.append(v.data() + run, i - run);
    run = i + 1;
    switch (ch) {
      case '"':
        o.append("\\\"");
        break;
      case '\\':
        o.append("\\\\");
        break;
      case '\b':
        o.append("\\b");
        break;
      case '\f':
        o.append("\\f");
        break;
      case '\n':
        o.append("\\n");
        break;
      case '\r':
        o.append("\\r");
        break;
      case '\t':
        o.append("\\t");
        break;
      default: {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(ch));
        o.append(buf);
      }
    }
  }
  o.append(v.data() + run, v.size() - run);
  o.push_back('"');
}

void RowWriter::str(std::string_view v) {
  lead();
  if (format_ == RowFormat::jsonl) {
    append_json_string(v);
    return;
  }
  const std::string cell = csv_text_cell(v);
  if (needs_csv_quotes(cell))
    append_csv_quoted(*out_, cell);
  else
    out_->append(cell);
}

void RowWriter::number_text(std::string_view v) {
  lead();
  out_->append(v);
}

void RowWriter::strs(const std::string_view* items, size_t n) {
  lead();
  if (format_ == RowFormat::jsonl) {
    out_->push_back('[');
    for (size_t i = 0; i < n; ++i) {
      if (i) out_->push_back(',');
      append_json_string(items[i]);
    }
    out_->push_back(']');
    return;
  }
  // render_csv's flatten: items joined by "; " (a separator only after a non-empty prefix), the
  // cell quoted when any item needs it.
  bool quote = false;
  for (size_t i = 0; i < n && !quote; ++i) quote = needs_csv_quotes(items[i]);
  std::string& o = *out_;
  if (quote) o.push_back('"');
  // The joined cell starts with the first non-empty item: neutralised as csv_text_cell would.
  for (size_t i = 0; i < n; ++i)
    if (!items[i].empty()) {
      if (csv_text_cell(items[i].substr(0, 1)).size() > 1) o.push_back('\'');
      break;
    }
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    if (any) o.append("; ");
    any = any || !items[i].empty();
    if (!quote) {
      o.append(items[i]);
      continue;
    }
    // Each run up to and including a quote, then the quote doubled.
    std::string_view rest = items[i];
    for (size_t q = rest.find('"'); q != std::string_view::npos; q = rest.find('"')) {
      o.append(rest.substr(0, q + 1));
      o.push_back('"');
      rest.remove_prefix(q + 1);
    }
    o.append(rest);
  }
  if (quote) o.push_back('"');
}

void RowWriter::end() {
  if (col_ != columns_.size())
    throw std::logic_error("row writer: " + std::to_string(col_) + " of " +
                           std::to_string(columns_.size()) + " columns written");
  out_->append(tail_);
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string r = "\"";
  for (char ch : s) {
    if (ch == '"') r += '"';
    r += ch;
  }
  return r + "\"";
}

}  // namespace llmsize::cli
