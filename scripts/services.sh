#!/usr/bin/env bash
# Make sure the services and system tools the test suite uses are present and running:
# Redis on 127.0.0.1:6379, PostgreSQL on 127.0.0.1:5432 with a database `test` (the review
# store's tests), promtool (Debian's prometheus package) and headless Chromium with its
# chromedriver (tests/ui).
set -euo pipefail
need_apt=()
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
command -v promtool >/dev/null 2>&1 || need_apt+=(prometheus)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need_apt+=(chromium-driver)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "[services] installing ${need_apt[*]} from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "[services] starting redis-server on 127.0.0.1:6379"
  mkdir -p /tmp/veriproxy-redis
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /tmp/veriproxy-redis --logfile /tmp/veriproxy-redis/redis.log
  for _ in $(seq 1 50); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.1; done
fi
redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null
# PostgreSQL: Debian's cluster, trust auth on loopback; the tests use database `test`.
if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  command -v pg_ctlcluster >/dev/null 2>&1 || {
    echo "[services] PostgreSQL is not installed (this machine kind ships it with trust auth)" >&2
    exit 1
  }
  version="$(ls /etc/postgresql | sort -V | tail -n 1)"
  echo "[services] starting PostgreSQL $version on 127.0.0.1:5432"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start
  for _ in $(seq 1 50); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 0.2; done
fi
if ! psql -h 127.0.0.1 -U postgres -d test -Atqc "select 1" >/dev/null 2>&1; then
  echo "[services] creating database test"
  su postgres -c "createdb -h 127.0.0.1 test" 2>/dev/null || createdb -h 127.0.0.1 -U postgres test
fi
echo "[services] redis: up; postgresql: $(pg_isready -h 127.0.0.1 -p 5432); promtool: $(command -v promtool); chromium: $(command -v chromium)"
