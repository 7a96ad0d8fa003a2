// How the pages write numbers. fixed and general write what C's printf writes for "%.*f" and
// "%.*g" (the tables of minimt heads --format text use printf too), so a number reads the same
// on the page and in the terminal. Values the C++ side could not write as JSON numbers come as
// the strings "inf", "-inf", "nan" and "-nan" (printf's own spelling).
page.numbers = (function () {
  // A number of the data as a JavaScript number (the non-finite strings too).
  function value(x) {
    if (typeof x !== 'string') return x;
    return x === 'inf' ? Infinity : x === '-inf' ? -Infinity : NaN;
  }

  function nonFinite(x, plus) {
    var text = typeof x === 'string' ? x : isNaN(x) ? 'nan' : x < 0 ? '-inf' : 'inf';
    return text.charAt(0) === '-' || !plus ? text : '+' + text;
  }

  // The exact value of a finite double as decimal digits, `decimals` after the point (100 at
  // most): exact for every double of 2^-47 and above, and beyond the digits a tie depends on
  // for the rest.
  function exactFixed(a, decimals) {
    if (a < 1e21) return a.toFixed(decimals);
    return BigInt(a).toString() + (decimals ? '.' + '0'.repeat(decimals) : '');  // an integer
  }

  // printf("%.*f", decimals, x), or "%+.*f" with `plus`. toFixed rounds the exact value too,
  // but sends a tie (0.125 to 2 places) up where printf keeps the even digit (0.12).
  function fixed(x, decimals, plus) {
    if (typeof x === 'string' || !isFinite(x)) return nonFinite(x, plus);
    var negative = x < 0 || Object.is(x, -0), a = Math.abs(x);
    var text = exactFixed(a, decimals), exact = exactFixed(a, 100), point = exact.indexOf('.');
    if (/^50*$/.test(exact.slice(point + 1 + decimals))) {
      var down = exact.slice(0, decimals ? point + 1 + decimals : point);
      if (+down.charAt(down.length - 1) % 2 === 0) text = down;
    }
    return (negative ? '-' : plus ? '+' : '') + text;
  }

  function withoutTrailingZeros(text) {
    return text.indexOf('.') < 0 ? text : text.replace(/0+$/, '').replace(/\.$/, '');
  }

  // printf("%.*g", precision, x): `precision` significant digits, ties to even, in fixed
  // notation when the exponent is from -4 to precision - 1, else as d.ddde+XX; no trailing zeros.
  function general(x, precision) {
    if (typeof x === 'string' || !isFinite(x)) return nonFinite(x, false);
    if (x === 0) return Object.is(x, -0) ? '-0' : '0';
    var a = Math.abs(x), rounded = a.toExponential(precision - 1);
    var exact = a.toExponential(100), e = exact.indexOf('e');
    var digits = exact.charAt(0) + exact.slice(2, e), kept = digits.slice(0, precision);
    if (/^50*$/.test(digits.slice(precision)) && +kept.charAt(precision - 1) % 2 === 0)
      rounded = kept.charAt(0) + '.' + kept.slice(1) + exact.slice(e);
    var at = rounded.indexOf('e'), exponent = +rounded.slice(at + 1);
    var mantissa = rounded.slice(0, at).replace('.', ''), text;
    if (exponent < -4 || exponent >= precision) {
      var size = Math.abs(exponent);
      text = withoutTrailingZeros(mantissa.charAt(0) + '.' + mantissa.slice(1)) +
          (exponent < 0 ? 'e-' : 'e+') + (size < 10 ? '0' : '') + size;
    } else if (exponent >= 0) {
      text = withoutTrailingZeros(mantissa.slice(0, exponent + 1) + '.' + mantissa.slice(exponent + 1));
    } else {
      text = withoutTrailingZeros('0.' + '0'.repeat(-exponent - 1) + mantissa);
    }
    return (x < 0 ? '-' : '') + text;
  }

  // `digits` significant digits (fixed notation from 0.001 up, else d.ddde-N): a value that is
  // not 0 never reads as 0.
  function significant(x, digits) {
    if (typeof x === 'string' || !isFinite(x)) return nonFinite(x, false);
    if (x === 0) return '0';
    var a = Math.abs(x);
    if (a >= 0.001) return fixed(x, Math.max(digits - 1, digits - 1 - Math.floor(Math.log10(a))));
    return x.toExponential(digits - 1);
  }

  // An attention weight in the tooltip and the header: 4 significant digits.
  function weight(w) { return significant(w, 4); }

  // fixed(x, decimals), unless x is not 0 and that reads 0: then x's own two digits (%.2g).
  function nonzero(x, decimals) {
    var text = fixed(x, decimals);
    return x !== 0 && isFinite(x) && +text === 0 ? general(x, 2) : text;
  }

  // The shortest decimal that reads back as the same single float: the digits the dump holds
  // (std::to_chars), the value the page computes with.
  function float32(x) {
    if (typeof x === 'string' || !isFinite(x)) return nonFinite(x, false);
    var f = Math.fround(x);
    for (var p = 1; p < 9; p++) if (Math.fround(+f.toPrecision(p)) === f) return String(+f.toPrecision(p));
    return String(+f.toPrecision(9));
  }

  // The most significant digits (up to `digits`) at which a recomputed value and the dump's
  // read the same, so that the two never print differently from a rounding of float error.
  function agreeing(recomputed, dumped, digits) {
    for (var d = digits; d > 1; d--) if (significant(recomputed, d) === significant(dumped, d)) return d;
    return 1;
  }

  return { value: value, fixed: fixed, general: general, weight: weight, significant: significant,
           nonzero: nonzero, float32: float32, agreeing: agreeing };
}());
