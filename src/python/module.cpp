// minimt._core: the engine for Python (the package src/python/minimt/ wraps it). A front end like
// the CLI and the server: it fills app's requests and runs them, never the engine directly.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include "minimt/app/io/model_search.h"
#include "minimt/app/record/attention_dump.h"
#include "minimt/app/record/dump_reader.h"
#include "minimt/app/run/request_options.h"
#include "minimt/app/views/attention_view.h"
#include "minimt/app/views/model_info.h"
#include "minimt/base/error.h"
#include "minimt/engine/blas_runtime.h"
#include "minimt/model/paths.h"
#include "python/python_run.h"
#include "python/sentence_arrays.h"

namespace py = pybind11;
using namespace minimt;
using minimt::python::SentenceAttention;

namespace {

std::string variable(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// The environment as the CLI reads it; the module's folder stands for the executable's: in a
// build tree BUILD/python/minimt (BUILD holds CMakeCache.txt), installed
// PREFIX/lib/python3/dist-packages/minimt (the models in PREFIX/share/minimt/models).
ModelEnvironment module_environment(const std::string& module_dir) {
  // PREFIX/share/minimt/models and BUILD/../models are found from the program's folder's parent.
  const auto real = [](const std::string& path) {
    char* resolved = realpath(path.c_str(), nullptr);
    std::string result = resolved ? resolved : path;
    std::free(resolved);
    return result;
  };
  const std::string build = real(module_dir + "/../..");
  const bool build_tree = file_size(build + "/CMakeCache.txt") >= 0;
  return read_model_environment(build_tree ? build : real(module_dir + "/../../.."), build_tree);
}

// A loaded model, shared by the calls that run it (pybind11 holds no pointer to const).
struct LoadedModel {
  std::shared_ptr<const Model> model;
};

std::shared_ptr<LoadedModel> load(const std::string& name_or_path, const std::string& compute_type,
                                  const std::string& module_dir) {
  const ModelEnvironment env = module_environment(module_dir);
  py::gil_scoped_release free;  // loading reads and packs every weight
  return std::make_shared<LoadedModel>(
      LoadedModel{load_model(name_or_path, compute_type, env, "compute_type")});
}

py::tuple run(const LoadedModel& loaded, bool scoring, std::vector<std::string> lines,
              const py::dict& options, bool attention, int threads, int batch_size) {
  python::PythonRequest request = python::python_request(
      scoring ? RequestKind::kScore : RequestKind::kTranslate, options, attention);
  python::RunOutput output =
      python::run_lines(loaded.model, std::move(request), std::move(lines), threads, batch_size);
  return py::make_tuple(output.records, output.attention, output.warnings);
}

AttentionDump dump_of(const std::vector<std::shared_ptr<SentenceAttention>>& sentences) {
  if (sentences.empty()) throw Error("no sentences with attention");
  AttentionDump dump = *sentences.front()->header;
  int number = 0;
  for (const auto& s : sentences) {
    dump.sentences.push_back(s->sentence);
    dump.sentences.back().number = ++number;
  }
  return dump;
}

std::string page(const std::vector<std::shared_ptr<SentenceAttention>>& sentences,
                 const std::string& title) {
  AttentionDump dump = dump_of(sentences);
  ViewOptions options;
  options.title = title;
  std::ostringstream out;
  write_attention_page(dump, out, options);
  return out.str();
}

// The dump the CLI writes for these sentences (--dump-attention), byte for byte.
std::string dump_text(const std::vector<std::shared_ptr<SentenceAttention>>& sentences) {
  const AttentionDump dump = dump_of(sentences);
  std::ostringstream out;
  AttentionDumpWriter writer(out, dump);
  for (const DumpSentence& sentence : dump.sentences) writer.add(sentence);
  writer.finish();
  return out.str();
}

std::vector<std::shared_ptr<SentenceAttention>> load_dump(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot open " + path);
  auto whole = std::make_shared<AttentionDump>(read_attention_dump(in, path));
  std::vector<DumpSentence> sentences = std::move(whole->sentences);
  whole->sentences.clear();
  std::vector<std::shared_ptr<SentenceAttention>> result;
  for (DumpSentence& s : sentences)
    result.push_back(std::make_shared<SentenceAttention>(SentenceAttention{whole, std::move(s)}));
  return result;
}

py::list options_table() {
  py::list table;
  for (const RequestOption& o : request_options())
    table.append(py::dict(py::arg("name") = o.name, py::arg("type") = option_type_name(o.type),
                          py::arg("translate") = (o.uses & kForTranslate) != 0,
                          py::arg("score") = (o.uses & kForScore) != 0,
                          py::arg("attention") = (o.uses & kForAttention) != 0,
                          py::arg("help") = o.help));
  return table;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "minimt's engine: models, translation, scoring and attention (see the minimt package)";
  // As the executable does at its start (cli/blas_setup.h): OpenBLAS, where attribution's
  // products may go, on the CPU's own core and one thread unless the user said otherwise, so
  // that Python gives the CLI's numbers. Too late when numpy loaded OpenBLAS first: import
  // minimt first, or set OPENBLAS_CORETYPE (docs/python.md).
  const BlasEnvironment blas = blas_environment(
      std::getenv("OPENBLAS_CORETYPE"), std::getenv("OPENBLAS_NUM_THREADS"), preferred_blas_core());
  if (!blas.core_type.empty()) setenv("OPENBLAS_CORETYPE", blas.core_type.c_str(), 1);
  if (!blas.num_threads.empty()) setenv("OPENBLAS_NUM_THREADS", blas.num_threads.c_str(), 1);
  // The Python classes of minimt's errors are made by the package (minimt/__init__.py) and
  // handed in, so that they subclass the right built-in ones (ValueError, OSError).
  static py::object request_error, model_error, io_error, input_error, error;
  m.def("_set_errors",
        [](py::object e, py::object request, py::object model, py::object io, py::object input) {
          error = e;
          request_error = request;
          model_error = model;
          io_error = io;
          input_error = input;
        });
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const RequestError& e) {
      PyErr_SetObject(request_error.ptr(), py::make_tuple(e.what(), e.field()).ptr());
    } catch (const ModelError& e) {
      PyErr_SetObject(model_error.ptr(), py::make_tuple(e.what()).ptr());
    } catch (const IoError& e) {
      PyErr_SetObject(io_error.ptr(), py::make_tuple(e.what()).ptr());
    } catch (const InputError& e) {
      PyErr_SetObject(input_error.ptr(), py::make_tuple(e.what()).ptr());
    } catch (const Error& e) {
      PyErr_SetObject(error.ptr(), py::make_tuple(e.what()).ptr());
    }
  });

  py::class_<LoadedModel, std::shared_ptr<LoadedModel>>(m, "Model")
      .def_property_readonly("directory", [](const LoadedModel& l) { return l.model->directory(); })
      .def_property_readonly(
          "compute_type", [](const LoadedModel& l) { return to_string(l.model->compute_type()); })
      .def_property_readonly("warnings",
                             [](const LoadedModel& l) { return l.model->config().warnings; })
      .def("info", [](const LoadedModel& l) {
        return model_info(*l.model, variable("OPENBLAS_CORETYPE"));
      });
  m.def("load", &load, py::arg("name_or_path"), py::arg("compute_type"), py::arg("module_dir"));
  m.def("run", &run, py::arg("model"), py::arg("scoring"), py::arg("lines"), py::arg("options"),
        py::arg("attention"), py::arg("threads"), py::arg("batch_size"));

  py::class_<SentenceAttention, std::shared_ptr<SentenceAttention>>(m, "SentenceAttention")
      .def("arrays", [](const SentenceAttention& s) { return python::sentence_arrays(s.sentence); })
      .def("labels", [](const SentenceAttention& s) { return python::sentence_labels(s.sentence); })
      .def_property_readonly("model", [](const SentenceAttention& s) { return s.header->model; })
      .def_property_readonly("compute_type",
                             [](const SentenceAttention& s) { return s.header->compute_type; })
      .def_property_readonly("masked_heads",
                             [](const SentenceAttention& s) { return s.header->masked_heads; })
      .def_property_readonly("notes", [](const SentenceAttention& s) { return s.header->notes; })
      .def_property_readonly("source", [](const SentenceAttention& s) { return s.sentence.source; })
      .def_property_readonly("translation",
                             [](const SentenceAttention& s) { return s.sentence.translation; })
      .def_property_readonly("error", [](const SentenceAttention& s) { return s.sentence.error; })
      .def_property_readonly("output_log_probs", [](const SentenceAttention& s) {
        return s.sentence.output_log_probs;
      });
  m.def("page", &page, py::arg("sentences"), py::arg("title") = "");
  m.def("load_dump", &load_dump, py::arg("path"));
  m.def("dump_text", &dump_text, py::arg("sentences"));
  m.def("options", &options_table);
}
