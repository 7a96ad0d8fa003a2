// The row of dump_keys.cpp's table for a sentence's attributions (--attribute): recorded from
// the translation's AttributionResult, written as attributions.h's JSON object, read back with
// every shape, null and number checked.
#pragma once

#include "app/record/dump_keys.h"

namespace minimt::dump_keys {

void record_attributions(const Recording& r, const Slot& slot, DumpSentence& s);
void write_attributions(std::ostream& out, const Slot& slot, const DumpSentence& s);
void read_attributions(const nlohmann::json* value, const Reading& r, const Slot& slot,
                       DumpSentence& s);

}  // namespace minimt::dump_keys
