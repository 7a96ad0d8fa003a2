# Embeds src/app/view/attention_page.html (the page `minimt view` writes) into the library: the file
# becomes a string constant in the generated header minimt/app/attention_page.h. Editing the HTML
# re-runs this step on the next build.
set(MINIMT_ATTENTION_PAGE_HTML ${CMAKE_CURRENT_LIST_DIR}/attention_page.html)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${MINIMT_ATTENTION_PAGE_HTML})
file(READ ${MINIMT_ATTENTION_PAGE_HTML} MINIMT_ATTENTION_PAGE)
string(FIND "${MINIMT_ATTENTION_PAGE}" ")minimt_page\"" MINIMT_PAGE_CLASH)
if(NOT MINIMT_PAGE_CLASH EQUAL -1)
  message(FATAL_ERROR "attention_page.html must not contain the raw-string delimiter )minimt_page\"")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/attention_page.h.in
  ${CMAKE_CURRENT_BINARY_DIR}/generated/minimt/app/attention_page.h @ONLY)
target_include_directories(minimt_app PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/generated)
