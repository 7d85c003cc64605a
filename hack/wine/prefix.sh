# prefix.sh: sourced by the Wine harness (go_windows_amd64_exec,
# hack/test-windows.sh, hack/bench-wine.sh). It sets up the environment of
# a headless, quiet Wine and creates the prefix once, with the forwarder
# DLL that lets Go >= 1.22 binaries start under Wine 8.
#
#   SANDBOX_WINE_PREFIX  the prefix (default ${XDG_CACHE_HOME:-~/.cache}/sandbox-wine)
#   SANDBOX_WINE         the wine64 binary (default /usr/lib/wine/wine64, else wine64 on PATH)

wine_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export WINEPREFIX=${SANDBOX_WINE_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/sandbox-wine}
export WINEDEBUG=-all DISPLAY= WAYLAND_DISPLAY=
# no Mono or Gecko installer dialogs: the tests are console programs
export WINEDLLOVERRIDES="mscoree,mshtml=;winemenubuilder.exe=d"

# wine_find sets WINE to the wine64 binary, or returns 1.
wine_find() {
  WINE=${SANDBOX_WINE:-}
  if [ -z "$WINE" ]; then
    if [ -x /usr/lib/wine/wine64 ]; then WINE=/usr/lib/wine/wine64
    else WINE=$(command -v wine64 || true); fi
  fi
  [ -n "$WINE" ] && [ -x "$WINE" ] || return 1
  command -v x86_64-w64-mingw32-as >/dev/null && command -v x86_64-w64-mingw32-ld >/dev/null
}

# wine_missing says what to install.
wine_missing() {
  echo "Wine 8 and mingw binutils are needed: apt-get install --no-install-recommends wine64 binutils-mingw-w64-x86-64"
}

# wine_stamp identifies the prefix's recipe: a change rebuilds it.
wine_stamp() {
  cat "$wine_dir/bcryptprimitives.def" "$wine_dir/dllmain.asm" | sha256sum | cut -c1-16
}

# wine_ready creates the prefix and installs the DLL unless done. The
# lock's descriptor is closed before wineboot runs (flock -o): wineserver
# outlives wineboot, and would otherwise hold the lock, stalling every
# other test binary.
wine_ready() {
  local stamp
  stamp=$(wine_stamp)
  [ "$(cat "$WINEPREFIX/.sandbox-stamp" 2>/dev/null)" = "$stamp" ] && return 0
  mkdir -p "$(dirname "$WINEPREFIX")"
  flock -o "$WINEPREFIX.lock" bash "$wine_dir/mkprefix.sh" "$WINE" "$stamp"
}
