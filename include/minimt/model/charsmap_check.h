// SentencePiece's precompiled charsmap (NormalizerSpec.precompiled_charsmap): a 4-byte
// little-endian trie size, a darts-clone double-array trie of that many bytes (4-byte units),
// then the replacement strings, each ended by a NUL. SentencePiece's normalizer walks the trie
// over every input byte without a bounds check, keeps at most 32 matches per input position on
// the stack, and reads each replacement up to its NUL; so a crafted charsmap reads memory that
// is not its own. This checks, before SentencePiece sees it, every unit any input can reach.
#pragma once

#include <string>
#include <string_view>

namespace minimt {

// The most matches SentencePiece's normalizer keeps for one input position (its stack array).
constexpr int kMaxCharsmapMatches = 32;

// "" when SentencePiece can use the charsmap safely, else what is wrong with it.
std::string charsmap_problem(std::string_view blob);

}  // namespace minimt
