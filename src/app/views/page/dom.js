// Building the page's elements: el() and the text of the data made visible, character for
// character as html_escape (view_text.cpp) shows it in the SVG.
page.dom = (function () {
  // Text from the data as it shows: line ends as in HTML (CR LF and CR are LF), control
  // characters but tab and LF as their Control Pictures (U+0001 as U+2401, DEL as U+2421), C1
  // controls and noncharacters as U+FFFD.
  function visible(text) {
    var out = '';
    for (var ch of String(text).replace(/\r\n?/g, '\n')) {
      var code = ch.codePointAt(0);
      if (code === 9 || code === 10) out += ch;
      else if (code < 0x20) out += String.fromCharCode(0x2400 + code);
      else if (code === 0x7f) out += '\u2421';
      else if ((code >= 0x80 && code <= 0x9f) || (code >= 0xfdd0 && code <= 0xfdef) ||
               (code & 0xfffe) === 0xfffe) out += '\ufffd';
      else out += ch;
    }
    return out;
  }

  // A new element: its attributes in the order given (a value of null leaves one out), then its
  // children, each a node or a text (an empty text adds nothing).
  function el(tag, attributes, children) {
    var element = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      if (attributes[name] !== null) element.setAttribute(name, attributes[name]);
    });
    (children || []).forEach(function (child) {
      if (child !== '') element.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    });
    return element;
  }

  return { visible: visible, el: el };
}());
