# What the first command compiles, made cheaper (docs/performance.md, "The first command").
# Most of its CPU time went to the same headers compiled again and again: CLI11 (header-only, its
# inline functions generated anew in each of the 14 command-line files that use it) and
# nlohmann/json (in 41 files). Unity builds compile a floor's files together, several files to
# a compilation, so those headers are parsed and generated once per batch: the command line as
# one batch, base, model and app in batches of 8 (a change there recompiles 8 files, not all).
# The engine stays out: its kernels carry per-file flags and instruction-set pragmas, and its
# files are cheap to compile. MINIMT_UNITY_BUILD=OFF compiles every file alone (to check that
# each includes what it uses).
option(MINIMT_UNITY_BUILD "Compile base, model, app and the command line as unity builds" ON)
if(MINIMT_UNITY_BUILD)
  set_target_properties(minimt_base minimt_model minimt_app PROPERTIES UNITY_BUILD ON)
  set_target_properties(minimt PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
  # A unity build sees every file-local name of its batch: these files define a name that
  # another file of their floor defines too (kMaxConfigBytes; kStops), so they compile alone.
  # A new clash shows as a "redefinition" error in a Unity/unity_N_cxx.cxx: rename, or add here.
  set_source_files_properties(src/model/config.cpp src/app/views/attention_svg.cpp
                              PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endif()

# The command line parses options and hands over to the app floor: its speed never shows, so it
# is compiled with -O1 (half the compile time of -O3) in the optimised configurations; the
# floors below keep the build type's flags.
target_compile_options(minimt PRIVATE $<$<CONFIG:Release,RelWithDebInfo,MinSizeRel>:-O1>)
