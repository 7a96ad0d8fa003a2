// The panel of a pinned cell's row (reading.js pins it): how that row's weights came to be, from
// the extras the dump holds. The softmax (--dump-scores): each key's score, minus the row's
// largest, its exp, divided by their sum: the softmax, beside the weight the dump holds, both to
// the digits at which they agree (an ablated head's weights are 0 whatever its scores: the
// ablation acts after the softmax). The neuron view, as bertviz's (--dump-vectors): the query,
// each key, their elementwise product, its sum over sqrt(d_k), and the weight. The norms (--dump-norms): what each key adds through W_O,
// ||a_ij v_j W_O^h||, and the head's whole contribution at this position.
page.panel = (function () {
  var el = page.dom.el, shown = page.labels.shown, colours = page.colours;
  var box = document.getElementById('minimt-panel');

  function hide() {
    box.hidden = true;
    box.textContent = '';
  }
  function number(x) { return page.numbers.general(x, 4); }
  function extra(s, type, suffix) { return page.data.extra(s, page.data.extraKey(type, suffix)); }
  // Row i of layer `layer`, head `head` of matrices m, as an array.
  function row(m, layer, head, i) {
    return Array.prototype.slice.call(page.data.weights(m, layer, head), i * m.cols, (i + 1) * m.cols);
  }
  function largest(values) {
    return values.reduce(function (top, x) { return isFinite(x) ? Math.max(top, Math.abs(x)) : top; }, 0);
  }
  // One value as a coloured square (red below 0, blue above), its number in the title.
  function swatch(x, top) {
    return el('span', { class: 'swatch', title: number(x), style: 'background:' + colours.css(colours.diverging(x, top)) });
  }
  function swatches(values, top) {
    return el('td', { class: 'vector' }, values.map(function (x) { return swatch(x, top); }));
  }
  // A weight (0 to 1) as a bar and its number (`text`: 4 significant digits unless given); the
  // exact value on hover (`exact`: the dump's float, else the number computed).
  function bar(w, text, exact) {
    return el('td', { class: 'bar', title: exact || page.numbers.float32(w) },
              [el('span', { style: 'width:' + Math.round(60 * Math.max(0, Math.min(1, w))) + 'px' }),
               ' ' + (text || page.numbers.weight(w))]);
  }
  function cells(texts, tag) {
    return texts.map(function (t) { return typeof t === 'string' ? el(tag || 'td', {}, [t]) : t; });
  }

  // The softmax of row i: scores (null above the diagonal of a causal type) to weights.
  function softmax(a, scores, weights, norms, visible, ablated) {
    var top = -Infinity, exps = [], sum = 0;
    for (var j = 0; j < visible; j++) top = Math.max(top, scores[j]);
    for (j = 0; j < visible; j++) { exps.push(Math.exp(scores[j] - top)); sum += exps[j]; }
    var head = ['key', 'score', 'score \u2212 largest', 'exp', 'exp \u00f7 sum = softmax', 'weight (dump)'];
    if (norms) head.push('\u2016a\u00b7v\u00b7W_O\u2016');
    var body = a.cols.map(function (token, j) {
      if (j >= visible)
        return el('tr', { class: 'masked' }, cells([j + ' ' + shown(token), 'masked', '\u2212\u221e', '0', '0', '0']
                                                   .concat(norms ? ['0'] : [])));
      // The softmax computed here and the dump's weight, to the digits at which they agree.
      var p = exps[j] / sum, digits = ablated ? 4 : page.numbers.agreeing(p, weights[j], 4);
      var sig = page.numbers.significant;
      return el('tr', {}, cells([j + ' ' + shown(token), number(scores[j]), number(scores[j] - top), number(exps[j])])
                .concat([bar(p, sig(p, digits), page.numbers.general(p, 9)), bar(weights[j], sig(weights[j], digits))])
                .concat(norms ? cells([number(norms[j])]) : []));
    });
    return el('table', { class: 'softmax' }, [el('tr', {}, cells(head, 'th'))].concat(body));
  }

  // The neuron view of query i: q, each k_j, q * k_j elementwise, its sum over sqrt(d_k), the weight.
  function neuron(a, q, keys, weights, visible) {
    var dk = q.length, root = Math.sqrt(dk), vectorTop = largest(q);
    keys.forEach(function (k) { vectorTop = Math.max(vectorTop, largest(k)); });
    var products = keys.map(function (k) { return k.map(function (x, d) { return q[d] * x; }); });
    var productTop = products.reduce(function (t, p) { return Math.max(t, largest(p)); }, 0);
    var rows = [el('tr', {}, cells(['', 'k (q above)', 'q \u2218 k', '\u03a3 / \u221ad_k', 'weight'], 'th')),
                el('tr', { class: 'query' }, [el('td', {}, ['q']), swatches(q, vectorTop), el('td'), el('td'), el('td')])];
    keys.forEach(function (k, j) {
      var masked = j >= visible, score = products[j].reduce(function (t, x) { return t + x; }, 0) / root;
      rows.push(el('tr', { class: masked ? 'masked' : null },
                   [el('td', {}, [j + ' ' + shown(a.cols[j])]), swatches(k, vectorTop), swatches(products[j], productTop),
                    el('td', {}, [masked ? 'masked' : number(score)]), masked ? el('td', {}, ['0']) : bar(weights[j])]));
    });
    return el('table', { class: 'neuron' }, rows);
  }

  function show(fig, at) {
    var g = fig.minimt;
    if (!g || g.m.rollout || g.m.attribution || g.head === 'avg' || !g.s.inside || !page.data.kind[g.type].prefix) { hide(); return; }
    var s = g.s, type = g.type, i = at.i, layer = g.layer, head = g.head, a = page.data.axes(s, type);
    if (g.m.difference) { fill(g, i, page.differencePanel.parts(g, i)); return; }  // minimt view A B
    var scores = extra(s, type, '_scores'), queries = extra(s, type, '_queries'), keys = extra(s, type, '_keys');
    var norms = extra(s, type, '_weighted_norms'), headNorms = extra(s, type, '_head_norms');
    if (!scores && !queries && !norms) { hide(); return; }
    var visible = g.m.lower ? Math.min(i + 1, g.m.cols) : g.m.cols, weights = row(g.m, layer, head, i);
    var normRow = norms ? row(norms, layer, head, i) : null;
    var parts = [];
    if (weights.every(function (w) { return w === 0; }) && visible > 0)
      parts.push(el('p', { class: 'note' }, ['Every weight of this row is 0: the head is ablated (--ablate-heads), ' +
                                              'which sets its weights to 0 after the softmax; its scores are ' +
                                              'as they were. (The causal mask is another thing: it acts on ' +
                                              'the scores, before the softmax.)']));
    if (scores) {
      parts.push(el('h4', {}, ['The softmax: scores become weights']));
      parts.push(softmax(a, row(scores, layer, head, i), weights, normRow, visible,
                         page.data.isMasked(g.m, layer, head)));
    }
    if (headNorms)
      parts.push(el('p', { class: 'head-norm' }, ['The head adds \u2016\u03a3_j a_ij v_j W_O\u2016 = ' +
                                                  number(row(headNorms, layer, head, i)[0]) + ' at this position ' +
                                                  '(each key\u2019s part: \u2016a\u00b7v\u00b7W_O\u2016 above).']));
    if (norms && !scores)
      parts.push(el('table', { class: 'softmax' }, [el('tr', {}, cells(['key', 'weight', '\u2016a\u00b7v\u00b7W_O\u2016'], 'th'))]
        .concat(a.cols.map(function (token, j) {
          return el('tr', {}, [el('td', {}, [j + ' ' + shown(token)]), bar(weights[j]), el('td', {}, [number(normRow[j])])]);
        }))));
    if (queries && keys) {
      var keyRows = a.cols.map(function (_, j) { return row(keys, layer, head, j); });
      parts.push(el('h4', {}, ['Neuron view: the query and each key (before any scaling)']));
      parts.push(neuron(a, row(queries, layer, head, i), keyRows, weights, visible));
    }
    fill(g, i, parts);
  }

  // The panel of row i of heatmap g: a close button, the row in words, then `parts` (none: hidden).
  function fill(g, i, parts) {
    if (!parts) { hide(); return; }
    var close = el('button', { type: 'button', class: 'close', title: 'close' }, ['\u00d7']);
    close.addEventListener('click', hide);
    var heading = el('h3', {}, [page.data.kind[g.type].name + ', layer ' + g.m.layers[g.layer] + ', ' +
                                page.data.headText(g.m, g.layer, g.head) + ': query ' + i + ' ' +
                                shown(page.data.axes(g.s, g.type).rows[i])]);
    box.textContent = '';
    [close, heading].concat(parts).forEach(function (p) { box.appendChild(p); });
    box.hidden = false;
  }

  return { show: show, hide: hide };
}());
