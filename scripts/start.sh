#!/bin/sh
# npm start. The server is one Node process (scripts/start.mjs); this sets how it runs, then
# becomes it (exec), so that nothing of this shell stays resident.
#
# --no-liftoff: V8 compiles WebAssembly (PGlite's PostgreSQL, the semantic model) with its
# optimizing tier only, function by function on first call, instead of a baseline copy of every
# function called plus optimized copies of the hot ones: on PGlite the idle server is 60-80 MB
# smaller, with bench:api's throughput within its noise (README, Performance).
#
# With the embedded database (no DATABASE_URL), its PostgreSQL lives in this process too, and two
# more settings keep what starting it took from staying resident (issue 14 item 5):
# - glibc's malloc gives memory back to the system once more than 1 MB is free at the top of its
#   heap. By default that threshold follows the largest block freed, up to 64 MB, so the
#   compilers' peak at start stayed resident.
# - V8's young generation is held to 8 MB semi-spaces instead of 16, so that it does not idle
#   with a start's worth of garbage.
# With them the idle server was 172-173 MB in bench:memory, against 179-197 MB without, and
# PGlite's CPU per request within the noise of bench:api. On PostgreSQL the idle server is far within bounds already, and there the malloc
# setting cost 5-15% more CPU per request, so it runs with the defaults. A DATABASE_URL given only
# in a .env file is not seen here: that server runs with the defaults, the PostgreSQL choice.
flags=--no-liftoff
if [ -z "${DATABASE_URL:-}" ]; then
  MALLOC_TRIM_THRESHOLD_=${MALLOC_TRIM_THRESHOLD_:-1048576}
  export MALLOC_TRIM_THRESHOLD_
  flags="$flags --max-semi-space-size=8"
fi
exec node $flags "$(dirname "$0")/start.mjs" "$@"
