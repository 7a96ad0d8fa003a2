// View: the attributions of a sentence (--attribute; docs/model-format.md, "Attributions"), when
// the values menu picks a method. An attribution is per output token, not per layer or head: one
// map of each output to the source ([T][S]) in place of cross-attention's heads, one to the
// decoder input ([T][T], the causal mask hatched: input j > t cannot move output t) in place of
// decoder self-attention's; the layer and head menus do not apply (disabled, and said so), and
// encoder self-attention has no map (its section says so). Saliency is drawn up to the map's
// largest, the signed methods on the diverging scale up to the map's largest magnitude; of two
// runs (minimt view A B), B - A up to the map's largest change.
page.attribution = (function () {
  var el = page.dom.el, shown = page.labels.shown, numbers = page.numbers;
  var NOTE = 'An attribution is per output token, not per layer or head: one map beside cross-attention ' +
      '(to the source) and one beside decoder self-attention (to the decoder input); the layer and ' +
      'head menus do not apply.';
  var ENCODER = 'Encoder self-attention has no attribution map: an attribution is of each output token, ' +
      'to the source (the map beside cross-attention) or to the decoder input (beside decoder self-attention).';

  var any = null;  // whether some sentence holds attributions
  function plot() {
    return el('div', { class: 'plot' }, [el('canvas', { class: 'cells' }), el('canvas', { class: 'overlay' })]);
  }

  // What sentences.js adds to the section of `kind` of sentence `s`, shown only while a method
  // is chosen (page.css: section.attention.attributing): the map's figure, or the encoder's note.
  function parts(s, kind) {
    if (any === null) any = page.values.available().some(page.values.isAttribution);
    if (!any) return [];
    if (kind.type !== 'cross' && kind.type !== 'decoder')
      return [el('p', { class: 'note attribution attribution-none' }, [ENCODER])];
    var to = kind.type === 'cross' ? 'the source pieces' : 'the decoder input pieces (j > t masked: it cannot move output t)';
    return [el('div', { class: 'attribution' }, [
      el('p', { class: 'axes' }, ['Rows: output tokens t (the decoder input on the left, the piece predicted on ' +
                                  'the right) \u00b7 columns: ' + to + '. One map per sentence: the same for every ' +
                                  'layer and head.']),
      el('p', { class: 'axes attribution-about', hidden: '' }),
      el('p', { class: 'note attribution-missing', hidden: '' }),
      el('div', { class: 'heads' }, [el('figure', { class: 'heatmap attribution', 'data-type': kind.type },
                                        [el('figcaption'), plot()])])])];
  }

  // Integrated gradients' steps, rule and largest |completeness gap| (entry: the method's, or a
  // run's of two), as minimt show's title writes them.
  function integration(entry) {
    var gaps = page.data.gaps(entry), top = 0;
    if (!gaps) return '';
    for (var t = 0; t < gaps.length; t++) top = Math.max(top, Math.abs(gaps[t]));
    return entry.steps + ' steps, ' + entry.rule + ' rule, largest |completeness gap| ' + numbers.general(top, 4);
  }

  function largest(w) {
    var top = 0;
    for (var i = 0; i < w.length; i++) if (isFinite(w[i])) top = Math.max(top, Math.abs(w[i]));
    return top;
  }

  // The caption of map m: the method, what it is of and its largest value.
  function caption(m, type) {
    return 'Attribution' + (m.difference ? ', B \u2212 A' : '') + ' \u00b7 ' + m.attribution +
        ' of each output to the ' + (type === 'cross' ? 'source' : 'decoder input') + ' \u00b7 largest |' +
        (m.difference ? 'B \u2212 A' : 'value') + '| ' + numbers.general(largest(m.full), 4);
  }
  // The line above it for integrated gradients: the steps, rule and largest completeness gap (of
  // each run, for two); '' for the other methods.
  function about(m) {
    var each = ' (each output\u2019s gap: hover over its row)';
    if (m.about.runs) return 'Integrated gradients: A ' + integration(m.about.runs.a) + '; B ' +
        integration(m.about.runs.b) + each;
    return m.about.gap ? 'Integrated gradients: ' + integration(m.about) + each : '';
  }

  // The header while a method is chosen (`method`; null: none): the layer and head menus off, the note.
  function controls(method) {
    var pick = page.controls.pick, note = document.getElementById('values-note');
    pick.layer.disabled = pick.head.disabled = !!method;
    note.textContent = method ? NOTE : '';
    note.hidden = !method;
  }

  // A blank line's translation holds the eos's matrices but no attributions (model-format.md).
  function blank(s) {
    return !s.attributions && String(s.source).trim() === '';
  }

  // Draws the map of `method` in the section `part` of sentence `s` (or says why there is none);
  // returns the number of maps drawn. With `method` null, the section shows its heads again.
  function draw(s, part, method) {
    part.classList.toggle('attributing', !!method);
    if (!method) return 0;
    var type = part.getAttribute('data-type'), figure = part.querySelector('figure.attribution');
    if (!figure) return 0;
    var m = page.data.attribution(s, method, type), missing = part.querySelector('.attribution-missing');
    missing.textContent = m ? '' : blank(s) ?
        'Sentence ' + s.number + ' is a blank line: its empty translation is not attributed.' :
        'Sentence ' + s.number + ' has no ' + method + ' attributions' +
        (page.difference.active ? ' in one of the runs (a two-run map needs both).' :
                                  ' (written with --attribute ' + method + ').');
    missing.hidden = !!m;
    figure.hidden = !m;
    var line = part.querySelector('.attribution-about');
    line.hidden = true;
    if (!m) return 0;
    figure.querySelector('figcaption').textContent = caption(m, type);
    line.textContent = about(m);
    line.hidden = !line.textContent;
    // The one figure of its row: its caption may run past the cells.
    var plan = page.layout.plan(s, type, m, part.clientWidth - 24, [0], page.controls.pick.cell.value);
    var box = page.labels.box(s, type, plan.cell, plan.labels, true, true);
    page.heatmap.draw(figure, s, type, m, 0, 0, plan.cell, box, page.controls.state.scale);
    return 1;
  }

  // What a cell of map g (heatmap.js: figure.minimt) reads, as reading.js's describe() gives it.
  function describe(g, at) {
    var a = page.data.axes(g.s, g.type), m = g.m, cross = g.type === 'cross', cell = at.i * m.cols + at.j;
    var out = { where: 'Attribution' + (m.difference ? ', B \u2212 A' : '') + ' \u00b7 ' + m.attribution +
                       ' of each output to the ' + (cross ? 'source' : 'decoder input'),
                query: 'output ' + at.i + ' ' + shown(a.right[at.i]) + ' (decoder input ' + shown(a.rows[at.i]) + ')',
                key: (cross ? 'source token ' : 'decoder input ') + at.j + ' ' + shown(a.cols[at.j]),
                exact: '', drawn: '' };
    if (m.lower && at.j > at.i) {
      out.weight = 'masked: decoder input ' + at.j + ' comes after output ' + at.i + ', which it cannot move (null in the dump)';
      return out;
    }
    var x = g.w[cell], difference = page.difference;
    if (m.difference) {
      out.weight = m.attribution + ' ' + difference.runsText(x, m.runs.a[cell], m.runs.b[cell], difference.significant);
    } else {
      out.weight = m.attribution + ' ' + numbers.general(x, 4);
      out.exact = 'float32 ' + numbers.float32(x);
    }
    // Integrated gradients: how far the steps are from the integral at this output.
    var gap = 'completeness gap of output ' + at.i + ': ';
    if (m.about.runs) {
      var ga = page.data.gaps(m.about.runs.a)[at.i], gb = page.data.gaps(m.about.runs.b)[at.i];
      out.drawn = gap + difference.runsText(Math.fround(gb - ga), ga, gb, difference.significant);
    } else if (m.about.gap) {
      var value = page.data.gaps(m.about)[at.i];
      out.drawn = gap + numbers.general(value, 4) + ' (float32 ' + numbers.float32(value) + ')';
    }
    return out;
  }

  return { parts: parts, controls: controls, draw: draw, describe: describe };
}());
