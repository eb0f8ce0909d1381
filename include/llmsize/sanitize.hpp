// Untrusted text shown to a person (a GGUF general.name, a config.json model_type, a MODEL
// argument, a JSON value in an error message): one helper, so no escape sequence reaches a terminal
// and no argument of 100 KB comes back whole. JSON output escapes strings itself and needs none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace llmsize {

// A code point sanitize() escapes beyond C0 and DEL: a C1 control, a bidirectional control or
// another default-ignorable (one table, src/sanitize.cpp, with the lists it comes from).
bool invisible_code_point(uint32_t cp);

// True when a code point of `s` satisfies `pred`, or a byte of it is not UTF-8.
bool any_code_point(std::string_view s, bool (*pred)(uint32_t));

// True when sanitize(s) would change `s`: it holds a control, invisible or non-UTF-8 character.
bool needs_sanitizing(std::string_view s);

// Bytes of an untrusted string kept by default before it is cut.
constexpr size_t kSanitizeMaxBytes = 120;

// `s` made safe to print: C0 control characters and DEL become \n, \t, \r or \xNN (ESC is
// \x1b), bytes that are not UTF-8 become \xNN, and every invisible_code_point()
// (C1 controls, every bidirectional control and other default-ignorable) become \u{XXXX}.
// Backslashes stay as they are, so sanitizing twice changes nothing. Longer than `max_bytes` once
// escaped, it is cut at a character boundary and ends in "... (N bytes)" with the original length.
std::string sanitize(std::string_view s, size_t max_bytes = kSanitizeMaxBytes);

// "\"" + sanitize(s) + "\"".
std::string sanitize_quoted(std::string_view s, size_t max_bytes = kSanitizeMaxBytes);

// True when a spreadsheet would run a text cell starting with `first` as a formula (= + - @) or
// act on its leading tab or carriage return (OWASP "CSV injection").
bool csv_formula_start(char first);

// A text cell of CSV, the one writer every CSV output's text goes through: a leading apostrophe
// when it starts as csv_formula_start() says, then inside double quotes (each quote doubled,
// RFC 4180 2.6-2.7) when it holds a comma, a quote, LF or CR. Numbers are written unchanged by
// the caller; this is for text cells only.
std::string csv_text_cell(std::string_view cell);

}  // namespace llmsize
