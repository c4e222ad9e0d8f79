#!/usr/bin/env bash
# Starts a real server for the tests on this machine and prints its URL, one line:
#   scripts/local-server.sh redis       redis://127.0.0.1:PORT
#   scripts/local-server.sh postgres    postgres://postgres@127.0.0.1:PORT/postgres  (trust on loopback)
#   scripts/local-server.sh stop NAME   stops it (nothing to do when it is not running)
#
# The server listens on 127.0.0.1 at a free port, keeps its data under .data/servers/NAME/ and is
# reused while it runs (idempotent, keyed by .data/servers/NAME/pid; the port is in .../port). When
# its binaries are missing it installs Debian's package (apt-get update once, then install), which
# needs root and apt-get; elsewhere it says what to install. PostgreSQL refuses to run as root: as
# root its data directory belongs to the `postgres` system user and its commands run as that user.
#
# A new server is one case in each of: package, binaries_present, start_server, url (and stop_server
# when SIGTERM to its pid is not the clean way to stop it).
set -euo pipefail

usage() {
  echo "usage: scripts/local-server.sh [stop] redis|postgres" >&2
  exit 2
}

action=start
if [[ "${1:-}" == stop ]]; then
  action=stop
  shift
fi
[[ $# -eq 1 ]] || usage
name="$1"
case "$name" in redis | postgres) ;; *) usage ;; esac

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/.data/servers/$name"
pid_file="$dir/pid"
port_file="$dir/port"
log="$dir/server.log"

# --- per server -----------------------------------------------------------------------------------

# The Debian package that brings the server's binaries.
package() {
  case "$name" in
    redis) echo redis-server ;;
    postgres) echo postgresql ;;
  esac
}

# Debian keeps PostgreSQL's server binaries per major version; the newest installed one wins.
pg_bin() {
  local bin
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [[ -z "$bin" ]] && command -v pg_ctl >/dev/null 2>&1; then
    bin="$(dirname "$(command -v pg_ctl)")"
  fi
  echo "$bin"
}

binaries_present() {
  case "$name" in
    redis) command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 ;;
    postgres) [[ -n "$(pg_bin)" && -x "$(pg_bin)/initdb" && -x "$(pg_bin)/pg_ctl" ]] ;;
  esac
}

url() {
  case "$name" in
    redis) echo "redis://127.0.0.1:$1" ;;
    postgres) echo "postgres://postgres@127.0.0.1:$1/postgres" ;;
  esac
}

# answers PORT: the server on PORT takes requests.
answers() {
  case "$name" in
    redis) redis-cli -h 127.0.0.1 -p "$1" ping ;;
    postgres) "$(pg_bin)/pg_isready" -q -h 127.0.0.1 -p "$1" ;;
  esac
}

# as_owner CMD...: runs CMD as the user that owns the server's data (postgres, when we are root).
as_owner() {
  if [[ "$name" == postgres && $(id -u) == 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# start_server PORT: starts the server in the background, waits until it answers, and writes its pid.
start_server() {
  local port="$1"
  case "$name" in
    redis)
      # No snapshots, no append-only file: a test server that starts empty each time.
      redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' --appendonly no \
        --daemonize yes --pidfile "$dir/redis.pid" --logfile "$log" >/dev/null
      wait_until answers "$port"
      cp "$dir/redis.pid" "$pid_file"
      ;;
    postgres)
      local bin data="$dir/data"
      bin="$(pg_bin)"
      if [[ $(id -u) == 0 ]]; then
        id postgres >/dev/null 2>&1 || fail "no postgres system user to run PostgreSQL as (apt-get install postgresql creates it)"
        chown postgres: "$dir"
        runuser -u postgres -- test -w "$dir" ||
          fail "the postgres user cannot reach $dir (a parent directory is not searchable by others)"
      fi
      if [[ ! -f "$data/PG_VERSION" ]]; then
        rm -rf "$data"
        as_owner "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --no-instructions >"$dir/initdb.log" 2>&1 ||
          fail "initdb failed, see $dir/initdb.log"
      fi
      touch "$log"
      if [[ $(id -u) == 0 ]]; then chown postgres: "$log"; fi
      # Loopback TCP only: no Unix socket (its default directory may not exist, and a path under a
      # deep checkout can exceed the socket path limit).
      as_owner "$bin/pg_ctl" -D "$data" -l "$log" -w -t 60 \
        -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=''" start >/dev/null ||
        fail "PostgreSQL did not start, see $log"
      head -n 1 "$data/postmaster.pid" >"$pid_file"
      ;;
  esac
}

stop_server() {
  local pid="$1"
  case "$name" in
    postgres) as_owner "$(pg_bin)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null ;;
    *) kill "$pid" 2>/dev/null || true ;;
  esac
  local waited=0
  while alive "$pid"; do
    ((waited++ < 300)) || fail "$name (pid $pid) did not stop in 30 s"
    sleep 0.1
  done
}

# --- common ---------------------------------------------------------------------------------------

fail() {
  echo "local-server: $name: $*" >&2
  exit 1
}

# wait_until CMD...: polls CMD for up to 30 s.
wait_until() {
  local tries=0
  until "$@" >/dev/null 2>&1; do
    ((tries++ < 300)) || fail "did not answer in 30 s, see $log"
    sleep 0.1
  done
}

# alive PID: the process exists and is not a zombie (a daemon whose reaper never reaped it).
alive() {
  kill -0 "$1" 2>/dev/null && [[ "$(ps -o stat= -p "$1" 2>/dev/null)" != Z* ]]
}

# running_pid: prints the pid of the server this script started, when it is still up and answering.
running_pid() {
  local pid
  [[ -f "$pid_file" && -f "$port_file" ]] || return 1
  pid="$(cat "$pid_file")"
  [[ -n "$pid" ]] && alive "$pid" && answers "$(cat "$port_file")" >/dev/null 2>&1 && echo "$pid"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

install_package() {
  binaries_present && return
  local pkg
  pkg="$(package)"
  if ! command -v apt-get >/dev/null 2>&1 || [[ $(id -u) != 0 ]]; then
    fail "not installed; install Debian's $pkg (or your system's $name server) and run this again"
  fi
  echo "local-server: installing $pkg from Debian's packages (first run only)..." >&2
  apt-get update -qq >&2
  # The package's own service may try to start and fail without an init system; its binaries are
  # what we need.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >&2 ||
    binaries_present || fail "apt-get install $pkg failed"
  binaries_present || fail "Debian's $pkg did not bring the binaries this script runs"
}

mkdir -p "$dir"
# One caller at a time per server: two test runs asking at once get the same server.
exec 9>"$root/.data/servers/$name.lock"
command -v flock >/dev/null 2>&1 && flock 9

if [[ "$action" == stop ]]; then
  if pid="$(running_pid)"; then
    stop_server "$pid" 9>&-
    echo "local-server: $name stopped" >&2
  fi
  rm -f "$pid_file" "$port_file"
  exit 0
fi

if running_pid >/dev/null; then
  url "$(cat "$port_file")"
  exit 0
fi
install_package
rm -f "$pid_file" "$port_file"
port="$(free_port)"
# The server must not inherit the lock's descriptor (a daemon would hold the lock for its lifetime).
start_server "$port" 9>&-
echo "$port" >"$port_file"
url "$port"
