// The size of the heatmaps: the cell size and which labels they carry, so that a row of heads
// fits on one line of the section.
page.layout = (function () {
  var LABEL_MIN_CELL = 9, MAX_CELL = 28;
  var HEADS_GAP = 14;  // page.css: .heads { gap: 10px 14px }
  var captionFont = '12px ' + page.labels.FONT_FAMILY;

  // The width of a row of heatmaps whose captions are `captions` pixels wide (one per heatmap).
  function rowWidth(s, type, m, cell, labels, captions) {
    var count = captions.length, boxes = {};
    function plot(first, last) {
      var key = (first ? 'f' : '') + (last ? 'l' : '');
      if (!boxes[key]) boxes[key] = page.labels.box(s, type, cell, labels, first, last);
      return boxes[key].left + m.cols * cell + boxes[key].right + 1;
    }
    var total = (count - 1) * HEADS_GAP;
    for (var i = 0; i < count; i++) total += Math.max(captions[i], plot(i === 0, i === count - 1));
    return total;
  }
  // Cell size and labels for one type's heatmaps: the chosen size `chosen` (labels from 9 px),
  // or for 'auto' what keeps a row of heads on one line of `width` pixels: the largest cell
  // with labels on every heatmap; else with the row's labels only on its first heatmap and the
  // predicted pieces on its last (many heads); else without labels (hover reads them), in
  // quarter pixels.
  function plan(s, type, m, width, captions, chosen) {
    if (chosen !== 'auto') {
      var size = +chosen;
      return { cell: size, labels: size >= LABEL_MIN_CELL ? 'each' : 'none' };
    }
    var modes = captions.length > 1 ? ['each', 'ends'] : ['each'], cell;
    for (var k = 0; k < modes.length; k++)
      for (cell = MAX_CELL; cell >= LABEL_MIN_CELL; cell--)
        if (rowWidth(s, type, m, cell, modes[k], captions) <= width) return { cell: cell, labels: modes[k] };
    for (cell = LABEL_MIN_CELL - 0.25; cell > 1.5; cell -= 0.25)
      if (rowWidth(s, type, m, cell, 'none', captions) <= width) break;
    return { cell: cell, labels: 'none' };
  }
  // The caption widths of a row of heatmaps, the widest at each position over `rows` (captions
  // do not wrap: figcaption is white-space: nowrap).
  function captionWidths(rows) {
    var widths = [], measurer = page.labels.measurer;
    rows.forEach(function (r) {
      r.shown.forEach(function (f, i) {
        var caption = f.figure.querySelector('figcaption');
        measurer.font = (f.figure.classList.contains('average') ? 'italic ' : '') + captionFont;
        var w = caption ? Math.ceil(measurer.measureText(caption.textContent).width) + 1 : 0;
        widths[i] = Math.max(widths[i] || 0, w);
      });
    });
    return widths;
  }

  return { plan: plan, captionWidths: captionWidths };
}());
