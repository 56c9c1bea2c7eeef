#!/bin/bash
# install-deps.sh - make sure the Debian packages benchrun builds and tests
# with are present. As root, installs what is missing with apt-get; otherwise
# prints the exact command to run and fails.
#   usage: build-aux/install-deps.sh [build|test|ci]
#     build: compiler, cmake, pkg-config, jansson, sqlite3 (rocpd input), xz-utils
#     test:  build + cmocka, python3 (test data generators)
#     ci:    test + clang/libFuzzer runtime, numpy (independent binning
#            reference), scipy (the compare clustering reference), Slurm and
#            munge (real one-node cluster tests), chromium (report.html
#            opened in a headless browser, tests/cli/0323)
set -euo pipefail
level=${1:-build}

pkgs=(gcc make cmake pkg-config libjansson-dev libsqlite3-dev xz-utils)   # xz: make demo unpacks the H200 example
case "$level" in
  build) ;;
  test) pkgs+=(libcmocka-dev python3) ;;
  ci)   pkgs+=(libcmocka-dev python3 python3-numpy python3-scipy clang libclang-rt-14-dev
               slurmctld slurmd slurm-client munge chromium) ;;
  *) echo "install-deps.sh: unknown level '$level' (build|test|ci)" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "benchrun: missing build dependencies: ${missing[*]}" >&2
  echo "Run as root:  apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Package scripts must not start daemons (slurm, munge) on a CI machine.
policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && policy=1
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
[ -n "$policy" ] && rm -f /usr/sbin/policy-rc.d
exit 0
