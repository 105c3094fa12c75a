#!/bin/sh
# npm start. The server is one Node process (scripts/start.mjs); this sets how it runs, then
# becomes it (exec), so that nothing of this shell stays resident.
#
# With the embedded database (no DATABASE_URL), its PostgreSQL is WebAssembly inside this process,
# and three settings keep what starting it took from staying resident:
# - --no-liftoff: V8 compiles WebAssembly with its optimizing tier only, function by function on
#   first call, instead of a baseline copy of every function called plus optimized copies of the
#   hot ones.
# - glibc's malloc gives memory back to the system once more than 1 MB is free at the top of its
#   heap. By default that threshold follows the largest block freed, up to 64 MB, so the
#   compilers' peak at start stayed resident.
# - V8's young generation is held to 8 MB semi-spaces instead of 16, so that it does not idle
#   with a start's worth of garbage.
# Together they lower the idle server's resident memory markedly (bench:memory; figures in
# docs/performance.md#the-start-script). On PostgreSQL the idle server compiles no WebAssembly:
# --no-liftoff saves nothing there and the malloc setting costs CPU per request, so it runs with
# the defaults.
# A DATABASE_URL given only in a .env file is not seen here: that server runs with the defaults,
# the PostgreSQL choice.
flags=
if [ -z "${DATABASE_URL:-}" ]; then
  MALLOC_TRIM_THRESHOLD_=${MALLOC_TRIM_THRESHOLD_:-1048576}
  export MALLOC_TRIM_THRESHOLD_
  flags="--no-liftoff --max-semi-space-size=8"
fi
exec node $flags "$(dirname "$0")/start.mjs" "$@"
