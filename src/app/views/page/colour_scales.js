// The colours of every view, from the one definition of them (colour_scales.json, embedded in
// the page as #minimt-colour-scales; the SVG writer reads the same file): the sequential scale
// of weights, the diverging scale of signed values, and the hatching of masked cells.
page.colours = (function () {
  var SCALES = JSON.parse(document.getElementById('minimt-colour-scales').textContent);

  // Between the evenly spaced `stops` at x (0 to 1), rounded to whole channel values.
  function between(stops, x) {
    var f = x * (stops.length - 1), i = Math.min(stops.length - 2, Math.floor(f)), t = f - i;
    var a = stops[i], b = stops[i + 1];
    return [Math.round(a[0] + (b[0] - a[0]) * t), Math.round(a[1] + (b[1] - a[1]) * t),
            Math.round(a[2] + (b[2] - a[2]) * t)];
  }

  // The colour of a weight w (0 to 1); `mode` 'sqrt' stretches the small ones.
  function sequential(w, mode) {
    var x = Math.max(0, Math.min(1, w));
    if (mode === 'sqrt') x = Math.sqrt(x);
    return between(SCALES.sequential.stops, x);
  }

  // The colour of a signed value over `scale` (the largest magnitude shown): red below 0, blue
  // above, white at 0 and for a value that is not finite.
  function diverging(value, scale) {
    if (!(scale > 0) || !isFinite(value)) return [255, 255, 255];
    var side = value < 0 ? SCALES.diverging.below : SCALES.diverging.above;
    return between(side, Math.min(1, Math.abs(value) / scale));
  }

  // The diverging scale from its most negative end to its most positive one, for a legend.
  function divergingStops() {
    return SCALES.diverging.below.slice().reverse().concat(SCALES.diverging.above.slice(1));
  }

  function css(rgb) { return 'rgb(' + rgb.join(',') + ')'; }

  var maskTile = null;
  // A pattern for `ctx` that fills masked cells with the hatching.
  function maskFill(ctx) {
    if (!maskTile) {
      var mask = SCALES.mask, size = mask.tile;
      maskTile = document.createElement('canvas');
      maskTile.width = maskTile.height = size;
      var t = maskTile.getContext('2d');
      t.fillStyle = mask.fill;
      t.fillRect(0, 0, size, size);
      t.strokeStyle = mask.stroke;
      t.lineWidth = mask.stroke_width;
      t.beginPath();
      mask.lines.forEach(function (l) { t.moveTo(l[0], l[1]); t.lineTo(l[2], l[3]); });
      t.stroke();
    }
    return ctx.createPattern(maskTile, 'repeat');
  }

  return { sequential: sequential, diverging: diverging, divergingStops: divergingStops, css: css,
           maskFill: maskFill };
}());
