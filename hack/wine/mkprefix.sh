#!/usr/bin/env bash
# mkprefix.sh WINE STAMP: run by prefix.sh's wine_ready under the prefix
# lock. Creates $WINEPREFIX (wineboot --init, a few seconds), builds the
# forwarder bcryptprimitives.dll with mingw's as and ld alone, and puts it
# in the prefix's system32.
set -euo pipefail
wine=$1 stamp=$2
here=$(cd "$(dirname "$0")" && pwd)
[ "$(cat "$WINEPREFIX/.sandbox-stamp" 2>/dev/null)" = "$stamp" ] && exit 0 # another waiter did it

if [ ! -f "$WINEPREFIX/system.reg" ]; then
  echo "wine: creating the prefix $WINEPREFIX" >&2
  "$wine" wineboot --init >/dev/null 2>&1 </dev/null
  "${wine%/*}/wineserver" -w 2>/dev/null || true
  # one program run to the end before any test: the first start after
  # wineboot still finishes setting up the prefix
  "$wine" cmd /c exit 0 >/dev/null 2>&1 </dev/null || true
  "${wine%/*}/wineserver" -w 2>/dev/null || true
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
x86_64-w64-mingw32-as -o "$tmp/dllmain.o" "$here/dllmain.asm"
x86_64-w64-mingw32-ld --dll --no-insert-timestamp -e DllMain --subsystem windows \
  -o "$tmp/bcryptprimitives.dll" "$tmp/dllmain.o" "$here/bcryptprimitives.def"
install -m 0644 "$tmp/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
echo "$stamp" >"$WINEPREFIX/.sandbox-stamp"
