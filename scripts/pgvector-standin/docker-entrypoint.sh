#!/usr/bin/env bash
# Entrypoint of the pgvector:pg18 stand-in (see the Dockerfile beside it): only for trying the
# compose file where Docker Hub is unreachable. Like the official image's: as root it fixes the
# ownership of the data folder and re-runs itself as postgres; on the first start (an empty
# PGDATA) it runs initdb with POSTGRES_USER / POSTGRES_PASSWORD, allows password (scram)
# logins from every host, creates POSTGRES_DB on a server that listens on the Unix socket only,
# stops it, and then execs postgres listening on every address. (/docker-entrypoint-initdb.d
# is not run: the compose file does not use it.)
set -Eeuo pipefail

if [ "${1:0:1}" = - ]; then set -- postgres "$@"; fi
if [ "$1" != postgres ]; then exec "$@"; fi

if [ "$(id -u)" = 0 ]; then
    mkdir -p "$PGDATA" /var/run/postgresql
    chmod 00700 "$PGDATA"
    chown -R postgres:postgres "$PGDATA" /var/run/postgresql
    # the volume is mounted on /var/lib/postgresql; PGDATA's parent belongs to postgres too
    chown postgres:postgres "$(dirname "$PGDATA")" /var/lib/postgresql
    exec setpriv --reuid=postgres --regid=postgres --init-groups "${BASH_SOURCE[0]}" "$@"
fi

POSTGRES_USER=${POSTGRES_USER:-postgres}
POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}
SOCKETS="/var/run/postgresql,/tmp"  # the official image's, and these binaries' compiled default

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "docker-entrypoint: the database is uninitialized and POSTGRES_PASSWORD is not set" >&2
        exit 1
    fi
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    # shellcheck disable=SC2086  # several words, as in the official image
    initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust \
        --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 ${POSTGRES_INITDB_ARGS:-} >/dev/null
    rm -f "$pwfile"
    printf '\nhost all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
    printf "\nlisten_addresses = '*'\nunix_socket_directories = '%s'\n" "$SOCKETS" >>"$PGDATA/postgresql.conf"

    pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start >/dev/null
    if [ "$POSTGRES_DB" != postgres ]; then
        psql -v ON_ERROR_STOP=1 -h /var/run/postgresql -U "$POSTGRES_USER" -d postgres -q \
            -c "CREATE DATABASE \"$POSTGRES_DB\""
    fi
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
    echo "docker-entrypoint: PostgreSQL init process complete; ready for start up."
fi

exec "$@"
