// The token labels of the heatmaps: fitting a piece into the label margin, measuring labels,
// and the label box of a heatmap (its texts and the margins they take).
page.labels = (function () {
  var LABEL_MAX_PX = 120;
  var FONT_FAMILY = '"DejaVu Sans", "Segoe UI", "Helvetica Neue", Arial, sans-serif';
  var measurer = document.createElement('canvas').getContext('2d');

  function shown(token) { return token === '' ? '\u2205' : token; }
  function fit(token, font) {
    measurer.font = font;
    var text = shown(token);
    if (measurer.measureText(text).width <= LABEL_MAX_PX) return text;
    while (text.length > 1 && measurer.measureText(text + '\u2026').width > LABEL_MAX_PX)
      text = text.slice(0, -1);
    return text + '\u2026';
  }
  // The width in pixels of the widest of `labels` in `font`, rounded up.
  function widest(labels, font) {
    measurer.font = font;
    var w = 0;
    for (var i = 0; i < labels.length; i++) w = Math.max(w, measurer.measureText(labels[i]).width);
    return Math.ceil(w);
  }
  function fontFor(cell) { return Math.max(9, Math.min(13, cell - 1)) + 'px ' + FONT_FAMILY; }

  // Output position i of axes `a` (data.axes): whether its piece was given to the decoder
  // (score's target, a prefix: teacher forcing) and, if so and the model's own most likely piece
  // differs, that piece ({token, probability}, from the dump's alternatives).
  function output(a, i) {
    var given = i < a.given, top = a.alternatives && a.alternatives[i] && a.alternatives[i][0];
    return { given: given, model: given && top && top.token !== a.right[i] ? top : null };
  }
  // The heading of the pieces right of the rows: what the model predicted, or what it was given.
  function outputName(a) {
    return !a.given ? 'predicted' : a.given >= a.right.length ? 'target (given)' : 'given, then predicted';
  }

  // The labels of one heatmap drawn with `cell`-pixel cells: their texts and the margins they
  // take (left: row pieces, top: column pieces, right: the pieces the rows predict). `ends`:
  // row labels only on the first heatmap of a row, predictions only on the last.
  // They depend on the cell size only through the font (9 to 13 px): kept per sentence and type.
  var boxes = {};
  function box(s, type, cell, labels, first, last) {
    var a = page.data.axes(s, type), font = fontFor(cell), any = labels !== 'none';
    var key = [s.number, type, font, labels, labels === 'each' || first, labels === 'each' || last].join('|');
    if (boxes[key]) return boxes[key];
    var made = { font: font, any: any, left: 0, top: 0, right: 0, rowText: null, colText: null, rightText: null,
                 rightName: null };
    boxes[key] = made;
    if (!any) return made;
    made.colText = a.cols.map(function (t) { return fit(t, font); });
    made.top = widest(made.colText, font) + 6;
    if (labels === 'each' || first) {
      made.rowText = a.rows.map(function (t) { return fit(t, font); });
      made.left = widest(made.rowText, font) + 6;
    }
    if (a.right && (labels === 'each' || last)) {
      // Each piece with the model's probability of it (in each run); a given piece with the
      // model's own choice where it differs. A probability that is not 0 never reads 0.
      var nonzero = page.numbers.nonzero;
      made.rightText = a.right.map(function (t, i) {
        if (a.rightRuns && i < a.rightRuns.a.length)
          return fit(t, font) + ' A ' + nonzero(a.rightRuns.a[i], 2) + ' B ' + nonzero(a.rightRuns.b[i], 2);
        var text = fit(t, font) + (a.rightProbs ? ' ' + nonzero(a.rightProbs[i], 2) : ''), o = output(a, i);
        return o.model ? text + ' \u00b7 model: ' + fit(o.model.token, font) + ' ' + nonzero(o.model.probability, 2) : text;
      });
      made.rightName = outputName(a);
      made.right = Math.max(widest(made.rightText, font) + 18, widest([made.rightName], font) + 6);
    }
    return made;
  }

  return { FONT_FAMILY: FONT_FAMILY, shown: shown, widest: widest, box: box, measurer: measurer, output: output,
           outputName: outputName };
}());
