#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: `start DIR` runs initdb into
# DIR as the postgres user, starts it on a free loopback port and prints the
# DATABASE_URL; `stop DIR` stops it; `start DIR` again starts the same cluster
# on the same port (a database restarted in place). Settings after DIR
# (`max_connections=12`) are the server's own, over the defaults here.
# Debian's binaries, whatever their version.
set -euo pipefail
cmd=${1:?usage: pg-cluster.sh start|stop DIR}
dir=${2:?usage: pg-cluster.sh start|stop DIR [SETTING=VALUE...]}
shift 2
settings=""
for kv in "$@"; do settings="$settings -c $kv"; done
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] || { echo "pg-cluster.sh: no PostgreSQL under /usr/lib/postgresql (apt-get install postgresql)" >&2; exit 1; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case $cmd in
  start)
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    if [ -f "$dir/port" ]; then
      port=$(cat "$dir/port")
    else
      # A port nobody listens on now, picked by the kernel.
      port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
      as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
      echo "$port" > "$dir/port"
    fi
    as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
      -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories='$dir' -c fsync=off -c max_connections=200$settings" start >/dev/null
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    [ -d "$dir/data" ] && as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    ;;
  *) echo "pg-cluster.sh: unknown command $cmd" >&2; exit 2 ;;
esac
