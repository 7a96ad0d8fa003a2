// What the heatmaps show (the header's "values" menu): the weights, the scores the softmax read
// (--dump-scores: signed, each map on the diverging scale up to its own largest magnitude, the
// causal mask hatched), or weight x norm, ||a_ij v_j W_O^h|| (--dump-norms: what key j adds to
// query i through the head, Kobayashi et al. 2020; each map up to its own largest).
// The attributions (--attribute: each output token's, per method; attribution.js draws them)
// follow, those some sentence holds.
page.values = (function () {
  var SUFFIX = { scores: '_scores', norms: '_weighted_norms' };
  var NAMES = { weights: 'weights', scores: 'scores (before the softmax)', norms: 'weight \u00d7 norm',
                saliency: 'attribution: saliency', input_x_gradient: 'attribution: input \u00d7 gradient',
                integrated_gradients: 'attribution: integrated gradients', occlusion: 'attribution: occlusion' };
  // The methods in the engine's order (kAttributionMethodNames); saliency is a magnitude, the
  // others are signed.
  var METHODS = ['saliency', 'input_x_gradient', 'integrated_gradients', 'occlusion'];
  function isAttribution(mode) { return METHODS.indexOf(mode) >= 0; }

  // The views some sentence of the data can draw, weights first.
  function available() {
    var out = ['weights'];
    ['scores', 'norms'].forEach(function (mode) {
      var found = page.data.sentences.some(function (s) {
        return s.inside && Object.keys(s.inside).some(function (key) { return key.slice(-SUFFIX[mode].length) === SUFFIX[mode]; });
      });
      if (found) out.push(mode);
    });
    METHODS.forEach(function (method) {
      if (page.data.sentences.some(function (s) { return s.attributions && s.attributions[method]; }))
        out.push(method);
    });
    return out;
  }

  // The matrices a heatmap of `type` draws in view `mode`: its weights `m`, or that extra of
  // sentence `s` (null if the sentence lacks it). Rollouts are always weights.
  function source(s, type, m, mode) {
    if (m.attribution) return m;
    if (mode === 'weights' || !mode || m.rollout || !page.data.kind[type].prefix) return m;
    return page.data.extra(s, page.data.extraKey(type, SUFFIX[mode]));
  }

  // The colour of a value x of map `w` drawn in view `mode` on colour scale `scale`.
  function painter(w, mode, scale) {
    if (mode === 'weights') return function (x) { return page.colours.sequential(x, scale); };
    var top = 0;
    for (var i = 0; i < w.length; i++) if (isFinite(w[i])) top = Math.max(top, Math.abs(w[i]));
    if (mode === 'scores') return function (x) { return page.colours.diverging(x, top); };
    // An attribution: saliency up to the map's largest, the signed methods on the diverging
    // scale up to its largest magnitude; the causal mask (NaN) is drawn over.
    if (mode === 'saliency')
      return function (x) { return isFinite(x) ? page.colours.sequential(top > 0 ? x / top : 0, scale) : [255, 255, 255]; };
    if (isAttribution(mode)) return function (x) { return page.colours.diverging(x, top); };
    return function (x) { return page.colours.sequential(top > 0 ? x / top : 0, scale); };
  }

  return { available: available, source: source, painter: painter, isAttribution: isAttribution,
           signed: function (mode) { return mode === 'scores' || (isAttribution(mode) && mode !== 'saliency'); }, name: function (mode) { return NAMES[mode]; },
           suffix: function (mode) { return SUFFIX[mode]; } };
}());
