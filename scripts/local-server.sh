#!/usr/bin/env bash
# Starts a real server for the tests on this machine and prints its URL, one line:
#   scripts/local-server.sh redis       redis://127.0.0.1:PORT
#   scripts/local-server.sh postgres    postgres://postgres@127.0.0.1:PORT/postgres  (trust on loopback)
#   scripts/local-server.sh rabbitmq    amqp://guest:guest@127.0.0.1:PORT  (Debian's rabbitmq-server: its
#                                       own node name, Erlang cookie, data dir; epmd on loopback)
#   scripts/local-server.sh kafka       kafka://127.0.0.1:PORT  (KRaft, one node, from Kafka's jars on
#                                       Maven Central, fetched once into .tools/kafka-VERSION/)
#   scripts/local-server.sh stop NAME   stops it (nothing to do when it is not running); a restart
#                                       takes the same port again when it is still free
#   scripts/local-server.sh stop epmd   stops Erlang's port mapper once no RabbitMQ node uses it
#   scripts/local-server.sh redis@down  a second server of the same kind (own data dir and port): a
#                                       test that stops and restarts a server uses its own instance
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
  echo "usage: scripts/local-server.sh [stop] redis|postgres|rabbitmq|kafka[@INSTANCE]" >&2
  exit 2
}

action=start
if [[ "${1:-}" == stop ]]; then
  action=stop
  shift
fi
[[ $# -eq 1 ]] || usage
name="$1"
# Erlang's port mapper, once no RabbitMQ node is registered with it (stop_server leaves it running).
if [[ "$action" == stop && "$name" == epmd ]]; then
  if command -v epmd >/dev/null 2>&1 && ! ERL_EPMD_ADDRESS=127.0.0.1 epmd -names 2>/dev/null | grep -q '^name '; then
    epmd -kill >/dev/null 2>&1 || true
  fi
  exit 0
fi
# NAME is KIND or KIND@INSTANCE: each instance its own server, data dir and port.
kind="${name%%@*}"
case "$kind" in redis | postgres | rabbitmq | kafka) ;; *) usage ;; esac
[[ "$name" =~ ^[a-z]+(@[A-Za-z0-9_-]+)?$ ]] || usage

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/.data/servers/$name"
pid_file="$dir/pid"
port_file="$dir/port"
log="$dir/server.log"

# --- per server -----------------------------------------------------------------------------------

# The Debian package that brings the server's binaries.
package() {
  case "$kind" in
    redis) echo redis-server ;;
    postgres) echo postgresql ;;
    rabbitmq) echo rabbitmq-server ;;
    kafka) echo "openjdk-17-jre-headless maven" ;;
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
  case "$kind" in
    redis) command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 ;;
    postgres) [[ -n "$(pg_bin)" && -x "$(pg_bin)/initdb" && -x "$(pg_bin)/pg_ctl" ]] ;;
    rabbitmq) [[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ]] ;;
    kafka) command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1 ;;
  esac
}

url() {
  case "$kind" in
    redis) echo "redis://127.0.0.1:$1" ;;
    postgres) echo "postgres://postgres@127.0.0.1:$1/postgres" ;;
    rabbitmq) echo "amqp://guest:guest@127.0.0.1:$1" ;;
    kafka) echo "kafka://127.0.0.1:$1" ;;
  esac
}

# answers PORT: the server on PORT takes requests.
answers() {
  case "$kind" in
    redis) redis-cli -h 127.0.0.1 -p "$1" ping ;;
    postgres) "$(pg_bin)/pg_isready" -q -h 127.0.0.1 -p "$1" ;;
    # The listener opens once the node has booted; for Kafka, once the broker has joined its quorum.
    rabbitmq | kafka) tcp_open "$1" ;;
  esac
}

# as_owner CMD...: runs CMD as the user that owns the server's data (postgres, when we are root).
as_owner() {
  if [[ "$kind" == postgres && $(id -u) == 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# start_server PORT: starts the server in the background, waits until it answers, and writes its pid.
start_server() {
  local port="$1"
  case "$kind" in
    redis)
      # No snapshots, no append-only file: a test server that starts empty each time.
      redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' --appendonly no \
        --daemonize yes --pidfile "$dir/redis.pid" --logfile "$log" >/dev/null
      wait_until answers "$port"
      cp "$dir/redis.pid" "$pid_file"
      ;;
    rabbitmq)
      mkdir -p "$dir/home" "$dir/mnesia" "$dir/log"
      # The Erlang cookie of this node only, owner-readable (Erlang refuses any other mode); the CLI
      # tools reach the node with HOME=$dir/home.
      if [[ ! -s "$dir/home/.erlang.cookie" ]]; then
        python3 -c 'import secrets; print(secrets.token_hex(20), end="")' >"$dir/home/.erlang.cookie"
      fi
      chmod 600 "$dir/home/.erlang.cookie"
      echo '[].' >"$dir/enabled_plugins"
      rm -f "$dir/rabbit.pid"
      # The node's name is unique on the machine (one epmd for all): the instance and this checkout
      # (two checkouts' `rabbitmq` under one name: the second node never booted, 120 s lost).
      local node
      node="rabbit-${name//@/-}-$(printf %s "$root" | cksum | cut -d' ' -f1)@localhost"
      HOME="$dir/home" ERL_EPMD_ADDRESS=127.0.0.1 \
        RABBITMQ_NODENAME="$node" RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 \
        RABBITMQ_NODE_PORT="$port" RABBITMQ_DIST_PORT="$(free_port)" \
        RABBITMQ_MNESIA_BASE="$dir/mnesia" RABBITMQ_LOG_BASE="$dir/log" RABBITMQ_PID_FILE="$dir/rabbit.pid" \
        RABBITMQ_ENABLED_PLUGINS_FILE="$dir/enabled_plugins" RABBITMQ_CONFIG_FILE="$dir/rabbitmq" \
        RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}" \
        nohup /usr/lib/rabbitmq/bin/rabbitmq-server >"$log" 2>&1 &
      local started=$!
      wait_until answers "$port" 120
      if [[ -s "$dir/rabbit.pid" ]]; then cp "$dir/rabbit.pid" "$pid_file"; else echo "$started" >"$pid_file"; fi
      ;;
    kafka)
      local libs cport
      libs="$(kafka_libs)"
      cport="$(free_port)"
      mkdir -p "$dir/logs"
      cat >"$dir/server.properties" <<PROPERTIES
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/logs
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
PROPERTIES
      # A fresh log each start: the controller's port is new, so is the quorum.
      rm -rf "$dir/logs"
      java -cp "$libs/*" kafka.tools.StorageTool format -t "$(java -cp "$libs/*" kafka.tools.StorageTool random-uuid)" \
        -c "$dir/server.properties" >"$dir/format.log" 2>&1 || fail "storage format failed, see $dir/format.log"
      nohup java -Xmx512m -cp "$libs/*" kafka.Kafka "$dir/server.properties" >"$log" 2>&1 &
      echo $! >"$pid_file"
      wait_until answers "$port" 120
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
  case "$kind" in
    postgres) as_owner "$(pg_bin)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null ;;
    *) kill "$pid" 2>/dev/null || true ;;
  esac
  local waited=0
  while alive "$pid"; do
    ((waited++ < 300)) || fail "$name (pid $pid) did not stop in 30 s"
    sleep 0.1
  done
  # Erlang's port mapper (epmd), which a RabbitMQ node starts, is left running: another instance may be
  # booting and not registered with it yet (killing it then failed that boot: CI, two test files).
  # `stop epmd` stops it once no node is registered (scripts/test.sh does at its end).
}

# --- common ---------------------------------------------------------------------------------------

fail() {
  echo "local-server: $name: $*" >&2
  exit 1
}

# wait_until CMD PORT [SECONDS]: polls CMD PORT for up to SECONDS (30).
wait_until() {
  local tries=0 limit=$((${3:-30} * 10))
  until "$1" "$2" >/dev/null 2>&1; do
    ((tries++ < limit)) || fail "did not answer in ${3:-30} s, see $log"
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

# tcp_open PORT: something accepts connections on 127.0.0.1:PORT.
tcp_open() {
  python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$1"
}

# Kafka's jars, from Maven Central through Maven, once, into .tools/kafka-VERSION/libs.
KAFKA_VERSION=4.1.1
LOG4J_VERSION=2.24.3
kafka_libs() {
  local home="$root/.tools/kafka-$KAFKA_VERSION"
  if [[ ! -f "$home/libs/.complete" ]]; then
    mkdir -p "$home"
    cat >"$home/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local</groupId><artifactId>kafka-server</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>$LOG4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j2-impl</artifactId><version>$LOG4J_VERSION</version></dependency>
  </dependencies>
</project>
POM
    echo "local-server: kafka: fetching Kafka $KAFKA_VERSION's jars through Maven (first run only)..." >&2
    (cd "$home" && mvn -q -B dependency:copy-dependencies -DoutputDirectory=libs >&2) || fail "mvn could not fetch Kafka's jars"
    touch "$home/libs/.complete"
  fi
  echo "$home/libs"
}

# port_free PORT: nothing listens on 127.0.0.1:PORT. With SO_REUSEADDR, as the servers bind: the
# connections the stopped server closed linger in TIME_WAIT on its port for a minute, and take it
# from no server, so they must not send a restart to another port (its declared URL would be stale).
port_free() {
  python3 -c 'import socket, sys; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1]))); s.close()' "$1" 2>/dev/null
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
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkg >&2 ||
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
  # The port file stays: a restart takes the same port when it is still free (a declared URL holds).
  rm -f "$pid_file"
  exit 0
fi

if running_pid >/dev/null; then
  url "$(cat "$port_file")"
  exit 0
fi
install_package
rm -f "$pid_file"
port=""
if [[ -f "$port_file" ]] && port_free "$(cat "$port_file")"; then port="$(cat "$port_file")"; fi
[[ -n "$port" ]] || port="$(free_port)"
# The server must not inherit the lock's descriptor (a daemon would hold the lock for its lifetime).
start_server "$port" 9>&-
echo "$port" >"$port_file"
url "$port"
