# Embeds the page `minimt view` writes into the library: attention_page.html with its script
# (attention_page_data.js then attention_page_draw.js, joined in place of @MINIMT_PAGE_SCRIPT@
# inside the page's one closure, without their leading // header lines) becomes a string
# constant in the generated header minimt/app/attention_page.h. Editing any of the three files
# re-runs this step on the next build.
set(MINIMT_PAGE_PARTS ${CMAKE_CURRENT_LIST_DIR}/attention_page.html
  ${CMAKE_CURRENT_LIST_DIR}/attention_page_data.js ${CMAKE_CURRENT_LIST_DIR}/attention_page_draw.js)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${MINIMT_PAGE_PARTS})
file(READ ${CMAKE_CURRENT_LIST_DIR}/attention_page.html MINIMT_ATTENTION_PAGE)
set(MINIMT_PAGE_SCRIPT "")
foreach(part attention_page_data.js attention_page_draw.js)
  file(READ ${CMAKE_CURRENT_LIST_DIR}/${part} MINIMT_PAGE_PART)
  string(REGEX REPLACE "^(//[^\n]*\n)+" "" MINIMT_PAGE_PART "${MINIMT_PAGE_PART}")
  string(APPEND MINIMT_PAGE_SCRIPT "${MINIMT_PAGE_PART}")
endforeach()
string(REGEX REPLACE "\n$" "" MINIMT_PAGE_SCRIPT "${MINIMT_PAGE_SCRIPT}")
string(REPLACE "@MINIMT_PAGE_SCRIPT@" "${MINIMT_PAGE_SCRIPT}" MINIMT_ATTENTION_PAGE
  "${MINIMT_ATTENTION_PAGE}")
string(FIND "${MINIMT_ATTENTION_PAGE}" ")minimt_page\"" MINIMT_PAGE_CLASH)
if(NOT MINIMT_PAGE_CLASH EQUAL -1)
  message(FATAL_ERROR "the attention page must not contain the raw-string delimiter )minimt_page\"")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/attention_page.h.in
  ${CMAKE_CURRENT_BINARY_DIR}/generated/minimt/app/attention_page.h @ONLY)
target_include_directories(minimt_app PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/generated)
