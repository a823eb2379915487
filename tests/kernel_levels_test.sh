#!/usr/bin/env bash
# The kernel levels as a user meets them (core/kernels.h): `attnviz --version` names the level in use
# and the levels this CPU runs; ATTNVIZ_KERNELS picks each of those; a level this CPU cannot run, or a
# name that is no level, is refused with one line and exit 2 before anything runs.
#   tests/kernel_levels_test.sh ATTNVIZ
set -uo pipefail
attnviz=$1
fail() { echo "kernel_levels_test: $*" >&2; exit 1; }

version=$(env -u ATTNVIZ_KERNELS "$attnviz" --version) || fail "--version exited $?"
line=$(grep '^kernels: ' <<<"$version") || fail "--version names no kernel level: $version"
runs=$(sed -n 's/^kernels: [^ ]* (this CPU runs \([^;]*\);.*/\1/p' <<<"$line" | tr -d ,)
best=${runs%% *}
[ "$(cut -d' ' -f2 <<<"$line")" = "$best" ] || fail "without ATTNVIZ_KERNELS the level in use is not the best this CPU runs: $line"
[ "${runs##* }" = generic ] || fail "generic is not among the levels this CPU runs: $line"

for level in $runs; do
  got=$(ATTNVIZ_KERNELS=$level "$attnviz" --version | sed -n 's/^kernels: \([^ ]*\) .*/\1/p')
  [ "$got" = "$level" ] || fail "ATTNVIZ_KERNELS=$level ran $got"
done

refused() { # LEVEL EXPECTED-MESSAGE
  local out err code
  err=$(ATTNVIZ_KERNELS=$1 "$attnviz" --explain sat 2>&1 >/dev/null); code=$?
  out=$(ATTNVIZ_KERNELS=$1 "$attnviz" --explain sat 2>/dev/null)
  [ "$code" = 2 ] || fail "ATTNVIZ_KERNELS=$1 exited $code, not 2"
  [ -z "$out" ] || fail "ATTNVIZ_KERNELS=$1 still ran: $out"
  [ "$err" = "$2" ] || fail "ATTNVIZ_KERNELS=$1 said: $err (expected: $2)"
}
refused x86-64-v9 "attnviz: ATTNVIZ_KERNELS=x86-64-v9: not a kernel level; this program has x86-64-v4, x86-64-v3, generic"
for level in x86-64-v4 x86-64-v3; do
  grep -qw -- "$level" <<<"$runs" && continue
  err=$(ATTNVIZ_KERNELS=$level "$attnviz" --version 2>&1 >/dev/null)
  [[ "$err" == "attnviz: ATTNVIZ_KERNELS=$level: this CPU cannot run it (it lacks "*"); it runs ${runs// /, }" ]] ||
    fail "ATTNVIZ_KERNELS=$level on a CPU without it said: $err"
done
echo "kernel_levels_test: in use $best; this CPU runs $runs; each chosen, and bad levels refused"
