// minimt heads' output: an aligned text table sorted by importance, JSON Lines or CSV.
#pragma once

#include <string>

#include "minimt/app/head_analysis.h"

namespace minimt {

std::string head_table_text(const HeadAnalysis& analysis);
std::string head_table_jsonl(const HeadAnalysis& analysis);
std::string head_table_csv(const HeadAnalysis& analysis);

}  // namespace minimt
