// The header's legend: the colour scale of the values as drawn (values.js) or of two runs'
// difference (difference.js), and the mask.
page.legend = (function () {
  var colours = page.colours;

  // Draws the legend of colour scale `mode` ('linear' or 'sqrt').
  function draw(mode) {
    var c = document.getElementById('legend-scale'), ratio = window.devicePixelRatio || 1;
    var width = page.controls.state.values === 'weights' ? 190 : 260, height = 26;
    c.width = width * ratio; c.height = height * ratio;
    c.style.width = width + 'px'; c.style.height = height + 'px';
    var ctx = c.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    var x0 = 8, x1 = width - 14, values = page.controls.state.values;
    ctx.fillStyle = '#5b6472';
    ctx.font = '10px ' + page.labels.FONT_FAMILY;
    ctx.textBaseline = 'top';
    if (page.difference.active) { drawChange(c, mode, ratio); return; }
    if (values !== 'weights') {
      // Each map (scores, norms, an attribution) is coloured up to its own largest value: the
      // legend has no numbers but its ends; the signed values on the diverging scale.
      var signed = page.values.signed(values);
      for (var x = x0; x < x1; x++) {
        var f = (x - x0) / (x1 - x0);
        ctx.fillStyle = colours.css(signed ? colours.diverging(2 * f - 1, 1) : colours.sequential(f, mode));
        ctx.fillRect(x, 0, 1, 12);
      }
      ctx.strokeStyle = '#9aa1ab';
      ctx.strokeRect(x0 - 0.5, 0, x1 - x0 + 1, 12);
      ctx.fillStyle = '#5b6472';
      ctx.textAlign = 'left';
      ctx.fillText(signed ? '−largest' : '0', x0, 15);
      ctx.textAlign = 'right';
      ctx.fillText('largest of the map', x1, 15);
      if (signed) { ctx.textAlign = 'center'; ctx.fillText('0', (x0 + x1) / 2, 15); }
      drawMask();
      return;
    }
    for (var x = x0; x < x1; x++) {
      var rgb = colours.sequential(mode === 'sqrt' ? Math.pow((x - x0) / (x1 - x0), 2) : (x - x0) / (x1 - x0), mode);
      ctx.fillStyle = 'rgb(' + rgb.join(',') + ')';
      ctx.fillRect(x, 0, 1, 12);
    }
    ctx.strokeStyle = '#9aa1ab';
    ctx.strokeRect(x0 - 0.5, -0.5 + 0.5, x1 - x0 + 1, 12);
    ctx.fillStyle = '#5b6472';
    ctx.font = '10px ' + page.labels.FONT_FAMILY;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    [0, 0.01, 0.1, 0.25, 0.5, 1].forEach(function (v) {
      if (mode === 'linear' && (v === 0.01 || v === 0.1)) return;
      var pos = mode === 'sqrt' ? Math.sqrt(v) : v, xx = x0 + pos * (x1 - x0);
      ctx.fillRect(xx, 12, 1, 3);
      ctx.fillText(String(v), xx, 15);
    });
    drawMask();
  }

  // Two runs' difference: the diverging scale from -largest (red, A higher) to +largest (blue,
  // B higher), `mode` 'sqrt' placing the numbers as the colours stretch. The weights' largest is
  // the page's; scores and norms are coloured up to each map's own (difference.js: mapPainter).
  function drawChange(c, mode, ratio) {
    var width = 320, height = 26, top = page.difference.scale(), paint = page.difference.painter(mode);
    var end = page.controls.state.values === 'weights' ? page.numbers.fixed(top, 4) : 'largest of the map';
    c.width = width * ratio; c.height = height * ratio;
    c.style.width = width + 'px'; c.style.height = height + 'px';
    var ctx = c.getContext('2d'), x0 = 8, x1 = width - 14, middle = (x0 + x1) / 2;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    for (var x = x0; x < x1; x++) {
      var f = 2 * (x - x0) / (x1 - x0) - 1;  // -1 to 1 along the bar, as the colours stretch
      ctx.fillStyle = colours.css(paint((f < 0 ? -1 : 1) * (mode === 'sqrt' ? f * f : Math.abs(f)) * top));
      ctx.fillRect(x, 0, 1, 12);
    }
    ctx.strokeStyle = '#9aa1ab';
    ctx.strokeRect(x0 - 0.5, 0, x1 - x0 + 1, 12);
    ctx.fillStyle = '#5b6472';
    ctx.font = '10px ' + page.labels.FONT_FAMILY;
    ctx.textBaseline = 'top';
    ctx.textAlign = 'left';
    ctx.fillText('A higher −' + end, x0, 15);
    ctx.textAlign = 'center';
    ctx.fillText('0', middle, 15);
    ctx.textAlign = 'right';
    ctx.fillText('+' + end + ' B higher', x1, 15);
    c.setAttribute('aria-label', 'B − A: red, A higher, down to −' + end + '; white, 0; blue, B higher, up to +' + end);
    drawMask();
  }

  function drawMask() {
    var mask = document.getElementById('legend-mask').getContext('2d');
    mask.fillStyle = colours.maskFill(mask);
    mask.fillRect(0, 0, 24, 14);
    mask.strokeStyle = '#9aa1ab';
    mask.strokeRect(0.5, 0.5, 23, 13);
  }

  return { draw: draw };
}());
