// OutputFile: a file written under a temporary name in its own directory and renamed over the
// real one by commit(), so that a run that fails or is killed midway leaves the file as it was
// (or absent), never half written. Targets that are not regular files (/dev/null, a FIFO, a
// terminal) are written in place: renaming over them would replace the device itself, and so is
// "-", standard output.
#pragma once

#include <csignal>
#include <ostream>
#include <streambuf>
#include <string>

namespace minimt {

// The file that creating `path` would write: symbolic links followed, dangling ones too.
std::string output_target(const std::string& path);

// A temporary file (or, with `folder`, a folder of files) that the signal handler removes if a
// signal ends the run before forget_temporary(slot): SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE,
// SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGVTALRM and SIGPROF, those that end a process by default
// and can be caught. Returns the slot, -1 when
// all are taken (then only the clean-up on those signals is lost).
int remember_temporary(const std::string& path, bool folder);
void forget_temporary(int slot);

// While one lives, those signals wait (blocked in this thread): hold one from
// creating a temporary until remember_temporary knows it, or an interrupt between the two
// leaves it behind. A signal that came meanwhile is delivered when it ends.
class SignalsHeld {
 public:
  SignalsHeld();
  ~SignalsHeld();
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t previous_;
};

class OutputFile {
 public:
  // Creates the temporary file (mode 0666 & ~umask, or the mode of the file it will replace).
  // Throws IoError "cannot write PATH: REASON" when `path` could not be written, as opening it
  // would have: a missing directory, a directory, a read-only file.
  explicit OutputFile(const std::string& path);
  ~OutputFile();  // without commit(): removes the temporary file
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }  // as given, for messages
  // Writes all of `text`; throws IoError naming path() on failure.
  void write(const std::string& text);
  // Syncs, closes and renames into place; throws IoError. Once only.
  void commit();

 private:
  std::string path_, target_, temporary_;  // temporary_ empty: written in place
  int fd_ = -1;
  int slot_ = -1;  // in the list of temporaries removed on SIGINT/SIGTERM/SIGHUP
  bool committed_ = false;
};

// An ostream over an OutputFile (buffered); errors set badbit, which the owner checks.
class OutputFileStream : public std::ostream {
 public:
  explicit OutputFileStream(OutputFile& file);
  ~OutputFileStream() override;

 private:
  class Buffer : public std::streambuf {
   public:
    explicit Buffer(OutputFile& file);
    ~Buffer() override { sync(); }

   protected:
    int_type overflow(int_type c) override;
    int sync() override;

   private:
    OutputFile& file_;
    char data_[1 << 16];
  };
  Buffer buffer_;
};

}  // namespace minimt
