#!/usr/bin/env bash
# The window, seen from outside. Usage: screenshot_test.sh CASE ATTNVIZ [XVFB_RUN]
#   png       --screenshot under a virtual X server: exit 0, nothing printed, a 1600×1000 PNG
#             that is not blank
#   projector, uhd   the same on a 1280×720 and a 3840×2160 screen: the window fills the screen
#   light, zoom200   the same with --theme light, and with --zoom 200 (a 2560×1440 screen)
#   bad_file  a bad scenario file: exit 2 and one line naming it, before any window (no DISPLAY)
#   bad_row   --select nosuchrow: exit 2 and one line naming the row, before any window
#   attention --attention FILE --head 2.3 --select 5 on a 1280×720 screen: the Model workspace
#   train, learn   --workspace train, and --lesson, on a 1280×720 screen
#   bad_head  --attention FILE --head 9.1: exit 2 and one line naming the file, before any window
#   model     --model (the bundled model) --text T --head 2.2 on a 1280×720 screen: a head of the
#             model, not of the default scenario (which has one)
set -euo pipefail
case_name=$1 attnviz=$2 xvfb_run=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "screenshot_test $case_name: $*" >&2; exit 1; }

# Runs attnviz with the given arguments; sets rc, out and err.
run() {
  set +e
  "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  set -e
  out=$(cat "$tmp/out") err=$(cat "$tmp/err")
}

# Checks the PNG's header (WIDTH×HEIGHT, 8-bit RGBA) and prints how many distinct 4-byte values its
# filtered scanlines hold. A flat colour filters (None, Sub, Up, Average or Paeth) to at most a few
# per row; antialiased text gives thousands. Unfiltering in pure Python would take seconds.
png_variety() {
  python3 - "$@" <<'PY'
import struct, sys, zlib
path, want = sys.argv[1], (int(sys.argv[2]), int(sys.argv[3]))
data = open(path, 'rb').read()
if data[:8] != b'\x89PNG\r\n\x1a\n': sys.exit(f'{path}: not a PNG')
w, h, depth, colour = struct.unpack('>IIBB', data[16:26])
if (w, h) != want: sys.exit(f'{path}: {w}x{h}, expected {want[0]}x{want[1]}')
if (depth, colour) != (8, 6): sys.exit(f'{path}: not 8-bit RGBA')
idat, pos = b'', 8
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    if kind == b'IDAT': idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw, stride = zlib.decompress(idat), w * 4 + 1
if len(raw) != h * stride: sys.exit(f'{path}: {len(raw)} bytes of pixels, expected {h * stride}')
values = set()
for y in range(0, h, max(1, h // 1000)):  # every row up to 1000 rows, then evenly spaced ones
    row = raw[y * stride + 1:(y + 1) * stride]
    values.update(row[i:i + 4] for i in range(0, len(row), 4))
print(len(values))
PY
}

# A screenshot on a WIDTHxHEIGHT virtual screen, with more arguments: a PNG as large as the screen.
shot() {
  local width=$1 height=$2
  shift 2
  [ -n "$xvfb_run" ] || fail "needs xvfb-run"
  run "$xvfb_run" -a -s "-screen 0 ${width}x${height}x24" "$attnviz" --screenshot "$tmp/shot.png" "$@"
  [ "$rc" -eq 0 ] || fail "exit $rc, expected 0: $err"
  [ -z "$out" ] || fail "printed on stdout: $out"
  [ -s "$tmp/shot.png" ] || fail "no PNG written"
  variety=$(png_variety "$tmp/shot.png" "$width" "$height") || fail "bad PNG"
  [ "$variety" -ge 64 ] || fail "only $variety distinct pixel values: the window looks blank"
}

# A (2, 3, 8, 8) .npy of causal attention weights (each row even over the keys so far), written
# without NumPy.
attention_npy() {
  python3 - "$1" <<'PY'
import struct, sys
L, H, n = 2, 3, 8
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d, %d, %d), }" % (L, H, n, n)
header += ' ' * (63 - (10 + len(header)) % 64) + '\n'
values = [1.0 / (i + 1) if j <= i else 0.0 for _ in range(L * H) for i in range(n) for j in range(n)]
with open(sys.argv[1], 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode() + struct.pack('<%df' % len(values), *values))
PY
}

case $case_name in
  png) shot 1600 1000 ;;
  projector) shot 1280 720 ;;
  uhd) shot 3840 2160 ;;
  light) shot 1600 1000 --theme light ;;
  zoom200) shot 2560 1440 --zoom 200 ;;
  bad_file)
    printf '{"X": [[1, 0], [0, 1]], "W_Q": [[1]]' >"$tmp/bad.json"
    run env -u DISPLAY -u WAYLAND_DISPLAY "$attnviz" --screenshot "$tmp/shot.png" "$tmp/bad.json"
    [ "$rc" -eq 2 ] || fail "exit $rc, expected 2: $err"
    [[ $err == "attnviz: $tmp/bad.json: "* ]] || fail "message does not name the file: $err"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "more than one line: $err"
    [ ! -e "$tmp/shot.png" ] || fail "wrote a PNG anyway"
    ;;
  bad_row)
    run env -u DISPLAY -u WAYLAND_DISPLAY "$attnviz" --screenshot "$tmp/shot.png" --select nosuchrow
    [ "$rc" -eq 2 ] || fail "exit $rc, expected 2: $err"
    [[ $err == *'no row "nosuchrow"'* ]] || fail "message does not name the row: $err"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "more than one line: $err"
    ;;
  attention)
    attention_npy "$tmp/att.npy"
    shot 1280 720 --attention "$tmp/att.npy" --head 2.3 --select 5
    ;;
  train) shot 1280 720 --workspace train ;;
  learn) shot 1280 720 --lesson every-token ;;
  bad_head)
    attention_npy "$tmp/att.npy"
    run env -u DISPLAY -u WAYLAND_DISPLAY "$attnviz" --screenshot "$tmp/shot.png" --attention "$tmp/att.npy" --head 9.1
    [ "$rc" -eq 2 ] || fail "exit $rc, expected 2: $err"
    [[ $err == "attnviz: $tmp/att.npy: --head 9.1, but the file has 2 layers of 3 heads" ]] || fail "message: $err"
    [ ! -e "$tmp/shot.png" ] || fail "wrote a PNG anyway"
    ;;
  model) shot 1280 720 --model "$(dirname "$0")/../assets/models/austen-gpt2" --text "Elizabeth looked at Darcy again." --head 2.2 ;;
  *) fail "unknown case (png, projector, uhd, light, zoom200, bad_file, bad_row, attention, train, learn, bad_head, model)" ;;
esac
