// A hand-rolled writer of report rows as CSV or JSON Lines, byte for byte what render_csv() and
// render_json() print for the same values (nlohmann's number format, fmt-free), fast enough for
// sweeps of millions of rows: cells are appended to one growing buffer, column names and JSON
// punctuation are precomputed per column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmsize::cli {

enum class RowFormat { csv, jsonl };

class RowWriter {
 public:
  // `columns` are dotted JSON paths ("vram.total_bytes"); a path has at most one dot, and the
  // columns of one group are contiguous, as in the main command's JSON.
  RowWriter(RowFormat format, std::vector<std::string> columns);

  RowFormat format() const { return format_; }
  const std::vector<std::string>& columns() const { return columns_; }
  // The CSV header line (empty for JSON Lines, which names each value).
  std::string header() const;

  // Starts a row at the end of `out`.
  void begin(std::string& out) {
    out_ = &out;
    col_ = 0;
  }
  // Each call writes the next column.
  void null();
  // The column is absent from this row (the main command's JSON omits the key): an empty CSV cell,
  // nothing in JSON. REQUIRES: not the first column of its group.
  void skip();
  void boolean(bool v);
  void u64(uint64_t v);
  void f64(double v);  // nlohmann's shortest round-trip format: 0.2, 1000.0; NaN/inf as null
  // Text: in CSV a cell starting with = + - @ is neutralised (csv_text_cell), as render_csv does.
  void str(std::string_view v);
  // A number already formatted (JSON's text of it), written as it is.
  void number_text(std::string_view v);
  void str_or_null(std::string_view v) { v.empty() ? null() : str(v); }
  // An array of strings: JSON array; CSV cell of the items joined by "; " (render_csv's flatten).
  void strs(const std::string_view* items, size_t n);
  // Text written earlier by a writer of the same format and columns for columns [col(), col() + n).
  void segment(std::string_view text, size_t n) {
    out_->append(text);
    col_ += n;
  }
  // Closes the row with a newline. REQUIRES: every column written.
  void end();

  size_t col() const { return col_; }
  size_t size() const { return columns_.size(); }
  // The index of a column by name; throws std::logic_error when absent.
  size_t index(std::string_view name) const;

 private:
  void lead() { out_->append(leads_[col_++]); }
  void write_f64(double v);
  void append_json_string(std::string_view v);

  RowFormat format_;
  std::vector<std::string> columns_;
  std::vector<std::string>
      leads_;  // what precedes each value: "," or ",\"key\":" or "},\"group\":{\"key\":"
  std::string tail_;
  // The last number written in each column and its text: rows of a sweep repeat most values.
  std::vector<double> last_f64_;
  std::vector<std::string> last_f64_text_;
  std::string* out_ = nullptr;
  size_t col_ = 0;
};

// One CSV cell: quoted (quotes doubled) when it holds a comma, a quote or a newline.
std::string csv_cell(const std::string& s);

// Appends v in decimal.
void append_u64(std::string& out, uint64_t v);

}  // namespace llmsize::cli
