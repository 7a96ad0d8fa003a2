// Model paths and files: every file a model names must stay inside the model directory, and
// be a regular file, before minimt opens it.
#pragma once

#include <cstddef>
#include <string>

namespace minimt {

// True for a non-empty relative path without '..' components.
bool is_safe_relative_path(const std::string& path);

// Joins a directory and a relative path with one '/'.
std::string join_path(const std::string& dir, const std::string& relative);

// Size in bytes of a regular file, or -1.
long long file_size(const std::string& path);

// join_path(dir, relative), checked: after following symlinks it must lie inside the model
// directory (after following its own) and be a regular file. Throws ModelError naming that
// path, the real path it resolves to, and `named_by` (e.g. "config.json key 'weights'", or ""
// for config.json itself). Nothing is opened, so a FIFO cannot block.
std::string model_file(const std::string& dir, const std::string& relative,
                       const std::string& named_by);

// The whole of a regular file of at most max_bytes, opened without blocking (a FIFO is
// refused, not waited on). Throws ModelError naming the path and the limit.
std::string read_regular_file(const std::string& path, size_t max_bytes);

}  // namespace minimt
