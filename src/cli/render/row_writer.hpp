// A hand-rolled writer of report rows as CSV or JSON Lines, byte for byte what render_csv() and
// render_json() print for the same values (nlohmann's number format, fmt-free), fast enough for
// sweeps of millions of rows: cells are appended to one growing buffer, column names and JSON
// punctuation are precomputed per column.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace llmsize::cli {

enum class RowFormat { csv, jsonl };

class RowWriter {
 public:
  // `columns` are dotted JSON paths ("vram.total_bytes"); a path has at most one dot, and the
  // columns of one group are contiguous, as in the main command's JSON.
  RowWriter(RowFormat format, std::vector<std::string> columns);

  const std::vector<std::string>& columns() const { return columns_; }
  // The CSV header line (empty for JSON Lines, which names each value).
  std::string header() const;

  // Starts a row, appended to `out` by end() (the writer fills its own buffer through a pointer
  // until then: no capacity check per byte).
  void begin(std::string& out) {
    out_ = &out;
    col_ = 0;
    cur_ = buf_.data();
    end_ = buf_.data() + buf_.size();
  }
  // Each call writes the next column.
  void null() {
    lead_number();
    if (format_ == RowFormat::jsonl) {
      std::memcpy(cur_, "null", 4);
      cur_ += 4;
    }
  }
  // The column is absent from this row (the main command's JSON omits the key): an empty CSV cell,
  // nothing in JSON. REQUIRES: not the first column of its group.
  void skip() {
    if (format_ == RowFormat::csv)
      lead_number();
    else
      ++col_;
  }
  void boolean(bool v) {
    lead_number();
    std::memcpy(cur_, v ? "true" : "false", v ? 4 : 5);
    cur_ += v ? 4 : 5;
  }
  // Each column's memo is keyed by the kind of number and its bits.
  void u64(uint64_t v) {
    Memo& m = memo_[col_];
    lead_number();
    if (recall(m, Memo::kU64, v)) return;
    const char* at = cur_;
    write_u64(v);
    remember(m, Memo::kU64, v, at);
  }
  void f64(double v);  // nlohmann's shortest round-trip format: 0.2, 1000.0; NaN/inf as null
  // Text: in CSV a cell starting with = + - @ is neutralised (csv_text_cell), as render_csv does.
  void str(std::string_view v);
  // An array of strings: JSON array; CSV cell of the items joined by "; " (render_csv's flatten).
  void strs(const std::string_view* items, size_t n);
  // Text written earlier by a writer of the same format and columns for columns [col(), col() + n)
  // (leads included, as encode_strs makes it).
  void segment(std::string_view text, size_t n) {
    put(text);
    col_ += n;
  }
  // What strs(items, n) would write at column `col` (its lead included), for segment(text, 1):
  // a list repeated over many rows is encoded once. REQUIRES: no row begun and not ended.
  std::string encode_strs(size_t col, const std::string_view* items, size_t n);
  // Segments kept for the next rows (write_row's Reuse): keep(id, from) keeps the text written
  // since pos() was `from` as segment `id`; replay(id, n) writes it again as the next n columns,
  // or returns false (nothing written) when nothing is kept under `id`. A kept segment holds its
  // columns' leads: it is replayed at the columns it was written at.
  size_t pos() const { return static_cast<size_t>(cur_ - buf_.data()); }
  void keep(size_t id, size_t from);
  bool replay(size_t id, size_t n) {
    if (id >= kept_.size() || !kept_[id].valid) return false;
    put(kept_[id].text);
    col_ += n;
    return true;
  }
  // Segments kept by a key, for rows that are not consecutive (a sweep's rows at other contexts
  // buy the same machine, at other GPUs have the same estimate): keep_keyed(id, key, pin, from)
  // keeps the text written since pos() was `from` as segment `id` under `key` (holding `pin`,
  // the object whose address the key is, so that it is never another object's while kept);
  // replay_keyed(id, key, n) writes it again as the next n columns, or returns false.
  // forget_keyed() drops them all.
  void keep_keyed(size_t id, uint64_t key, std::shared_ptr<const void> pin, size_t from);
  bool replay_keyed(size_t id, uint64_t key, size_t n) {
    if (id >= keyed_.size()) return false;
    const auto it = keyed_[id].find(key);
    if (it == keyed_[id].end()) return false;
    put(it->second.text);
    col_ += n;
    return true;
  }
  void forget_keyed() {
    for (auto& k : keyed_) k.clear();
    n_keyed_ = 0;
  }
  // Closes the row with a newline. REQUIRES: every column written.
  void end();

  size_t col() const { return col_; }
  size_t size() const { return columns_.size(); }
  // The index of a column by name; throws std::logic_error when absent.
  size_t index(std::string_view name) const;

 private:
  // Room for n more bytes at cur_, and slack_ beyond them: every cell but text fits in its share
  // of the slack (a lead and 64 bytes), so a number is written without a check.
  void need(size_t n) {
    if (static_cast<size_t>(end_ - cur_) < n + slack_) grow(n + slack_);
  }
  void grow(size_t n);
  void put(std::string_view v) {
    need(v.size());
    std::memcpy(cur_, v.data(), v.size());
    cur_ += v.size();
  }
  // The column's lead, then 64 bytes of room (from the slack).
  void lead_number() {
    if (format_ == RowFormat::csv) {
      if (col_++) *cur_++ = ',';
      return;
    }
    const std::string& l = leads_[col_++];
    std::memcpy(cur_, l.data(), l.size());
    cur_ += l.size();
  }
  // The column's lead, for text (which asks for its room itself).
  void lead() {
    need(0);
    lead_number();
  }
  // The last number written in a column and its text: rows of a sweep repeat most values.
  struct Memo {
    enum Kind : uint8_t { kNone, kU64, kF64 };
    uint64_t bits = 0;
    Kind kind = kNone;
    uint8_t len = 0;
    char text[32] = {};
  };
  // Writes the memo's text when it holds a `kind` number of these bits. REQUIRES: 32 bytes of
  // room.
  bool recall(const Memo& m, Memo::Kind kind, uint64_t bits) {
    if (m.kind != kind || m.bits != bits) return false;
    std::memcpy(cur_, m.text, sizeof m.text);
    cur_ += m.len;
    return true;
  }
  // REQUIRES: the text from `from` to cur_ is at most 32 bytes.
  void remember(Memo& m, Memo::Kind kind, uint64_t bits, const char* from) {
    m.kind = kind;
    m.bits = bits;
    m.len = static_cast<uint8_t>(cur_ - from);
    std::memcpy(m.text, from, m.len);
  }
  void write_u64(uint64_t v);  // REQUIRES: 20 bytes of room
  void write_f64(double v);
  void write_json_string(std::string_view v);
  void write_csv_text(std::string_view v);

  RowFormat format_;
  std::vector<std::string> columns_;
  std::vector<std::string>
      leads_;  // what precedes each value: "," or ",\"key\":" or "},\"group\":{\"key\":"
  std::string tail_;
  std::vector<Memo> memo_;  // per column
  static constexpr unsigned kF64CacheBits = 12;
  std::vector<Memo> f64_cache_ = std::vector<Memo>(size_t{1} << kF64CacheBits);  // by bits
  size_t slack_ = 0;  // columns x (the longest lead + 64)
  // The last text written in a column and its encoding.
  struct TextMemo {
    bool valid = false;
    std::string text, encoded;
  };
  std::vector<TextMemo> text_memo_;  // per column
  struct Kept {
    bool valid = false;
    std::string text;
  };
  std::vector<Kept> kept_;  // by segment id
  struct Keyed {
    std::shared_ptr<const void> pin;
    std::string text;
  };
  std::vector<std::unordered_map<uint64_t, Keyed>> keyed_;  // by segment id, then key
  // A bound keeps a long sweep's memory flat.
  static constexpr size_t kMaxKeyed = 8192;
  size_t n_keyed_ = 0;
  std::string* out_ = nullptr;
  std::vector<char> buf_;  // the row being written
  char* cur_ = nullptr;    // its next byte
  char* end_ = nullptr;    // the end of buf_
  size_t col_ = 0;
};

}  // namespace llmsize::cli
