#!/usr/bin/env bash
# Fails when a lower floor reaches a higher one (docs/architecture.md):
#   base < engine < model < app < python < serve < cli   (python: the Python module's front end,
#   serve: minimt serve's, which the CLI starts)
# 1. includes: no file of a floor includes a header of a higher floor;
# 2. symbols: no floor's library needs a minimt symbol that only a higher floor's library
#    defines (so the linker would need the higher floor), read with nm from BUILD_DIR;
# 3. the CLI only parses: src/cli includes from app only the headers listed in cli_app_headers
#    below, and from engine only blas_runtime.h and kernel_registry.h (see there why).
#   tools/check-floors.sh [BUILD_DIR]   (default build; step 2 is skipped when the libraries are
#                                        not built, and says so)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
floors=(base engine model app python serve cli)
failures=0

rank() { local i; for i in "${!floors[@]}"; do [[ ${floors[$i]} == "$1" ]] && echo "$i"; done; return 0; }

for floor in "${floors[@]}"; do
  mine=$(rank "$floor")
  files=$(find "src/$floor" "include/minimt/$floor" -type f \( -name '*.h' -o -name '*.cpp' \) 2>/dev/null || true)
  for file in $files; do
    while IFS= read -r line; do
      included=$(sed -E 's/^#include "(minimt\/([a-z]+)|([a-z]+))\/.*$/\2\3/' <<<"$line")
      other=$(rank "$included")
      [[ -z "$other" ]] && continue
      if ((other > mine)); then
        echo "check-floors: $file ($floor) includes a higher floor: $line" >&2
        failures=$((failures + 1))
      fi
    done < <(grep -E '^#include "(minimt/)?[a-z]+/' "$file" || true)
  done
done

# app's rooms (docs/architecture.md), each reaching only the rooms before it:
#   io < translate < analysis < record < views < run
# io: where lines come from and where outputs go (files, pipes, the terminal); translate: the
# translator and its batches; analysis: alignment, head analysis, rollout; record: the attention
# dump, in memory and as JSON; views: the page, the SVG, the terminal pictures, the head table;
# run: requests and their runs (translate, score, heads, serve's queue).
# Only io touches file descriptors (POSIX headers): a front end that gives app its lines and
# takes its outputs another way (a Python module, a WebAssembly build) leaves io out.
rooms=(io translate analysis record views run)
room_rank() { local i; for i in "${!rooms[@]}"; do [[ ${rooms[$i]} == "$1" ]] && echo "$i"; done; return 0; }
for file in $(find src/app include/minimt/app -type f \( -name '*.h' -o -name '*.cpp' \)); do
  room=$(sed -E 's#^(src|include/minimt)/app/([a-z]+)/.*#\2#' <<<"$file")
  mine=$(room_rank "$room")
  if [[ -z "$mine" ]]; then
    echo "check-floors: $file is in no room of app (${rooms[*]})" >&2
    failures=$((failures + 1))
    continue
  fi
  while IFS= read -r other_room; do
    other=$(room_rank "$other_room")
    if [[ -z "$other" ]] || ((other > mine)); then
      echo "check-floors: $file (app/$room) includes a later room: app/$other_room" >&2
      failures=$((failures + 1))
    fi
  done < <(sed -nE 's#^\#include "(minimt/)?app/([a-z]+)/.*#\2#p' "$file")
  if [[ $room != io ]] && grep -qE '^#include <(unistd|fcntl|poll|sched|termios)\.h>|^#include <sys/' "$file"; then
    echo "check-floors: $file (app/$room) includes a POSIX header: only app/io touches descriptors" >&2
    failures=$((failures + 1))
  fi
done

# The CLI fills requests from flags and maps exceptions to exit statuses; decoding (translator,
# batch runner, engine), recording (attention dumps, alignment, head masks) and choosing what
# a record says (output records) happen in app, where a second front end finds them. So src/cli
# may include from app only these: the requests and their runs, where lines come from, the
# files and the terminal, the attention page of minimt view and the terminal heatmaps of
# minimt show (a dump read and drawn, nothing decoded), and the table of request options the
# flags of translate and score are made from.
# From engine it may include only blas_runtime.h (the process's BLAS threads and core type) and
# kernel_registry.h (minimt info lists the kernels this CPU runs; the registry chooses them).
# A new app header a subcommand needs goes here only if it decodes, records and selects nothing.
cli_app_headers=(request.h request_options.h request_plan.h request_run.h heads_run.h line_source.h
                 line_reader.h output_file.h output_writer.h progress.h attention_view.h
                 attention_show.h serving_queue.h generation_defaults.h model_info.h
                 model_search.h)
cli_engine_headers=(blas_runtime.h kernel_registry.h)
# minimt tokenize prints the ids the encoder reads (Translator::source_ids); it translates nothing.
cli_exceptions=("src/cli/tokenize_command.cpp:minimt/app/translate/translator.h")

allowed_in_cli() {  # FILE HEADER (e.g. minimt/app/run/request.h)
  local file=$1 header=$2 name floor
  floor=$(cut -d/ -f2 <<<"$header")
  name=${header##*/}
  local -n list=cli_${floor}_headers
  for allowed in "${list[@]}"; do [[ $name == "$allowed" ]] && return 0; done
  for exception in "${cli_exceptions[@]}"; do [[ $exception == "$file:$header" ]] && return 0; done
  return 1
}

for file in $(find src/cli -type f \( -name '*.h' -o -name '*.cpp' \)); do
  while IFS= read -r header; do
    if ! allowed_in_cli "$file" "$header"; then
      echo "check-floors: $file includes $header: decoding, recording and choosing outputs" \
           "belong in app (tools/check-floors.sh lists what src/cli may include)" >&2
      failures=$((failures + 1))
    fi
  done < <(sed -nE 's/^#include "(minimt\/(app|engine)\/[^"]+)".*/\1/p' "$file")
done

libraries=(base engine model app serve)
if [[ -f "$build/libminimt_app.a" ]]; then
  for i in "${!libraries[@]}"; do
    lib="$build/libminimt_${libraries[$i]}.a"
    # Symbols this floor needs from outside itself, in namespace minimt.
    needed=$(comm -23 <(nm -C -u "$lib" | sed -E 's/^ *U //' | grep '^minimt::' | sort -u) \
                      <(nm -C --defined-only "$lib" | sed -E 's/^[0-9a-f]+ [A-Za-z] //' | sort -u))
    [[ -z "$needed" ]] && continue
    # Everything the floors at or below this one define.
    below=$(for j in $(seq 0 "$i"); do
      nm -C --defined-only "$build/libminimt_${libraries[$j]}.a" | sed -E 's/^[0-9a-f]+ [A-Za-z] //'
    done | sort -u)
    missing=$(comm -23 <(echo "$needed") <(echo "$below"))
    if [[ -n "$missing" ]]; then
      echo "check-floors: libminimt_${libraries[$i]}.a needs symbols of a higher floor:" >&2
      echo "$missing" | sed 's/^/  /' >&2
      failures=$((failures + 1))
    fi
  done
else
  echo "check-floors: $build/libminimt_app.a not built: symbol check skipped" >&2
fi

if ((failures)); then
  echo "check-floors: $failures violation(s)" >&2
  exit 1
fi
echo "check-floors: every floor reaches only the floors below it; src/cli includes only what it may"
