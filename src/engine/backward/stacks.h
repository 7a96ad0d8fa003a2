// The encoder and decoder stacks over the tape (tape.h): forward for V variants of one sentence,
// keeping each layer's tape, and backward for B seeds per variant, layer by layer in reverse.
#pragma once

#include <vector>

#include "engine/backward/tape.h"
#include "minimt/engine/head_mask.h"

namespace minimt::backward {

struct StackTape {
  std::vector<LayerTape> layers;
  NormTape final_norm;
  std::vector<float> bias_table;  // T5's relative-position bias, [H][2N-1]
};

// x [V*S, d]: the embedded source rows (positions and embedding norm done) in, the encoder
// output out.
void encoder_forward(const DenseModel& m, const HeadMask* mask, int variants, int length, float* x,
                     StackTape& tape, Scratch& z);
// dx [V*B*S, d]: the gradient with respect to the encoder output in, with respect to the
// embedded source rows out.
void encoder_backward(const DenseModel& m, const StackTape& tape, const GradShape& shape, float* dx,
                      Scratch& z);

// y [V*T, d]: the embedded decoder inputs in, the decoder output (final norm done, before the
// output scale) out; memory [V*S, d] the encoder output.
void decoder_forward(const DenseModel& m, const HeadMask* mask, int variants, int length,
                     const float* memory, int source_length, float* y, StackTape& tape, Scratch& z);
// dy [V*B*T, d] in, with respect to the embedded decoder inputs out; dmemory [V*B*S, d]
// accumulated (the gradient with respect to the encoder output).
void decoder_backward(const DenseModel& m, const StackTape& tape, const GradShape& shape, float* dy,
                      float* dmemory, Scratch& z);

}  // namespace minimt::backward
