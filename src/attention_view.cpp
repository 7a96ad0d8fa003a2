#include "minimt/attention_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "minimt/attention_page.h"  // generated from src/view/attention_page.html
#include "minimt/error.h"

namespace minimt {
namespace {

using nlohmann::json;

struct TypeInfo {
  const char* type;     // selection name
  const char* key;      // the sentence's key
  const char* heading;  // section title
  const char* axes;     // what rows and columns are
};

const TypeInfo kTypes[] = {
    {"encoder", "encoder_self_attention", "Encoder self-attention",
     "rows: queries = source pieces &middot; columns: keys = source pieces"},
    {"decoder", "decoder_self_attention", "Decoder masked self-attention",
     "rows: queries = decoder input pieces (the predicted piece on the right) &middot; columns: "
     "keys = decoder input pieces &middot; hatched: the causal mask (future positions)"},
    {"cross", "cross_attention", "Cross-attention (decoder reads the encoder)",
     "rows: queries = decoder input pieces (the predicted piece on the right) &middot; columns: "
     "keys = source pieces"},
};

const TypeInfo& type_info(const std::string& type) {
  for (const TypeInfo& info : kTypes)
    if (type == info.type) return info;
  throw Error("attention view: unknown attention type " + type);
}

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// JSON that is safe inside a <script> element: no "<" (so no "</script>" or "<!--").
std::string script_json(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

std::vector<std::string> string_list(const json& value, const std::string& where) {
  if (value.is_null()) return {};
  if (!value.is_array()) throw Error(where + " is not a list");
  std::vector<std::string> out;
  for (const json& item : value) {
    if (!item.is_string()) throw Error(where + " holds something other than strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::string string_field(const json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return "";
  if (!it->is_string()) throw Error(where + ": \"" + key + "\" is not a string");
  return it->get<std::string>();
}

// [layers][heads][rows][cols] numbers into `m`; checks every dimension.
void read_matrices(const json& value, const std::string& where, AttentionMatrices& m,
                   const std::string& rows_are, const std::string& cols_are) {
  if (!value.is_array()) throw Error(where + " is not a list of layers");
  const size_t heads = m.heads.size();
  for (size_t l = 0; l < value.size(); ++l) {
    const json& layer = value[l];
    std::string at = where + "[" + std::to_string(l) + "]";
    if (!layer.is_array() || layer.size() != heads)
      throw Error(at + " should be a list of " + std::to_string(heads) +
                  " heads (the dump's selection.heads)");
    for (size_t h = 0; h < heads; ++h) {
      const json& matrix = layer[h];
      std::string at_head = at + "[" + std::to_string(h) + "]";
      if (!matrix.is_array() || matrix.size() != static_cast<size_t>(m.rows))
        throw Error(at_head + " should have " + std::to_string(m.rows) + " rows, one per " +
                    rows_are);
      for (int i = 0; i < m.rows; ++i) {
        const json& row = matrix[i];
        if (!row.is_array() || row.size() != static_cast<size_t>(m.cols))
          throw Error(at_head + "[" + std::to_string(i) + "] should have " +
                      std::to_string(m.cols) + " weights, one per " + cols_are);
        for (const json& x : row) {
          if (!x.is_number())
            throw Error(at_head + "[" + std::to_string(i) + "] holds something not a number");
          m.values.push_back(x.get<float>());
        }
      }
    }
  }
}

const char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(const std::vector<unsigned char>& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    unsigned v = bytes[i] << 16 | bytes[i + 1] << 8 | bytes[i + 2];
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += kBase64[(v >> 6) & 63];
    out += kBase64[v & 63];
  }
  if (i < bytes.size()) {
    unsigned v = bytes[i] << 16 | (i + 1 < bytes.size() ? bytes[i + 1] << 8 : 0);
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// The template with each {{name}} marker replaced by its value, in one pass (values are not
// searched for markers).
std::string fill_template(const std::string& text,
                          const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  size_t at = 0;
  std::set<std::string> used;
  while (true) {
    size_t open = text.find("{{", at);
    if (open == std::string::npos) break;
    size_t close = text.find("}}", open);
    if (close == std::string::npos) break;
    std::string name = text.substr(open + 2, close - open - 2);
    auto it = std::find_if(values.begin(), values.end(),
                           [&](const auto& value) { return value.first == name; });
    if (it == values.end()) {  // not a marker: keep the text
      out.append(text, at, open + 2 - at);
      at = open + 2;
      continue;
    }
    out.append(text, at, open - at);
    out += it->second;
    used.insert(name);
    at = close + 2;
  }
  out.append(text, at, std::string::npos);
  for (const auto& value : values)
    if (!used.count(value.first))
      throw Error("attention view: the page template lacks {{" + value.first + "}}");
  return out;
}

}  // namespace

std::vector<std::string> dump_layer_labels(const json& selection_layers, int count) {
  std::vector<std::string> labels;
  auto positional = [&] {
    labels.clear();
    for (int l = 0; l < count; ++l) labels.push_back(std::to_string(l));
    return labels;
  };
  if (!selection_layers.is_array()) return positional();
  std::vector<int> chosen;
  for (const json& x : selection_layers) {
    if (!x.is_number_integer()) return positional();
    chosen.push_back(x.get<int>());
  }
  // The writer keeps every negative layer and the non-negative ones below the stack's depth:
  // find a depth that leaves `count` layers.
  int deepest = 0;
  for (int layer : chosen) deepest = std::max(deepest, layer + 1);
  for (int depth = 0; depth <= deepest; ++depth) {
    std::vector<std::string> kept;
    for (int layer : chosen)
      if (layer < depth) kept.push_back(std::to_string(layer));
    if (static_cast<int>(kept.size()) == count) return kept;
  }
  return positional();
}

AttentionDump parse_attention_dump(const json& document, const std::string& name) {
  if (!document.is_object() || document.value("format", json()) != "minimt-attention")
    throw Error(name +
                ": not a minimt attention dump (\"format\" should be \"minimt-attention\"; "
                "write one with minimt translate --dump-attention)");
  json version = document.value("version", json());
  if (version != 1)
    throw Error(name + ": attention dump version " + version.dump() +
                " is not supported (this minimt reads version 1)");
  AttentionDump dump;
  dump.model = string_field(document, "model", name);
  const json selection = document.value("selection", json::object());
  if (!selection.is_object()) throw Error(name + ": \"selection\" is not an object");
  const json types = selection.value("types", json());
  if (types.is_array()) {
    for (const json& t : types) {
      if (!t.is_string()) throw Error(name + ": selection.types holds a non-string");
      type_info(t.get<std::string>());  // known?
      dump.types.push_back(t.get<std::string>());
    }
  } else {
    for (const TypeInfo& info : kTypes) dump.types.push_back(info.type);
  }
  const json heads_json = selection.value("heads", json());
  std::vector<int> heads;
  bool heads_given = heads_json.is_array();
  if (heads_given)
    for (const json& h : heads_json) {
      if (!h.is_number_integer()) throw Error(name + ": selection.heads holds a non-integer");
      heads.push_back(h.get<int>());
    }
  const json layers_json = selection.value("layers", json());

  auto sentences = document.find("sentences");
  if (sentences == document.end() || !sentences->is_array())
    throw Error(name + ": \"sentences\" is missing or not a list");
  int number = 0;
  for (const json& entry : *sentences) {
    ++number;
    std::string where = name + ": sentence " + std::to_string(number);
    if (!entry.is_object()) throw Error(where + " is not an object");
    DumpSentence s;
    s.number = number;
    s.source = string_field(entry, "source", where);
    s.translation = string_field(entry, "translation", where);
    if (entry.contains("error")) {
      s.error = string_field(entry, "error", where);
      if (s.error.empty()) s.error = "failed";
      dump.sentences.push_back(std::move(s));
      continue;
    }
    s.source_tokens = string_list(entry.value("source_tokens", json()), where + ": source_tokens");
    s.decoder_input_tokens =
        string_list(entry.value("decoder_input_tokens", json()), where + ": decoder_input_tokens");
    s.output_tokens = string_list(entry.value("output_tokens", json()), where + ": output_tokens");
    if (s.output_tokens.size() != s.decoder_input_tokens.size())
      throw Error(where + ": output_tokens and decoder_input_tokens differ in length");
    const int S = static_cast<int>(s.source_tokens.size());
    const int T = static_cast<int>(s.decoder_input_tokens.size());
    for (const TypeInfo& info : kTypes) {
      auto it = entry.find(info.key);
      if (it == entry.end() || it->is_null()) continue;
      AttentionMatrices m;
      m.type = info.type;
      bool encoder = m.type == "encoder", decoder = m.type == "decoder";
      m.rows = encoder ? S : T;
      m.cols = decoder ? T : S;
      if (!it->is_array()) throw Error(where + ": " + info.key + " is not a list of layers");
      const int layers = static_cast<int>(it->size());
      if (heads_given) {
        m.heads = heads;
      } else {  // no selection: count the heads of the first layer
        int count = layers > 0 && (*it)[0].is_array() ? static_cast<int>((*it)[0].size()) : 0;
        for (int h = 0; h < count; ++h) m.heads.push_back(h);
      }
      if (m.rows == 0 || m.cols == 0) {
        // A blank sentence: the writer leaves no layers. Anything else is malformed.
        for (const json& layer : *it)
          for (const json& matrix : layer)
            if (!matrix.empty())
              throw Error(where + ": " + info.key + " holds weights but the sentence has no " +
                          (m.rows == 0 ? "queries" : "keys"));
        m.layer_labels.clear();
        s.attention.push_back(std::move(m));
        continue;
      }
      m.layer_labels = dump_layer_labels(layers_json, layers);
      read_matrices(*it, where + ": " + info.key, m,
                    encoder ? "source token" : "decoder input token",
                    decoder ? "decoder input token" : "source token");
      s.attention.push_back(std::move(m));
    }
    dump.sentences.push_back(std::move(s));
  }
  return dump;
}

AttentionDump read_attention_dump(std::istream& in, const std::string& name) {
  json document;
  try {
    document = json::parse(in);
  } catch (const json::parse_error& e) {
    throw Error(name + ": not valid JSON (" + e.what() + ")");
  }
  return parse_attention_dump(document, name);
}

uint16_t float_to_half(float value) {
  uint32_t x;
  std::memcpy(&x, &value, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t biased = (x >> 23) & 0xffu;
  uint32_t mantissa = x & 0x7fffffu;
  if (biased == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
  const int exponent = static_cast<int>(biased) - 127 + 15;
  if (exponent >= 31) return static_cast<uint16_t>(sign | 0x7c00u);  // too large: infinity
  if (exponent <= 0) {                                               // subnormal or zero
    if (exponent < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000u;
    const int shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | static_cast<uint32_t>(exponent) << 10 | mantissa >> 13;
  const uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // a carry rounds up the exponent
  return static_cast<uint16_t>(half);
}

float half_to_float(uint16_t half) {
  const float sign = (half & 0x8000u) ? -1.0f : 1.0f;
  const int exponent = (half >> 10) & 0x1f;
  const int mantissa = half & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -24);
  if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(1.0f + mantissa / 1024.0f, exponent - 15);
}

std::string encode_weights(const std::vector<float>& values) {
  std::vector<unsigned char> bytes;
  bytes.reserve(values.size() * 2);
  for (float v : values) {
    uint16_t h = float_to_half(v);
    bytes.push_back(static_cast<unsigned char>(h & 0xff));
    bytes.push_back(static_cast<unsigned char>(h >> 8));
  }
  return base64(bytes);
}

std::vector<float> decode_weights(const std::string& text) {
  std::vector<unsigned char> bytes;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    const char* at = std::strchr(kBase64, c);
    if (!at || c == '\0') throw Error("decode_weights: not base64");
    buffer = buffer << 6 | static_cast<unsigned>(at - kBase64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(static_cast<unsigned char>((buffer >> bits) & 0xff));
    }
  }
  std::vector<float> values;
  for (size_t i = 0; i + 1 < bytes.size(); i += 2)
    values.push_back(half_to_float(static_cast<uint16_t>(bytes[i] | bytes[i + 1] << 8)));
  return values;
}

ViewSummary write_attention_page(const AttentionDump& dump, std::ostream& out,
                                 const ViewOptions& options) {
  std::vector<const DumpSentence*> shown;
  if (options.sentences.empty()) {
    for (const DumpSentence& s : dump.sentences) shown.push_back(&s);
  } else {
    std::set<int> seen;
    for (int number : options.sentences) {
      if (number < 1 || number > static_cast<int>(dump.sentences.size()))
        throw Error("attention view: sentence " + std::to_string(number) +
                    " is not in the dump (it holds " + std::to_string(dump.sentences.size()) +
                    " sentences, numbered from 1)");
      if (seen.insert(number).second) shown.push_back(&dump.sentences[number - 1]);
    }
  }

  ViewSummary summary;
  summary.sentences = static_cast<int>(shown.size());
  std::string title = options.title.empty() ? "minimt attention" : options.title;
  std::ostringstream body;
  json data_sentences = json::array();
  for (size_t k = 0; k < shown.size(); ++k) {
    const DumpSentence& s = *shown[k];
    json entry = {{"number", s.number},
                  {"source", s.source},
                  {"translation", s.translation},
                  {"error", s.error},
                  {"source_tokens", s.source_tokens},
                  {"decoder_input_tokens", s.decoder_input_tokens},
                  {"output_tokens", s.output_tokens},
                  {"attention", json::object()}};
    body << "<section class=\"sentence\" id=\"sentence-" << s.number << "\" data-index=\"" << k
         << "\"" << (k ? " hidden" : "") << ">\n<h2>Sentence " << s.number << "</h2>\n"
         << "<dl class=\"texts\"><dt>source</dt><dd>" << html_escape(s.source)
         << "</dd><dt>translation</dt><dd>" << html_escape(s.translation) << "</dd></dl>\n";
    if (!s.error.empty()) {
      body << "<p class=\"note error\">This sentence was not translated: " << html_escape(s.error)
           << "</p>\n</section>\n";
      data_sentences.push_back(std::move(entry));
      continue;
    }
    if (s.blank()) {
      body << "<p class=\"note\">A blank line: no tokens, no attention to show.</p>\n"
           << "</section>\n";
      data_sentences.push_back(std::move(entry));
      continue;
    }
    for (const TypeInfo& info : kTypes) {
      const AttentionMatrices* m = nullptr;
      for (const AttentionMatrices& candidate : s.attention)
        if (candidate.type == info.type) m = &candidate;
      body << "<section class=\"attention\" data-type=\"" << info.type << "\">\n<h3>"
           << info.heading << "</h3>\n";
      if (!m || m->layers() == 0 || m->heads.empty()) {
        body << "<p class=\"note\">Not in the dump (it was written with a selection that "
             << "leaves this out).</p>\n</section>\n";
        continue;
      }
      body << "<p class=\"axes\">" << info.axes << "</p>\n";
      const bool lower = m->type == "decoder";
      std::vector<float> kept;
      kept.reserve(m->values.size());
      for (int l = 0; l < m->layers(); ++l)
        for (size_t h = 0; h < m->heads.size(); ++h)
          for (int i = 0; i < m->rows; ++i)
            for (int j = 0; j < (lower ? std::min(i + 1, m->cols) : m->cols); ++j)
              kept.push_back(m->at(l, static_cast<int>(h), i, j));
      entry["attention"][m->type] = {
          {"layers", m->layer_labels}, {"heads", m->heads}, {"rows", m->rows},
          {"cols", m->cols},           {"lower", lower},    {"w", encode_weights(kept)}};
      for (int l = 0; l < m->layers(); ++l) {
        const std::string label = html_escape(m->layer_labels[l]);
        body << "<div class=\"layer\" data-layer=\"" << l << "\" data-label=\"" << label
             << "\"><div class=\"heads\">\n";
        for (size_t h = 0; h <= m->heads.size(); ++h) {
          const bool average = h == m->heads.size();
          body << "<figure class=\"heatmap" << (average ? " average" : "") << "\" data-type=\""
               << info.type << "\" data-layer=\"" << l << "\" data-head=\""
               << (average ? std::string("avg") : std::to_string(h)) << "\""
               << (average ? " hidden" : "") << "><figcaption title=\"show only this heatmap\">"
               << "layer " << label << " &middot; ";
          if (average)
            body << "average of " << m->heads.size() << " head"
                 << (m->heads.size() == 1 ? "" : "s");
          else
            body << "head " << m->heads[h];
          body << "</figcaption><div class=\"plot\"><canvas class=\"cells\"></canvas>"
               << "<canvas class=\"overlay\"></canvas></div></figure>\n";
          if (average)
            ++summary.averages;
          else
            ++summary.heatmaps;
        }
        body << "</div></div>\n";
      }
      body << "</section>\n";
    }
    body << "</section>\n";
    data_sentences.push_back(std::move(entry));
  }
  if (shown.empty()) body << "<p class=\"note\">The dump holds no sentences.</p>\n";

  json data = {{"title", title},
               {"model", dump.model},
               {"types", dump.types},
               {"sentences", std::move(data_sentences)}};
  std::string subtitle = dump.model.empty() ? "" : "model " + dump.model;
  std::string page = fill_template(kAttentionPageTemplate, {{"title", html_escape(title)},
                                                            {"subtitle", html_escape(subtitle)},
                                                            {"body", body.str()},
                                                            {"data", script_json(data)}});
  out << page;
  return summary;
}

namespace {

// The page's colour scale (YlGnBu), also in src/view/attention_page.html.
const unsigned char kStops[9][3] = {{255, 255, 217}, {237, 248, 177}, {199, 233, 180},
                                    {127, 205, 187}, {65, 182, 196},  {29, 145, 192},
                                    {34, 94, 168},   {37, 52, 148},   {8, 29, 88}};

std::string shade(float weight) {
  double x = std::min(1.0, std::max(0.0, static_cast<double>(weight)));
  double f = x * 8;
  int i = std::min(7, static_cast<int>(f));
  double t = f - i;
  char text[8];
  int c[3];
  for (int k = 0; k < 3; ++k)
    c[k] = static_cast<int>(std::lround(kStops[i][k] + (kStops[i + 1][k] - kStops[i][k]) * t));
  std::snprintf(text, sizeof text, "#%02x%02x%02x", c[0], c[1], c[2]);
  return text;
}

// Width estimate of a label: SVG has no text measurement. ~0.62 em per character.
double text_width(const std::string& text, double font) {
  size_t chars = 0;
  for (unsigned char c : text) chars += (c & 0xC0) != 0x80;
  return chars * font * 0.62;
}

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", x);
  std::string s = text;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

void write_attention_svg(const DumpSentence& sentence, const std::string& type, std::ostream& out) {
  const TypeInfo& info = type_info(type);
  const AttentionMatrices* m = nullptr;
  for (const AttentionMatrices& candidate : sentence.attention)
    if (candidate.type == type) m = &candidate;
  if (!m || m->layers() == 0 || m->heads.empty())
    throw Error("sentence " + std::to_string(sentence.number) + " has no " + info.heading +
                " in the dump");
  const bool encoder = type == "encoder", decoder = type == "decoder";
  const std::vector<std::string>& rows =
      encoder ? sentence.source_tokens : sentence.decoder_input_tokens;
  const std::vector<std::string>& cols =
      decoder ? sentence.decoder_input_tokens : sentence.source_tokens;
  const std::vector<std::string>* right = encoder ? nullptr : &sentence.output_tokens;
  const double cell = 12, font = 10, gap = 18, caption = 16;
  auto widest = [&](const std::vector<std::string>& labels, const char* prefix) {
    double w = 0;
    for (const std::string& l : labels) w = std::max(w, text_width(prefix + l, font));
    return std::min(w, 140.0);
  };
  const double left = widest(rows, "") + 6, top = widest(cols, "") + 6;
  const double right_width = right ? widest(*right, "\u2192 ") + 8 : 0;
  const double map_w = left + m->cols * cell + right_width, map_h = caption + top + m->rows * cell;
  const double header = 64;
  const double width = 10 + m->heads.size() * (map_w + gap),
               height = header + m->layers() * (map_h + gap);

  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << number(width) << "\" height=\""
      << number(height) << "\" viewBox=\"0 0 " << number(width) << ' ' << number(height)
      << "\" font-family=\"DejaVu Sans, Segoe UI, Helvetica, Arial, sans-serif\" font-size=\""
      << number(font) << "\">\n<defs><pattern id=\"mask\" width=\"6\" height=\"6\" "
      << "patternUnits=\"userSpaceOnUse\"><rect width=\"6\" height=\"6\" fill=\"#e3e3e3\"/>"
      << "<path d=\"M-1,7 L7,-1 M-1,1 L1,-1 M5,7 L7,5\" stroke=\"#8c8c8c\" stroke-width=\"1.3\"/>"
      << "</pattern><linearGradient id=\"scale\">";
  for (int i = 0; i < 9; ++i)
    out << "<stop offset=\"" << number(i / 8.0) << "\" stop-color=\"" << shade(i / 8.0f) << "\"/>";
  out << "</linearGradient></defs>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
      << "<text x=\"10\" y=\"18\" font-size=\"14\" font-weight=\"bold\">" << info.heading
      << " &#8212; sentence " << sentence.number
      << "</text>\n<text x=\"10\" y=\"34\" fill=\"#5b6472\">" << html_escape(sentence.source)
      << " &#8594; " << html_escape(sentence.translation) << "</text>\n"
      << "<rect x=\"10\" y=\"42\" width=\"160\" height=\"10\" fill=\"url(#scale)\" "
         "stroke=\"#9aa1ab\"/>"
      << "<text x=\"10\" y=\"62\" font-size=\"9\">0</text><text x=\"170\" y=\"62\" font-size=\"9\" "
      << "text-anchor=\"end\">1</text>";
  if (decoder)
    out << "<rect x=\"190\" y=\"42\" width=\"20\" height=\"10\" fill=\"url(#mask)\" "
           "stroke=\"#9aa1ab\"/>"
        << "<text x=\"216\" y=\"51\" font-size=\"9\">masked (future position)</text>";
  out << '\n';
  for (int l = 0; l < m->layers(); ++l)
    for (size_t h = 0; h < m->heads.size(); ++h) {
      const double x0 = 10 + h * (map_w + gap), y0 = header + l * (map_h + gap);
      out << "<g transform=\"translate(" << number(x0) << ',' << number(y0) << ")\">"
          << "<text y=\"11\" fill=\"#5b6472\">layer " << html_escape(m->layer_labels[l])
          << " &#183; head " << m->heads[h] << "</text>\n";
      const double gx = left, gy = caption + top;
      // One path per colour, of 12x12 squares: the weights in steps of 1/200 (the colour scale
      // cannot show finer ones), a third of the size of one <rect> per cell.
      std::map<int, std::string> squares;
      for (int i = 0; i < m->rows; ++i)
        for (int j = 0; j < m->cols; ++j) {
          if (decoder && j > i) continue;
          float w = std::min(1.0f, std::max(0.0f, m->at(l, static_cast<int>(h), i, j)));
          squares[static_cast<int>(std::lround(w * 200))] +=
              "M" + number(gx + j * cell) + ' ' + number(gy + i * cell) + "h12v12h-12z";
        }
      for (const auto& [level, d] : squares)
        out << "<path fill=\"" << shade(level / 200.0f) << "\" d=\"" << d << "\"/>";
      if (decoder) {  // the causal mask: a staircase above the diagonal
        out << "<path fill=\"url(#mask)\" d=\"M" << number(gx + cell) << ',' << number(gy);
        out << " H" << number(gx + m->cols * cell) << " V"
            << number(gy + std::min(m->rows, m->cols - 1) * cell);
        for (int i = std::min(m->rows, m->cols - 1) - 1; i >= 0; --i)
          out << " H" << number(gx + (i + 1) * cell) << " V" << number(gy + i * cell);
        out << " Z\"/>";
      }
      out << "<rect x=\"" << number(gx - 0.5) << "\" y=\"" << number(gy - 0.5) << "\" width=\""
          << number(m->cols * cell + 1) << "\" height=\"" << number(m->rows * cell + 1)
          << "\" fill=\"none\" stroke=\"#9aa1ab\"/>\n";
      for (int i = 0; i < m->rows; ++i) {
        out << "<text x=\"" << number(gx - 4) << "\" y=\"" << number(gy + i * cell + cell / 2 + 3.5)
            << "\" text-anchor=\"end\">" << html_escape(rows[i]) << "</text>";
        if (right)
          out << "<text x=\"" << number(gx + m->cols * cell + 4) << "\" y=\""
              << number(gy + i * cell + cell / 2 + 3.5) << "\" fill=\"#7a5a00\">&#8594; "
              << html_escape((*right)[i]) << "</text>";
      }
      for (int j = 0; j < m->cols; ++j)
        out << "<text transform=\"translate(" << number(gx + j * cell + cell / 2 + 3.5) << ','
            << number(gy - 4) << ") rotate(-90)\">" << html_escape(cols[j]) << "</text>";
      out << "</g>\n";
    }
  out << "</svg>\n";
}

}  // namespace minimt
