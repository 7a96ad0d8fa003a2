// Base64 (RFC 4648, with "=" padding), for the weights the attention page embeds.
#pragma once

#include <string>
#include <vector>

namespace minimt {

std::string base64_encode(const std::vector<unsigned char>& bytes);
// Stops at the first "="; throws Error on a character outside the alphabet.
std::vector<unsigned char> base64_decode(const std::string& text);

}  // namespace minimt
