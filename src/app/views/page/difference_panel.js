// The panel of a pinned row of two runs' difference (minimt view A B; panel.js opens it): per
// key, each run's weight, score and weight x norm with B - A beside them, and the head's whole
// contribution at this position in each run. Ablating a head upstream changes the scores and
// norms of the heads after it, not only their weights: this is where a student reads how.
page.differencePanel = (function () {
  var el = page.dom.el, shown = page.labels.shown, difference = page.difference;
  var NORM = '\u2016a\u00b7v\u00b7W_O\u2016';

  // Row i of one head of a difference m: run 'a', run 'b', or (no run) B - A.
  function row(m, layer, head, i, run) {
    var full = run ? page.data.runWeights(m, layer, head, run) : page.data.weights(m, layer, head);
    return Array.prototype.slice.call(full, i * m.cols, (i + 1) * m.cols);
  }
  function cell(text, quantity, run) {
    return el('td', { class: 'number', 'data-quantity': quantity, 'data-run': run }, [text]);
  }

  // The quantities of type `type` both runs hold for this row: the weights, then the scores and
  // the norms when the dumps hold them (--dump-scores, --dump-norms).
  function quantities(g) {
    var list = [{ key: 'weight', name: 'weight', m: g.m, write: difference.decimals }];
    var scores = page.data.extra(g.s, page.data.extraKey(g.type, '_scores'));
    var norms = page.data.extra(g.s, page.data.extraKey(g.type, '_weighted_norms'));
    if (scores) list.push({ key: 'score', name: 'score', m: scores, write: difference.significant });
    if (norms) list.push({ key: 'norm', name: NORM, m: norms, write: difference.significant });
    return list;
  }

  // The table of row i: a line per key, for each quantity A, B and B - A.
  function table(g, i, list) {
    var a = page.data.axes(g.s, g.type), visible = g.m.lower ? Math.min(i + 1, g.m.cols) : g.m.cols;
    var rows = list.map(function (q) {
      return { a: row(q.m, g.layer, g.head, i, 'a'), b: row(q.m, g.layer, g.head, i, 'b'),
               change: row(q.m, g.layer, g.head, i) };
    });
    var head = [el('th', {}, ['key'])];
    list.forEach(function (q) {
      head.push(el('th', {}, [q.name + ' A']), el('th', {}, [q.name + ' B']), el('th', {}, ['B \u2212 A']));
    });
    var body = a.cols.map(function (token, j) {
      var cells = [el('td', {}, [j + ' ' + shown(token)])];
      list.forEach(function (q, k) {
        if (j >= visible) {  // the causal mask: no score, no weight, in either run
          cells.push(cell('masked', q.key, 'a'), cell('masked', q.key, 'b'), cell('', q.key, 'change'));
          return;
        }
        cells.push(cell(q.write(rows[k].a[j]), q.key, 'a'), cell(q.write(rows[k].b[j]), q.key, 'b'),
                   cell(q.write(rows[k].change[j], true), q.key, 'change'));
      });
      return el('tr', { class: j >= visible ? 'masked' : null }, cells);
    });
    return el('table', { class: 'softmax difference-row' }, [el('tr', {}, head)].concat(body));
  }

  // The panel's parts below its heading for the pinned cell of heatmap g, row i; null when the
  // dumps hold nothing beyond the weights for it.
  function parts(g, i) {
    var list = quantities(g);
    var headNorms = page.data.extra(g.s, page.data.extraKey(g.type, '_head_norms'));
    if (list.length === 1 && !headNorms) return null;
    var out = [el('h4', {}, ['Both runs, key by key: B \u2212 A and each run\u2019s value'])];
    var ablated = ['a', 'b'].filter(function (run) { return page.data.isMasked(g.m, g.layer, g.head, run); });
    if (ablated.length)
      out.push(el('p', { class: 'note' }, ['This head is ablated in ' + ablated.join(' and ').toUpperCase() +
                                           ' (--ablate-heads): its weights there are 0 after the softmax, ' +
                                           'its scores as computed.']));
    out.push(table(g, i, list));
    if (headNorms) {
      var x = { a: row(headNorms, g.layer, g.head, i, 'a')[0], b: row(headNorms, g.layer, g.head, i, 'b')[0],
                change: row(headNorms, g.layer, g.head, i)[0] };
      out.push(el('p', { class: 'head-norm' }, ['The head adds \u2016\u03a3_j a_ij v_j W_O\u2016 at this position: ' +
                                                difference.runsText(x.change, x.a, x.b, difference.significant) +
                                                '.']));
    }
    return out;
  }

  return { parts: parts };
}());
