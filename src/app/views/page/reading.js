// Reading a cell: the tooltip on hover, the outline of its row and column, and a click that
// pins it in the header (and opens the panel of its row, panel.js); a click on a heatmap's
// title shows that heatmap alone.
page.reading = (function () {
  var tip = document.getElementById('minimt-tip'), info = document.getElementById('minimt-info');
  var shown = page.labels.shown;
  var pinned = null;  // {figure, at}: the cell shown in the header

  function cellAt(figure, event) {
    var g = figure.minimt;
    if (!g) return null;
    var box = event.target.getBoundingClientRect();
    var x = event.clientX - box.left - g.left, y = event.clientY - box.top - g.top;
    var j = Math.floor(x / g.cell), i = Math.floor(y / g.cell);
    if (x < 0 || y < 0 || i >= g.m.rows || j >= g.m.cols) return null;
    return { i: i, j: j };
  }
  function describe(figure, at) {
    var g = figure.minimt, a = page.data.axes(g.s, g.type), kind = page.data.kind[g.type];
    var where = g.m.rollout ? kind.name : kind.name + ', layer ' + g.m.layers[g.layer] + ', ' +
        page.data.headText(g.m, g.layer, g.head);
    var out = a.right ? page.labels.output(a, at.i) : null;
    var query = 'query ' + at.i + ' ' + shown(a.rows[at.i]) +
        (a.right ? (out.given ? ' (given ' : ' (predicting ') + shown(a.right[at.i]) + ')' : '');
    var key = 'key ' + at.j + ' ' + shown(a.cols[at.j]);
    var masked = g.m.lower && at.j > at.i;
    var cell = at.i * g.m.cols + at.j;
    var numbers = page.numbers;
    // The weight to 4 significant digits, and (`exact`) as the dump holds it.
    var weight = masked ? 'masked: a future position, weight exactly 0' :
        g.m.difference ? page.difference.cellText(g, cell) : 'weight ' + numbers.weight(g.w[cell]);
    var exact = masked || g.m.difference ? '' : 'float32 ' + numbers.float32(g.w[cell]);
    // The value drawn, when the values menu draws something else than the weights.
    var drawn = g.values === 'weights' || masked ? '' : g.m.difference ? page.difference.drawnText(g, cell) :
        page.values.name(g.values) + ' ' + numbers.general(g.drawn[cell], 4) +
        ' (float32 ' + numbers.float32(g.drawn[cell]) + ')';
    // What the model predicted at this query, how surely, and what else it considered.
    var predicted = '';
    if (a.right && a.rightRuns && at.i < a.rightRuns.a.length) {
      var pa = a.rightRuns.a[at.i], pb = a.rightRuns.b[at.i], write = page.difference.decimals;
      predicted = 'p(' + shown(a.right[at.i]) + '): A ' + write(pa) + ', B ' + write(pb) + ', B \u2212 A ' +
          write(pb - pa, true);
    } else if (a.right && a.rightProbs) {
      predicted = (out.given ? 'given ' + shown(a.right[at.i]) + ', ' : '') + 'p(' + shown(a.right[at.i]) + ') = ' +
          numbers.nonzero(a.rightProbs[at.i], 4);
      if (out.model)
        predicted += '; the model\u2019s own choice: ' + shown(out.model.token) + ' ' +
            numbers.nonzero(out.model.probability, 4);
      if (a.alternatives && a.alternatives[at.i])
        predicted += '; most likely: ' + a.alternatives[at.i].map(function (alt) {
          return shown(alt.token) + ' ' + numbers.nonzero(alt.probability, 4);
        }).join(', ');
    }
    if (g.m.attribution) {  // an attribution map: per output token, not per head (attribution.js)
      var said = page.attribution.describe(g, at);
      said.predicted = predicted;
      return said;
    }
    return { where: where, query: query, key: key, weight: weight, exact: exact, drawn: drawn, predicted: predicted };
  }
  function outline(figure, at) {
    var g = figure.minimt, over = figure.querySelectorAll('canvas')[1], ctx = over.getContext('2d');
    ctx.setTransform(g.ratio, 0, 0, g.ratio, 0, 0);
    ctx.clearRect(0, 0, g.width, g.height);
    if (!at) return;
    ctx.fillStyle = 'rgba(194, 24, 91, 0.10)';
    ctx.fillRect(g.left, g.top + at.i * g.cell, g.m.cols * g.cell, g.cell);
    ctx.fillRect(g.left + at.j * g.cell, g.top, g.cell, g.m.rows * g.cell);
    ctx.strokeStyle = '#c2185b';
    ctx.lineWidth = 2;
    ctx.strokeRect(g.left + at.j * g.cell, g.top + at.i * g.cell, g.cell, g.cell);
  }

  // Shows cell `at` of `fig` in the header and keeps it outlined.
  function pin(fig, at) {
    if (pinned && pinned.figure !== fig && pinned.figure.minimt) outline(pinned.figure, null);
    pinned = { figure: fig, at: at };
    var d = describe(fig, at);
    info.textContent = '';
    info.appendChild(document.createTextNode(d.where + ' \u00b7 ' + d.query + ' \u2192 ' + d.key + ' \u00b7 '));
    var strong = document.createElement('span');
    strong.className = 'weight';
    strong.id = 'minimt-pinned-weight';
    strong.textContent = d.weight;
    strong.title = d.exact || '';
    info.appendChild(strong);
    if (d.drawn) info.appendChild(document.createTextNode(' \u00b7 ' + d.drawn));
    outline(fig, at);
    page.panel.show(fig, at);
    page.address.save();
  }

  function isOverlay(target) {
    return target instanceof HTMLCanvasElement && target.classList.contains('overlay');
  }

  function listen() {
    document.addEventListener('mousemove', function (event) {
      var target = event.target;
      if (!isOverlay(target)) {
        tip.hidden = true;
        return;
      }
      var figure = target.closest('figure'), at = cellAt(figure, event);
      outline(figure, at);
      if (!at) { tip.hidden = true; return; }
      var d = describe(figure, at);
      tip.textContent = d.where + '\n' + d.query + '\n' + d.key + '\n' + d.weight + (d.exact ? ' (' + d.exact + ')' : '') +
          (d.drawn ? '\n' + d.drawn : '') + (d.predicted ? '\n' + d.predicted : '');
      tip.hidden = false;
      var x = event.clientX + 14, y = event.clientY + 14;
      if (x + tip.offsetWidth > window.innerWidth) x = event.clientX - tip.offsetWidth - 10;
      if (y + tip.offsetHeight > window.innerHeight) y = event.clientY - tip.offsetHeight - 10;
      tip.style.left = x + 'px';
      tip.style.top = y + 'px';
    });
    document.addEventListener('mouseout', function (event) {
      if (isOverlay(event.target)) {
        var figure = event.target.closest('figure');
        outline(figure, pinned && pinned.figure === figure ? pinned.at : null);
        tip.hidden = true;
      }
    });
    document.addEventListener('click', function (event) {
      var target = event.target, pick = page.controls.pick;
      if (target.tagName === 'FIGCAPTION') {  // show this heatmap alone
        var figure = target.closest('figure'), g = figure.minimt;
        if (!g || g.m.attribution) return;  // an attribution map is the only one of its kind
        pick.layer.value = 'L' + g.m.layers[g.layer];
        pick.head.value = g.m.rollout ? 'all' : g.head === 'avg' ? 'avg' : 'H' + g.m.heads[g.head];
        pick.types.value = page.data.kind[g.type].of || g.type;
        page.render.render();
        figure.scrollIntoView({ block: 'nearest' });
        return;
      }
      if (!isOverlay(target)) return;
      var fig = target.closest('figure'), at = cellAt(fig, event);
      if (at) pin(fig, at);
    });
  }

  return { pin: pin, pinned: function () { return pinned; }, unpin: function () { pinned = null; },
           listen: listen };
}());
