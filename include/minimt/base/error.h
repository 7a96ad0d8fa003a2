// Error types thrown by the library. main.cpp turns them into one line on stderr and an exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace minimt {

// Base of every error minimt reports to a user.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A model directory that does not follow format v1. The message names the file and, where
// there is one, the config key or tensor name.
class ModelError : public Error {
 public:
  ModelError(const std::string& file, const std::string& what)
      : Error(file + ": " + what), file_(file) {}
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// Input text that cannot be translated (for example invalid UTF-8); affects one sentence only.
class InputError : public Error {
 public:
  using Error::Error;
};

// A file minimt was asked to read or write and could not.
class IoError : public Error {
 public:
  using Error::Error;
};

}  // namespace minimt
