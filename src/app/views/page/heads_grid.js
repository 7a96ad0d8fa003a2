// The heads view of minimt heads --view (data.heads, head_page.cpp): per attention type a
// layers x heads table coloured by importance (the diverging scale), each cell with its
// statistics and a link to the head's heatmaps; the pruning curve; above the example sentences.
page.headsGrid = (function () {
  var el = page.dom.el, fixed = page.numbers.fixed, colours = page.colours;

  // An optional statistic: "-" when the analysis has none.
  function stat(value, decimals) { return value === undefined ? '-' : fixed(value, decimals); }

  // What hovering over a cell shows, one statistic a line.
  function cellTitle(h, rank, total) {
    var t = h.type + ' layer ' + h.layer + ' head ' + h.head + ': rank ' + rank + ' of ' + total +
        '\nchange in log-probability per token when ablated: ' + fixed(h.delta_log_prob, 4);
    if (h.delta_exact_match !== undefined) t += '\nchange in exact match: ' + fixed(h.delta_exact_match, 3);
    t += '\nentropy ' + stat(h.entropy, 3) + ' nats, max weight ' + stat(h.max_weight, 3) +
        '\nweight on: same ' + stat(h.same, 3) + ', previous ' + stat(h.previous, 3) + ', first ' +
        stat(h.first, 3) + ', eos ' + stat(h.eos, 3);
    if (h.alignment_agreement !== undefined)
      t += '\narg-max agrees with the head average: ' + stat(h.alignment_agreement, 3);
    return t;
  }

  // One cell: the importance and the main statistics, all of them on hover; its link shows the
  // head's heatmaps below (address.js reads the address).
  function cell(h, rank, total, scale) {
    var delta = page.numbers.value(h.delta_log_prob);
    var dark = Math.abs(delta) > 0.6 * scale;
    var stats = 'ent ' + stat(h.entropy, 2) + ' \u00b7 max ' + stat(h.max_weight, 2);
    var more = h.type === 'cross' ? 'agree ' + stat(h.alignment_agreement, 2) + ' \u00b7 eos ' + stat(h.eos, 2)
                                  : 'same ' + stat(h.same, 2) + ' \u00b7 prev ' + stat(h.previous, 2);
    var link = el('a', { href: '#show=' + h.type + '&layer=' + h.layer + '&head=' + h.head }, [
      el('span', { class: 'delta' }, [fixed(h.delta_log_prob, 4, true)]),
      el('span', { class: 'rank' }, ['#' + rank]),
      el('span', { class: 'stats' }, [stats, el('br'), more])]);
    return el('td', { class: 'head-cell', 'data-type': h.type, 'data-layer': String(h.layer),
                      'data-head': String(h.head), 'data-rank': String(rank),
                      'data-delta': page.numbers.general(h.delta_log_prob, 9),
                      style: 'background:' + colours.css(colours.diverging(delta, scale)) +
                             (dark ? ';color:#fff' : ''),
                      title: cellTitle(h, rank, total) }, [link]);
  }

  // The layers x heads table of one type, or null when the analysis has none of its heads.
  function grid(heads, kind, scale) {
    var layers = 0, count = 0, cells = [];
    heads.forEach(function (h) {
      if (h.type !== kind.type) return;
      layers = Math.max(layers, h.layer + 1);
      count = Math.max(count, h.head + 1);
    });
    if (!layers) return null;
    heads.forEach(function (h, k) {
      if (h.type === kind.type) cells[h.layer * count + h.head] = cell(h, k + 1, heads.length, scale);
    });
    var top = [el('th')];
    for (var h = 0; h < count; h++) top.push(el('th', {}, ['head ' + h]));
    var rows = [el('tr', {}, top)];
    for (var l = 0; l < layers; l++) {
      var row = [el('th', {}, ['layer ' + l])];
      for (h = 0; h < count; h++) row.push(cells[l * count + h] || el('td'));
      rows.push(el('tr', {}, row));
    }
    return el('figure', { class: 'head-grid', 'data-type': kind.type }, [
      el('figcaption', {}, [kind.heading]), el('table', {}, [el('tbody', {}, rows)])]);
  }

  // The colours, from the costliest ablation (the largest importance below 0) to the most helpful.
  function legend(scale) {
    var stops = colours.divergingStops().map(colours.css).join(',');
    return el('div', { class: 'importance-legend' }, [
      el('span', {}, [fixed(-scale, 4, true)]),
      el('span', { class: 'bar', style: 'background:linear-gradient(to right,' + stops + ')' }),
      el('span', {}, [fixed(scale, 4, true)]),
      ' change in log-probability per token when the head alone is ablated']);
  }

  function pruning(a) {
    if (!a.prune.length) return null;
    var exact = a.exact_match !== undefined;
    var rows = [el('tr', {}, [el('th', {}, ['removed']), el('th', {}, ['head']), el('th', {}, ['log-prob / token'])]
                             .concat(exact ? [el('th', {}, ['exact match'])] : []))];
    a.prune.forEach(function (p) {
      rows.push(el('tr', {}, [el('td', {}, [String(p.removed)]), el('td', {}, [page.dom.visible(p.head)]),
                              el('td', {}, [fixed(p.log_prob_per_token, 4)])]
                             .concat(p.exact_match !== undefined ? [el('td', {}, [fixed(p.exact_match, 4)])] : [])));
    });
    return el('details', { class: 'prune' }, [
      el('summary', {}, ['Pruning, least important head first (Michel et al. 2019)']),
      el('table', {}, [el('tbody', {}, rows)])]);
  }

  // The heads view, for the page's data.heads; `examples`: the example sentences under it.
  function build(parent, a, examples) {
    var scale = 0;  // the largest |importance|; a NaN one does not count
    a.ranked.forEach(function (h) {
      var size = Math.abs(page.numbers.value(h.delta_log_prob));
      if (scale < size) scale = size;
    });
    var grids = page.data.kinds.filter(function (k) { return !k.rollout; }).map(function (kind) {
      return grid(a.ranked, kind, scale);
    }).filter(Boolean);
    var children = [
      el('h2', {}, ['Heads by importance']),
      el('p', {}, [a.sentences + ' sentences, ' + a.tokens + ' reference tokens, log-probability per token ' +
                   fixed(a.log_prob_per_token, 4) +
                   (a.exact_match !== undefined ? ', exact match ' + fixed(a.exact_match, 4) : '') + '.']),
      el('p', { class: 'hint' }, [
        'Each cell is one head: its importance is the change in the reference\'s log-probability per ' +
        'token when that head alone is ablated (teacher forcing). Red: ablating it costs; blue: ablating ' +
        'it helps; white: no change. Rank 1 is the most needed. Hover over a cell for its statistics ' +
        '(intact run); click it to show its heatmaps below. Ablation measures what removing a head ' +
        'costs on these sentences, not what the head means.']),
      legend(scale),
      el('div', { class: 'head-grids' }, grids)];
    var prune = pruning(a);
    if (prune) children.push(prune);
    children.push(el('h2', {}, ['Example sentences']),
                  el('p', { class: 'hint' }, [
                    (examples === 1 ? 'The first pair' : 'The first ' + examples + ' pairs') +
                    ' of the input, scored by the intact model (teacher forcing on the reference): ' +
                    'their attention, as minimt view draws it.']));
    parent.appendChild(el('section', { class: 'head-analysis' }, children));
  }

  return { build: build };
}());
