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

  // The labels of one heatmap drawn with `cell`-pixel cells: their texts and the margins they
  // take (left: row pieces, top: column pieces, right: the pieces the rows predict). `ends`:
  // row labels only on the first heatmap of a row, predictions only on the last.
  // They depend on the cell size only through the font (9 to 13 px): kept per sentence and type.
  var boxes = {};
  function box(s, type, cell, labels, first, last) {
    var a = page.data.axes(s, type), font = fontFor(cell), any = labels !== 'none';
    var key = [s.number, type, font, labels, labels === 'each' || first, labels === 'each' || last].join('|');
    if (boxes[key]) return boxes[key];
    var made = { font: font, any: any, left: 0, top: 0, right: 0, rowText: null, colText: null, rightText: null };
    boxes[key] = made;
    if (!any) return made;
    made.colText = a.cols.map(function (t) { return fit(t, font); });
    made.top = widest(made.colText, font) + 6;
    if (labels === 'each' || first) {
      made.rowText = a.rows.map(function (t) { return fit(t, font); });
      made.left = widest(made.rowText, font) + 6;
    }
    if (a.right && (labels === 'each' || last)) {
      // Each predicted piece with its probability: how sure the model was of it (in each run).
      made.rightText = a.right.map(function (t, i) {
        if (a.rightRuns && i < a.rightRuns.a.length)
          return fit(t, font) + ' A ' + a.rightRuns.a[i].toFixed(2) + ' B ' + a.rightRuns.b[i].toFixed(2);
        return fit(t, font) + (a.rightProbs ? ' ' + a.rightProbs[i].toFixed(2) : '');
      });
      made.right = widest(made.rightText, font) + 18;
    }
    return made;
  }

  return { FONT_FAMILY: FONT_FAMILY, shown: shown, widest: widest, box: box, measurer: measurer };
}());
