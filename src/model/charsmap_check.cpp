#include "minimt/model/charsmap_check.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "minimt/base/utf8.h"

namespace minimt {
namespace {

// A unit of the double array, as darts-clone packs it in 32 bits.
struct Unit {
  uint32_t bits;
  bool has_leaf() const { return (bits >> 8) & 1; }
  uint32_t value() const { return bits & 0x7fffffffu; }  // in a leaf unit
  uint32_t label() const { return bits & 0x800000ffu; }  // a leaf's has the top bit set
  uint32_t offset() const { return (bits >> 10) << ((bits & (1u << 9)) >> 6); }  // to children
};

uint32_t load_u32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
}

// The replacement strings: each valid UTF-8 and ended by a NUL.
std::string strings_problem(std::string_view strings) {
  if (strings.empty()) return "";
  if (strings.back() != '\0') return "its replacement strings do not end with a NUL byte";
  size_t start = 0;
  while (start < strings.size()) {
    const size_t end = strings.find('\0', start);
    const std::string text(strings.substr(start, end - start));
    if (const long long bad = find_invalid_utf8(text); bad >= 0)
      return "its replacement string at byte " + std::to_string(start) +
             " is not valid UTF-8 (at its byte " + std::to_string(bad) + ")";
    start = end + 1;
  }
  return "";
}

// A set of byte labels, 256 bits.
struct LabelSet {
  uint64_t words[4] = {0, 0, 0, 0};
  void add(uint32_t label) { words[label >> 6] |= uint64_t{1} << (label & 63); }
  // The smallest label >= `from` in the set, or 256.
  int next(int from) const {
    for (int w = from >> 6; w < 4; ++w) {
      const uint64_t left = from > w * 64 ? words[w] & (~uint64_t{0} << (from & 63)) : words[w];
      if (left) return w * 64 + __builtin_ctzll(left);
    }
    return 256;
  }
};

class TrieCheck {
 public:
  TrieCheck(std::string_view trie, std::string_view strings)
      : trie_(trie), strings_(strings), units_(trie.size() / 4) {}

  // Depth-first over every unit an input can reach from the root, each once (darts-clone shares
  // the units of equal suffixes, so the trie is a graph without cycles, not a tree).
  std::string run() {
    state_.assign(units_, kNew);
    below_.assign(units_, 0);
    make_parent_keys();
    if (std::string problem = enter(0); !problem.empty()) return problem;
    while (!stack_.empty()) {
      const size_t top = stack_.size() - 1;  // by index: enter() may move the stack
      const uint32_t base = stack_[top].base;
      int label = stack_[top].children.next(stack_[top].next_label);
      for (; label < 256; label = stack_[top].children.next(label + 1)) {
        const uint32_t child = base ^ static_cast<uint32_t>(label);
        if (state_[child] == kOpen)
          return "its trie leads back to unit " + std::to_string(child) +
                 ", a loop (a trie SentencePiece builds has none)";
        if (state_[child] == kDone) {
          note_child(stack_[top], child);
          continue;
        }
        stack_[top].next_label = label + 1;
        if (std::string problem = enter(child); !problem.empty()) return problem;
        break;
      }
      if (label < 256) continue;  // went down to a child; this node resumes after it
      const Frame done = stack_.back();
      state_[done.node] = kDone;
      below_[done.node] = done.best;
      stack_.pop_back();
      if (!stack_.empty()) note_child(stack_.back(), done.node);
    }
    if (below_[0] > kMaxCharsmapMatches)
      return "its trie has an input with more than " + std::to_string(kMaxCharsmapMatches) +
             " matching rules (SentencePiece keeps " + std::to_string(kMaxCharsmapMatches) + ")";
    return "";
  }

 private:
  enum State : uint8_t { kNew, kOpen, kDone };
  struct Frame {
    uint32_t node, base;
    LabelSet children;  // the labels of the node's children
    int next_label;
    uint8_t best;  // the most leaves on a path below the node, so far
  };
  static constexpr uint16_t kNoParent = 0x100;  // a key no base's low byte equals

  std::string_view trie_, strings_;
  size_t units_;
  std::vector<uint8_t> state_, below_;  // per unit; below_ capped past the limit
  // Per unit u: the low byte a node's base must have for u to be its child, or kNoParent.
  std::vector<uint16_t> parent_keys_;
  std::vector<Frame> stack_;

  Unit unit(uint32_t index) const { return Unit{load_u32(trie_.data() + 4 * size_t{index})}; }

  // Unit u is the child of a node with base b when u = b ^ label and u's label is that label:
  // (u's label) ^ (u & 0xff) == (b & 0xff), with the label's top bit clear. Computed once, so
  // a node's 256 candidates are one comparison each (the old walk decoded every unit anew, 256
  // per node: most of the time minimt took to open a model with a normalization rule).
  void make_parent_keys() {
    parent_keys_.resize(units_);
    for (size_t u = 0; u < units_; ++u) {
      const uint32_t label = unit(static_cast<uint32_t>(u)).label();
      parent_keys_[u] = label > 0xffu ? kNoParent : static_cast<uint16_t>(label ^ (u & 0xffu));
    }
  }

  LabelSet children_of(uint32_t base) const {
    const uint16_t* block = parent_keys_.data() + (base & ~0xffu);
    const uint16_t want = static_cast<uint16_t>(base & 0xffu);
    uint8_t is_child[256];
    for (int i = 0; i < 256; ++i) is_child[i] = block[i] == want;  // vectorised
    LabelSet children;
    for (int i = 0; i < 256; i += 8) {  // most nodes have a few children: skip 8 at a time
      uint64_t eight;
      std::memcpy(&eight, is_child + i, 8);
      if (eight == 0) continue;
      for (int j = i; j < i + 8; ++j)
        if (is_child[j]) children.add(static_cast<uint32_t>(j) ^ want);
    }
    return children;
  }

  void note_child(Frame& frame, uint32_t child) {
    const int path = below_[child] + (unit(child).has_leaf() ? 1 : 0);
    frame.best = static_cast<uint8_t>(std::min(std::max<int>(frame.best, path), 255));
  }

  // Opens `node`: every unit its children can be read from lies inside the array (a walk reads
  // base ^ byte for any input byte), and its leaf, if any, names a replacement string.
  std::string enter(uint32_t node) {
    const uint32_t base = node ^ unit(node).offset();
    if ((base | 0xffu) >= units_)
      return "its trie's unit " + std::to_string(node) + " points to units " +
             std::to_string(base & ~0xffu) + " to " + std::to_string(base | 0xffu) +
             ", past the trie's " + std::to_string(units_) + " units";
    if (node != 0 && unit(node).has_leaf()) {
      const uint32_t at = unit(base).value();
      if (at >= strings_.size() || (at > 0 && strings_[at - 1] != '\0'))
        return "its trie's unit " + std::to_string(node) + " names replacement byte " +
               std::to_string(at) + ", which does not start one of its " +
               std::to_string(strings_.size()) + " bytes of replacement strings";
    }
    state_[node] = kOpen;
    stack_.push_back(Frame{node, base, children_of(base), 0, 0});
    return "";
  }
};

// The size, the replacement strings, then every unit an input can reach.
std::string trie_and_strings_problem(std::string_view blob) {
  if (blob.size() < 4)
    return "it is " + std::to_string(blob.size()) + " bytes, too short to hold its trie's size";
  const uint32_t trie_bytes = load_u32(blob.data());
  if (trie_bytes > blob.size() - 4)
    return "it claims a trie of " + std::to_string(trie_bytes) + " bytes but holds " +
           std::to_string(blob.size() - 4) + " after the size";
  if (trie_bytes % 4 != 0 || trie_bytes < 4 * 256)
    return "it claims a trie of " + std::to_string(trie_bytes) +
           " bytes, not a whole number of 4-byte units, at least 256";
  const std::string_view strings = blob.substr(4 + trie_bytes);
  if (std::string problem = strings_problem(strings); !problem.empty()) return problem;
  return TrieCheck(blob.substr(4, trie_bytes), strings).run();
}

// The last charsmap found sound: a model's two tokenizers usually carry the same one (byte for
// byte), so the second check is a comparison.
std::mutex last_sound_mutex;
std::string last_sound;

}  // namespace

std::string charsmap_problem(std::string_view blob) {
  if (blob.empty()) return "";  // no charsmap: SentencePiece leaves the text as it is
  {
    const std::lock_guard<std::mutex> lock(last_sound_mutex);
    if (blob == last_sound) return "";
  }
  std::string problem = trie_and_strings_problem(blob);
  if (problem.empty()) {
    const std::lock_guard<std::mutex> lock(last_sound_mutex);
    last_sound.assign(blob);
  }
  return problem;
}

}  // namespace minimt
