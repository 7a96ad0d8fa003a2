// The logit lens of two runs (minimt view A B; lens.js hands a difference's lens here): per
// decoder layer and position, the token B's layer would predict, B's probability of it, A's (from
// the tokens A's dump kept) and B - A, coloured on the diverging scale (a probability's change,
// -1 to +1). What an ablation upstream does to what each layer would say.
page.differenceLens = (function () {
  var el = page.dom.el, shown = page.labels.shown, colours = page.colours, numbers = page.numbers;

  // A probability to 3 decimals, as the lens of one run prints it; never 0 unless it is.
  function probability(x, plus) {
    var text = numbers.nonzero(x, 3);
    return plus && x >= 0 ? '+' + text : text;
  }
  function kept(list, run) {
    return run + ': ' + list.map(function (x) {
      return shown(x[0]) + ' ' + numbers.nonzero(x[1], 4) + ' (float32 ' + numbers.float32(x[1]) + ')';
    }).join(', ');
  }

  // One cell: B's most likely token, then A's, B's and B - A's probability of it.
  function cell(a, b, output) {
    if (!b.length) return el('td');
    var token = b[0][0], pb = b[0][1], pa = null;
    a.forEach(function (x) { if (x[0] === token && pa === null) pa = x[1]; });
    var change = pa === null ? null : pb - pa;
    var lines = [el('span', { class: 'token' }, [shown(token)])];
    if (a.length && a[0][0] !== token) lines.push(el('br'), el('span', { class: 'other' }, ['A: ' + shown(a[0][0])]));
    lines.push(el('br'), el('span', { 'data-run': 'a' }, ['A ' + (pa === null ? 'not in its top ' + a.length : probability(pa))]),
               el('br'), el('span', { 'data-run': 'b' }, ['B ' + probability(pb)]));
    if (change !== null) lines.push(el('br'), el('span', { 'data-run': 'change' }, ['B \u2212 A ' + probability(change, true)]));
    var fill = change === null ? [255, 255, 255] : colours.diverging(change, 1);
    return el('td', { class: token === output ? 'output' : null, 'data-token': token,
                      style: 'background:' + colours.css(fill) + ';color:' + (Math.abs(change || 0) > 0.6 ? '#fff' : '#1d2330'),
                      title: kept(a, 'A') + '\n' + kept(b, 'B') }, lines);
  }

  // The lens section of sentence `s` of a difference (s.lens: layers, a, b).
  function build(s) {
    var lens = s.lens;
    return el('section', { class: 'lens' }, [
      el('h3', {}, ['Logit lens of both runs: what each decoder layer would predict, B \u2212 A']),
      el('p', { class: 'axes' }, ['Rows: decoder layers; columns: positions. Each cell: the token B\u2019s layer ' +
                                  'would predict (and A\u2019s, when it is another), A\u2019s and B\u2019s ' +
                                  'probability of it and B \u2212 A; blue where B is higher, red where A is. ' +
                                  'Hover for the tokens each dump kept.']),
      page.lens.table(s, lens.layers, lens.b, function (list, l, t) {
        return cell(lens.a[l][t], list, s.output_tokens[t]);
      })]);
  }

  return { build: build };
}());
