// The platform catalog (data/platforms.json, compiled in at build time; or a user file): machines
// as vendors ship them, read into PlatformModel.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "llmsize/machine/platform.hpp"

namespace llmsize {

// Parses a platforms document {"platforms": [...], "platforms_incomplete": [...]}. Throws
// InputError naming `where`, the JSON path of the bad field and what was expected:
// "FILE: /platforms/2/psu/redundancy: ...". Incomplete rows that lack what the selection needs are
// left out, their errors appended to `skipped` when given.
std::vector<PlatformModel> read_platforms(std::string_view text, const std::string& where,
                                          std::vector<std::string>* skipped = nullptr);
// Reads a file.
std::vector<PlatformModel> read_platforms_file(const std::string& path);
// The catalog compiled into the binary (data/platforms.json, validated by the build), built on the
// first call (src/io/builtin_catalog.cpp).
const std::vector<PlatformModel>& builtin_platforms();

// By id, case-insensitively; nullptr when absent.
const PlatformModel* find_platform(const std::vector<PlatformModel>& catalog, std::string_view id);
// " (did you mean a, b?)" for an unknown id, or "".
std::string suggest_platform(const std::vector<PlatformModel>& catalog, std::string_view id);

}  // namespace llmsize
