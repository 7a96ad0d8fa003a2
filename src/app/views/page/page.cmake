# Embeds the pages (`minimt view`, `minimt heads --view`) into minimt_app at build time. This
# folder owns them: page.html holds the style (the files of MINIMT_PAGE_STYLES, in that order),
# colour_scales.json and the script (the modules of MINIMT_PAGE_MODULES, in load order, inside
# the page's one closure), without their header comments or the script's comment lines
# (minimt_join_view_files). The C++ side writes only the data, in place of {{data}}: the
# generated header app/views/page/page_files.h holds the page before and after it, and
# colour_scales.json for the SVG. Editing any of these files re-runs this step on the next build.
set(MINIMT_PAGE_STYLES page.css heads_grid.css inside.css)
set(MINIMT_PAGE_MODULES
  numbers.js        # printf's number formats
  colour_scales.js  # the colours, from colour_scales.json
  data.js           # the page's data: sentences, weights, attention types
  dom.js            # building elements, the data's text made visible
  labels.js         # token labels: fitting and measuring
  layout.js         # cell size and labels per row of heads
  values.js         # what the heatmaps draw: weights, scores or weight x norm
  difference.js     # the page of two runs: B - A, its colours and the table of changes
  heatmap.js        # drawing one heatmap
  attribution.js    # view: the attribution maps of a sentence (--attribute)
  legend.js         # the header's colour legend
  controls.js       # the header's menus
  panel.js          # a pinned row: its softmax, the neuron view, the norms
  difference_panel.js  # a pinned row of two runs: each key's values in A and B, and B - A
  reading.js        # hover, pin and click on a cell
  address.js        # the view in the address
  render.js         # drawing the current choice
  lens.js           # view: the logit lens table of a sentence
  difference_lens.js  # view: the logit lens of two runs, B - A
  sentences.js      # view: the sentences and their empty figures
  heads_grid.js     # view: minimt heads' grid of heads
  main.js)          # starts the page
set(MINIMT_VIEW_DIR ${CMAKE_CURRENT_LIST_DIR})

# The text of each of `files` without its leading header comment (// lines or one /* */ block)
# and, in scripts, without the lines that are only a // comment (9 KB less in every page; the
# files are where to read them), joined, without the last newline.
function(minimt_join_view_files out)
  set(joined "")
  foreach(name ${ARGN})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${MINIMT_VIEW_DIR}/${name})
    file(READ ${MINIMT_VIEW_DIR}/${name} text)
    string(REGEX REPLACE "^(//[^\n]*\n)+" "" text "${text}")
    string(REGEX REPLACE "^/\\*[^*]*\\*+([^/*][^*]*\\*+)*/\n" "" text "${text}")
    if(name MATCHES "\\.js$")
      string(REGEX REPLACE "\n[ ]*//[^\n]*" "" text "${text}")
    endif()
    string(APPEND joined "${text}")
  endforeach()
  string(REGEX REPLACE "\n$" "" joined "${joined}")
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()

minimt_join_view_files(MINIMT_PAGE_STYLE ${MINIMT_PAGE_STYLES})
minimt_join_view_files(MINIMT_PAGE_SCRIPT ${MINIMT_PAGE_MODULES})
minimt_join_view_files(MINIMT_COLOUR_SCALES colour_scales.json)
minimt_join_view_files(MINIMT_PAGE page.html)
foreach(marker MINIMT_PAGE_STYLE MINIMT_PAGE_SCRIPT MINIMT_COLOUR_SCALES)
  string(REPLACE "@${marker}@" "${${marker}}" MINIMT_PAGE "${MINIMT_PAGE}")
endforeach()
string(APPEND MINIMT_PAGE "\n")

string(FIND "${MINIMT_PAGE}" "{{data}}" at)
string(FIND "${MINIMT_PAGE}" "{{data}}" last REVERSE)
if(at EQUAL -1 OR NOT at EQUAL last)
  message(FATAL_ERROR "src/app/views/page/page.html must hold the marker {{data}} exactly once")
endif()
string(SUBSTRING "${MINIMT_PAGE}" 0 ${at} MINIMT_PAGE_BEFORE_DATA)
math(EXPR at "${at} + 8")
string(SUBSTRING "${MINIMT_PAGE}" ${at} -1 MINIMT_PAGE_AFTER_DATA)
foreach(text MINIMT_PAGE MINIMT_COLOUR_SCALES)
  string(FIND "${${text}}" ")minimt_page\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "the page must not contain the raw-string delimiter )minimt_page\"")
  endif()
endforeach()
# minimt serve's page (ViewOptions::live): the same page with live.js after the other modules,
# the box that asks the server for the attention of the sentences typed in it.
minimt_join_view_files(MINIMT_LIVE_SCRIPT live.js)
string(FIND "${MINIMT_PAGE_AFTER_DATA}" "${MINIMT_PAGE_SCRIPT}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "src/app/views/page/page.html must hold the script after the data")
endif()
string(REPLACE "${MINIMT_PAGE_SCRIPT}" "${MINIMT_PAGE_SCRIPT}\n${MINIMT_LIVE_SCRIPT}"
       MINIMT_LIVE_PAGE_AFTER_DATA "${MINIMT_PAGE_AFTER_DATA}")
configure_file(${MINIMT_VIEW_DIR}/page_files.h.in
  ${CMAKE_CURRENT_BINARY_DIR}/generated/app/views/page/page_files.h @ONLY)
target_include_directories(minimt_app PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/generated)
