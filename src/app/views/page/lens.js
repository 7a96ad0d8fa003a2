// The logit lens (--logit-lens K): what each decoder layer would predict had the model's output
// side (its final layer norm, if any, the output projection, the softmax) read that layer's
// output. A table, one row per layer and one column per position; each cell the most likely
// token and its probability, coloured by it; bold where it is the token the model output; its
// title lists the K tokens the dump kept.
page.lens = (function () {
  var el = page.dom.el, shown = page.labels.shown, colours = page.colours, nonzero = page.numbers.nonzero;

  function cell(list, output) {
    if (!list.length) return el('td');
    var best = list[0], p = best[1];
    return el('td', { class: best[0] === output ? 'output' : null,
                      style: 'background:' + colours.css(colours.sequential(p)) + ';color:' + (p > 0.5 ? '#fff' : '#1d2330'),
                      title: list.map(function (x) {
                        return shown(x[0]) + ' ' + nonzero(x[1], 4) + ' (float32 ' + page.numbers.float32(x[1]) + ')';
                      }).join('\n') },
              [shown(best[0]), el('br'), nonzero(p, 3)]);
  }

  // The lens section of sentence `s`, or null when the dump has no lens.
  function build(s) {
    var lens = s.lens;
    if (!lens) return null;
    if (lens.b) return page.differenceLens.build(s);  // minimt view A B: both runs
    return el('section', { class: 'lens' }, [
      el('h3', {}, ['Logit lens: what each decoder layer would predict']),
      el('p', { class: 'axes' }, ['Rows: decoder layers; columns: positions (the token read \u2192 the token ' +
                                  'output). Each cell: the most likely token had the output layer read this ' +
                                  'layer\u2019s output, and its probability; bold where it is the token output. ' +
                                  'Hover for the others kept.']),
      // Why layer 0 seems to know the answer, or to repeat its input: not what it computes.
      el('p', { class: 'note lens-copy' }, ['Layer 0 often \u201cpredicts\u201d the very token it reads ' +
                                            '(<s> included): its output is still close to that token\u2019s ' +
                                            'embedding, and when the output layer shares the embedding matrix ' +
                                            '(tied embeddings) the nearest output token is the input itself. ' +
                                            'A copy, not a prediction: read the later layers for what the ' +
                                            'model builds.']),
      table(s, lens.layers, lens.predictions, function (list, l, t) { return cell(list, s.output_tokens[t]); })]);
  }

  // The table of sentence `s`: a row per layer (`labels`), a column per position, each cell
  // cellOf(predictions[l][t], l, t).
  function table(s, labels, predictions, cellOf) {
    var head = [el('th', {}, ['layer'])].concat(s.decoder_input_tokens.map(function (token, t) {
      return el('th', { title: 'reads ' + shown(token) + ', outputs ' + shown(s.output_tokens[t]) },
                [t + ' ' + shown(token), el('br'), '\u2192 ' + shown(s.output_tokens[t])]);
    }));
    var rows = predictions.map(function (positions, l) {
      return el('tr', {}, [el('th', {}, ['layer ' + page.dom.visible(labels[l])])].concat(
        positions.map(function (list, t) { return cellOf(list, l, t); })));
    });
    return el('div', { class: 'lens-table' }, [el('table', {}, [el('tr', {}, head)].concat(rows))]);
  }

  return { build: build, table: table };
}());
