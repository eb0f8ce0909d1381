// The platform catalog (data/platforms.json, embedded at build time; or a user file): machines as
// vendors ship them, read into PlatformModel.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "llmsize/platform.hpp"

namespace llmsize {

// Parses a platforms document {"platforms": [...]}. Throws InputError naming `where`, the JSON path
// of the bad field and what was expected: "FILE: /platforms/2/psu/redundancy: ...".
std::vector<PlatformModel> read_platforms(std::string_view text, const std::string& where);
// Reads a file.
std::vector<PlatformModel> read_platforms_file(const std::string& path);

// By id, case-insensitively; nullptr when absent.
const PlatformModel* find_platform(const std::vector<PlatformModel>& catalog, std::string_view id);
// " (did you mean a, b?)" for an unknown id, or "".
std::string suggest_platform(const std::vector<PlatformModel>& catalog, std::string_view id);

}  // namespace llmsize
