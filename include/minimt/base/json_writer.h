// The pieces of JSON that minimt writes by hand (attention dumps stream, JSON Lines records are
// built line by line): strings and floats, written the same way everywhere.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace minimt {

// A JSON string literal: quotes and backslashes escaped, every control character U+0000-U+001F
// escaped (\n, \t, ... or \u00XX), other UTF-8 left as is, each invalid UTF-8 byte sequence
// replaced by U+FFFD (so the output is always valid JSON).
void append_json_string(std::string& out, const std::string& text);
void write_json_string(std::ostream& out, const std::string& text);
std::string json_string(const std::string& text);

// The shortest decimal that reads back as the same float. JSON has no NaN or infinity: those
// are written as null, so readers see "no value" rather than a document they cannot parse.
void append_json_float(std::string& out, float value);
void write_json_float(std::ostream& out, float value);

// `value` with `decimals` digits after the point, as printf's %.*f writes it; null if not finite.
void append_json_fixed(std::string& out, double value, int decimals);

// A whole document for a <script type="application/json"> element: as json_string for strings,
// and no "<" anywhere (written \u003c), so no "</script>" or "<!--" can end the element early.
// DEL, the C1 controls U+0080-009F and the noncharacters (U+FDD0-FDEF, U+xFFFE, U+xFFFF), which
// HTML does not allow raw in a page, are written as \uXXXX escapes too.
std::string json_for_script(const nlohmann::json& value);

}  // namespace minimt
