// Drawing one heatmap into its figure's two canvases (cells and labels below; reading.js draws
// the hover outline above): the weights, or what the values menu picks (values.js; an
// attribution map: attribution.js), or two runs' difference (difference.js).
page.heatmap = (function () {
  var colours = page.colours;

  // Draws layer `layer`, head `head` (a position, or 'avg') of matrices `m` (type `type` of
  // sentence `s`) with `cell`-pixel cells, the labels of `box` (labels.js) and the colour scale
  // `mode`; keeps what reading a cell needs in figure.minimt.
  function draw(figure, s, type, m, layer, head, cell, box, mode) {
    var values = page.controls.state.values, shown = page.values.source(s, type, m, values) || m;
    if (shown === m && !m.attribution) values = 'weights';
    var ratio = window.devicePixelRatio || 1;
    var withLabels = box.any, font = box.font, rowText = box.rowText, colText = box.colText;
    var rightText = box.rightText, left = box.left, top = box.top, right = box.right;
    var width = left + m.cols * cell + right + 1, height = top + m.rows * cell + 1;
    var canvases = figure.querySelectorAll('canvas');
    var base = canvases[0], over = canvases[1];
    [base, over].forEach(function (c) {
      c.width = Math.round(width * ratio);
      c.height = Math.round(height * ratio);
      c.style.width = width + 'px';
      c.style.height = height + 'px';
    });
    var ctx = base.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, width, height);

    // The cells: one pixel each in a bitmap of rows x cols, scaled up without smoothing.
    var w = page.data.weights(m, layer, head), rows = m.rows, cols = m.cols;
    var drawn = shown === m ? w : page.data.weights(shown, layer, head);
    var colour = !m.difference ? page.values.painter(drawn, values, mode) :
        values === 'weights' ? page.difference.painter(mode) : page.difference.mapPainter(drawn, mode);
    var bitmap = document.createElement('canvas');
    bitmap.width = cols;
    bitmap.height = rows;
    var bctx = bitmap.getContext('2d'), image = bctx.createImageData(cols, rows);
    for (var i = 0; i < rows; i++)
      for (var j = 0; j < cols; j++) {
        var rgb = colour(drawn[i * cols + j]), p = 4 * (i * cols + j);
        image.data[p] = rgb[0]; image.data[p + 1] = rgb[1]; image.data[p + 2] = rgb[2]; image.data[p + 3] = 255;
      }
    bctx.putImageData(image, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(bitmap, left, top, cols * cell, rows * cell);
    if (m.lower) {  // the causal mask: keys after the query
      ctx.fillStyle = colours.maskFill(ctx);
      for (var r = 0; r < rows; r++)
        if (r + 1 < cols) ctx.fillRect(left + (r + 1) * cell, top + r * cell, (cols - r - 1) * cell, cell);
    }
    ctx.strokeStyle = '#9aa1ab';
    ctx.lineWidth = 1;
    ctx.strokeRect(left - 0.5, top - 0.5, cols * cell + 1, rows * cell + 1);
    if (withLabels) {
      ctx.font = font;
      ctx.fillStyle = '#1d2330';
      ctx.textBaseline = 'middle';
      ctx.textAlign = 'right';
      if (rowText) rowText.forEach(function (t, i) { ctx.fillText(t, left - 4, top + (i + 0.5) * cell); });
      if (rightText) {
        ctx.textAlign = 'left';
        ctx.fillStyle = '#7a5a00';
        rightText.forEach(function (t, i) {
          ctx.fillText('\u2192 ' + t, left + cols * cell + 4, top + (i + 0.5) * cell);
        });
        ctx.textBaseline = 'alphabetic';  // above the column: predicted or given (labels.js)
        ctx.fillText(box.rightName, left + cols * cell + 4, top - 4);
        ctx.fillStyle = '#1d2330';
      }
      ctx.save();
      ctx.textAlign = 'left';
      ctx.translate(left, top - 4);
      ctx.rotate(-Math.PI / 2);
      colText.forEach(function (t, j) { ctx.fillText(t, 0, (j + 0.5) * cell); });
      ctx.restore();
    }
    figure.minimt = { s: s, type: type, m: m, layer: layer, head: head, cell: cell, left: left, top: top,
                      width: width, height: height, ratio: ratio, w: w, drawn: drawn, values: values,
                      source: shown };
  }

  return { draw: draw };
}());
