// Small path helpers: model paths must stay inside the model directory.
#pragma once

#include <string>

namespace minimt {

// True for a non-empty relative path without '..' components.
bool is_safe_relative_path(const std::string& path);

// Joins a directory and a relative path with one '/'.
std::string join_path(const std::string& dir, const std::string& relative);

// Size in bytes of a regular file, or -1.
long long file_size(const std::string& path);

}  // namespace minimt
