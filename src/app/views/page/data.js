// The page's data, as the C++ side writes it into #minimt-data (attention_page.cpp): the
// sentences with their tokens and packed weights, the attention types ("kinds"), and for
// minimt heads --view the analysis of the heads (data.heads). The other modules read it; only
// matrices() here adds to it, the weights it unpacks.
page.data = (function () {
  var DATA = JSON.parse(document.getElementById('minimt-data').textContent);
  // Per attention type (C++ writes them, from dump_schema.h and view_text.cpp): its names, the
  // texts of its section, and which of a sentence's token lists are its rows, columns and the
  // pieces right of the rows. Rollouts ("rollout": true) extend the type named by "of".
  var KINDS = {};
  DATA.kinds.forEach(function (k) { KINDS[k.type] = k; });

  // Base64 of little-endian IEEE single floats (encode_floats in attention_page.cpp): the weights
  // and the extras, every bit of the dump's values.
  function decodeFloats(b64) {
    var bin = atob(b64), view = new DataView(new ArrayBuffer(bin.length));
    for (var i = 0; i < bin.length; i++) view.setUint8(i, bin.charCodeAt(i));
    var out = new Float32Array(bin.length >> 2);
    for (var k = 0; k < out.length; k++) out[k] = view.getFloat32(4 * k, true);
    return out;
  }
  // The matrices of one sentence and type, unpacked on first use: [layer][head][row][col].
  function matrices(sentence, type) {
    return unpacked(sentence.attention[type], type, 0);
  }
  // One of a sentence's extras (--dump-scores, --dump-vectors, --dump-norms) by its dump key
  // ("cross_scores"), unpacked as matrices() does; null when the dump has none. A causal type's
  // scores hold the lower triangle: the cells above it are NaN here (the mask).
  function extra(sentence, key) {
    return sentence.inside ? unpacked(sentence.inside[key], key, NaN) : null;
  }
  // The attribution map of method `method` (--attribute) of a sentence beside attention type
  // `type`: of each output token to the source ('cross', [T][S]) or to the decoder input
  // ('decoder', [T][T], NaN for j > t: the dump's null), unpacked as matrices() does, with
  // m.attribution its method and m.about the method's entry (integrated gradients: steps, rule,
  // the completeness gaps); null when the sentence has none.
  function attribution(sentence, method, type) {
    var entry = sentence.attributions && sentence.attributions[method];
    var m = entry && entry[type === 'cross' ? 'source' : type === 'decoder' ? 'target' : null];
    if (!m) return null;
    m.attribution = method;
    m.about = entry;
    return unpacked(m, type, NaN);
  }
  // Each output token's completeness gap of integrated gradients' entry (or of one run's, "runs"
  // of a difference), as single floats; null without one.
  function gaps(entry) {
    if (!entry || !entry.gap) return null;
    if (!entry.gaps) entry.gaps = decodeFloats(entry.gap);
    return entry.gaps;
  }
  // The key of type `type`'s extra `suffix` ("_scores", "_queries", ...).
  function extraKey(type, suffix) {
    return KINDS[type].prefix + suffix;
  }
  // `packed` (m's weights as data.js receives them) as [layer][head][row][col], the cells above
  // the diagonal of a lower triangle set to `above`.
  function spread(m, packed, type, above) {
    var rows = m.rows, cols = m.cols, count = m.layers.length * m.heads.length;
    var full = new Float32Array(count * rows * cols), k = 0;
    if (m.lower && above !== 0) full.fill(above);
    for (var g = 0; g < count; g++)
      for (var i = 0; i < rows; i++) {
        var end = m.lower ? Math.min(i + 1, cols) : cols;
        for (var j = 0; j < end; j++) full[(g * rows + i) * cols + j] = packed[k++];
      }
    if (k !== packed.length) throw new Error('weights of ' + type + ' do not match their shape');
    return full;
  }
  // m unpacked into m.full, the cells above the diagonal of a lower triangle set to `above`. A
  // difference of two runs (minimt view A B: "difference") holds B - A; each run's weights, for
  // reading a cell, unpack into m.runs.a and m.runs.b.
  function unpacked(m, type, above) {
    if (!m) return null;
    if (!m.full) {
      m.full = spread(m, decodeFloats(m.f), type, above);
      if (m.difference)
        m.runs = { a: spread(m, decodeFloats(m.a), type, above), b: spread(m, decodeFloats(m.b), type, above) };
      m.averages = [];
    }
    return m;
  }

  // The head numbers of layer `layer` of m that --mask-heads switched off: in the dump's run, or
  // for a difference in run `run` ('a' or 'b').
  function maskedHeads(m, layer, run) {
    var masked = run ? m['masked_' + run] : m.masked;
    return masked && masked[layer] ? masked[layer] : [];
  }
  function isMasked(m, layer, head, run) {
    return maskedHeads(m, layer, run).indexOf(m.heads[head]) >= 0;
  }
  // The positions of the heads an average is over: those not masked; every head when all are
  // (their average is then 0, as each of theirs is). As AttentionMatrices::averaged_heads.
  function averagedHeads(m, layer, run) {
    var kept = [], all = [];
    for (var h = 0; h < m.heads.length; h++) {
      all.push(h);
      if (!isMasked(m, layer, h, run)) kept.push(h);
    }
    return kept.length ? kept : all;
  }
  // The mean over `heads` (positions) of layer `layer` of `full`, [rows][cols].
  function mean(m, full, layer, heads) {
    var size = m.rows * m.cols, H = m.heads.length, avg = new Float32Array(size);
    heads.forEach(function (h) {
      var base = (layer * H + h) * size;
      for (var x = 0; x < size; x++) avg[x] += full[base + x] / heads.length;
    });
    return avg;
  }
  // Weights of one heatmap: a head's, or the mean over the heads not masked. For a difference,
  // B's mean over its heads not masked minus A's over its own.
  function weights(m, layer, head) {
    var size = m.rows * m.cols, H = m.heads.length;
    if (head !== 'avg') return m.full.subarray((layer * H + head) * size, (layer * H + head + 1) * size);
    if (!m.averages[layer]) {
      if (m.difference) {
        var b = mean(m, m.runs.b, layer, averagedHeads(m, layer, 'b'));
        var a = mean(m, m.runs.a, layer, averagedHeads(m, layer, 'a'));
        for (var x = 0; x < size; x++) b[x] -= a[x];
        m.averages[layer] = b;
      } else {
        m.averages[layer] = mean(m, m.full, layer, averagedHeads(m, layer));
      }
    }
    return m.averages[layer];
  }
  // One run's weights of a heatmap of a difference ('a' or 'b'): a head's or its average.
  function runWeights(m, layer, head, run) {
    var size = m.rows * m.cols, H = m.heads.length, full = m.runs[run];
    if (head !== 'avg') return full.subarray((layer * H + head) * size, (layer * H + head + 1) * size);
    return mean(m, full, layer, averagedHeads(m, layer, run));
  }

  // Head numbers as text: "0, 1, 3".
  function numbers(list) { return list.join(', '); }
  // What a heatmap shows in words, as minimt show's titles say it: "head 2", "head 2 (ablated)",
  // "average of heads 0, 1, 3 (head 2 ablated, left out)"; for a difference, where each head
  // was ablated (--ablate-heads; "masked" is the causal mask's word), and the heads each run's
  // average is over when they differ.
  function headText(m, layer, head) {
    if (head !== 'avg') {
      var text = 'head ' + m.heads[head];
      if (!m.difference) return text + (isMasked(m, layer, head) ? ' (ablated)' : '');
      var inA = isMasked(m, layer, head, 'a'), inB = isMasked(m, layer, head, 'b');
      return text + (inA && inB ? ' (ablated in A and B)' : inA ? ' (ablated in A)' : inB ? ' (ablated in B)' : '');
    }
    function average(run) {
      var kept = averagedHeads(m, layer, run).map(function (h) { return m.heads[h]; });
      var masked = maskedHeads(m, layer, run);
      var out = 'head' + (kept.length === 1 ? ' ' : 's ') + numbers(kept);
      if (masked.length === m.heads.length) return out + ' (all ablated, every weight 0)';
      if (masked.length) out += ' (head' + (masked.length === 1 ? ' ' : 's ') + numbers(masked) + ' ablated, left out)';
      return out;
    }
    if (!m.difference) return 'average of ' + average();
    var a = average('a'), b = average('b');
    return a === b ? 'average of ' + a : 'average of B\u2019s ' + b + ' \u2212 A\u2019s ' + a;
  }
  // The token lists along the axes of one type of a sentence.
  function axes(sentence, type) {
    var k = KINDS[type];
    var probs = k.right && sentence.output_log_probs && sentence.output_log_probs.length ?
        sentence.output_log_probs.map(Math.exp) : null;
    var alternatives = k.right && sentence.alternatives && sentence.alternatives.length ?
        sentence.alternatives : null;
    // Two runs (minimt view A B): each one's probability of the piece predicted.
    var runs = k.right && sentence.run_log_probs ?
        { a: sentence.run_log_probs.a.map(Math.exp), b: sentence.run_log_probs.b.map(Math.exp) } : null;
    return { rows: sentence[k.rows], cols: sentence[k.cols], right: k.right ? sentence[k.right] : null,
             rightProbs: probs, rightRuns: runs, alternatives: alternatives, rowName: 'query',
             colName: 'key', given: k.right ? sentence.given_tokens || 0 : 0 };
  }

  return { all: DATA, sentences: DATA.sentences, kinds: DATA.kinds, kind: KINDS,
           matrices: matrices, extra: extra, attribution: attribution, gaps: gaps, extraKey: extraKey, weights: weights, axes: axes,
           runWeights: runWeights, headText: headText, isMasked: isMasked,
           difference: DATA.difference || null };
}());
