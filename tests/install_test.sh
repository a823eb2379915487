#!/usr/bin/env bash
# The installed tree, checked as a distribution would. Usage: install_test.sh BUILD_DIR
#   cmake --install into a temporary prefix; the launcher passes desktop-file-validate, the
#   AppStream file `appstreamcli validate --no-net`, the manual page `man -l` without warnings
#   and names every option that `attnviz --help` lists; the icons are where the launcher looks;
#   the installed program runs and finds its assets beside itself.
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "install_test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
share=$prefix/share

desktop-file-validate "$share/applications/attnviz.desktop" || fail "attnviz.desktop is not valid"
metainfo=$(ls "$share"/metainfo/*.metainfo.xml)
appstreamcli validate --no-net "$metainfo" >/dev/null || { appstreamcli validate --no-net "$metainfo"; fail "$metainfo is not valid"; }
launchable=$(sed -n 's:.*<launchable type="desktop-id">\(.*\)</launchable>.*:\1:p' "$metainfo")
[ "$launchable" = attnviz.desktop ] || fail "the AppStream file launches \"$launchable\", not attnviz.desktop"

for icon in scalable/apps/attnviz.svg 48x48/apps/attnviz.png 128x128/apps/attnviz.png 256x256/apps/attnviz.png; do
  [ -s "$share/icons/hicolor/$icon" ] || fail "no icon $icon"
done
for px in 48 128 256; do # a PNG's width and height are bytes 16-23
  size=$(od -An -tu1 -j16 -N8 "$share/icons/hicolor/${px}x${px}/apps/attnviz.png" | awk '{print $3*256+$4 "x" $7*256+$8}')
  [ "$size" = "${px}x${px}" ] || fail "the ${px}x${px} icon is $size"
done

page=$share/man/man1/attnviz.1.gz
warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null) || fail "man -l $page failed: $warnings"
[ -z "$warnings" ] || fail "man -l $page warns: $warnings"
# Every option of --help appears in the page's source (roff writes a hyphen as \-).
source=$(gzip -dc "$page" | sed 's/\\-/-/g; s/\\f[BIRP]//g')
help=$("$prefix/bin/attnviz" --help)
missing=()
for option in $(grep -oE '(^|[[ |])--?[a-z][a-z-]*' <<<"$help" | grep -oE -- '--?[a-z][a-z-]*' | sort -u); do
  grep -qE -- "(^|[^a-z-])$option([^a-z-]|$)" <<<"$source" || missing+=("$option")
done
((${#missing[@]} == 0)) || fail "the manual page (packaging/attnviz.1) lacks ${missing[*]} from attnviz --help"

"$prefix/bin/attnviz" --version | grep -q '^attnviz [0-9]' || fail "the installed attnviz --version says nothing"
[ -d "$share/attnviz/icons" ] || fail "no assets in $share/attnviz"
echo "install_test: $prefix passes"
