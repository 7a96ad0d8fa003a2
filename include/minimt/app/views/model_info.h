// What minimt info says of a model and of the kernels that run it here, as (label, text) pairs
// in the order printed: the CLI prints each as a line, Python's Model.info is a dict of them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "minimt/model/model.h"

namespace minimt {

// Labels: model, architecture, d_model, heads, d_ff, positions, embeddings, vocabulary,
// special ids, parameters, format 2 and generation (when the model has them), then one "task"
// per task of its generation block and one "file" per file, then blas core, blas threads,
// linear layers, kernels here, row kernels, attention, compute types. blas_core_type is
// $OPENBLAS_CORETYPE as the front end read it ("" when unset). Names from the file system and
// the environment are given through visible_text.
std::vector<std::pair<std::string, std::string>> model_info(const Model& model,
                                                            const std::string& blas_core_type);

}  // namespace minimt
