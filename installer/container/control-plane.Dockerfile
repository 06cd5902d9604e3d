# syntax=docker/dockerfile:1
# The Vantage control plane, from the build (pnpm build: control-plane/dist/main.mjs), as a
# non-root user. Build from the repository root:
#   docker build -f installer/container/control-plane.Dockerfile -t vantage-control-plane .
# Settings are VANTAGE_* environment variables (docs/operators/configuration.md); the compose file
# beside this one runs it with Postgres (docs/operators/deployment.md "Containers").
ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
# Compilers for the native addons (built from source: no prebuilt downloads).
RUN apt-get update \
 && apt-get install -y --no-install-recommends g++ make python3 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
RUN npm install -g pnpm@10
WORKDIR /src
COPY . .
# Everything for the build, then the build (pnpm build): the web console (Vite), the runtime
# bundles and the agent bundle the control plane serves at GET /install/agent.tar.gz (made here,
# so the running container never builds). Then the development dependencies go, leaving what
# production loads.
RUN pnpm install --frozen-lockfile \
 && pnpm build \
 && rm -rf node_modules ./*/node_modules control-plane/console/node_modules \
 && pnpm install --prod --frozen-lockfile --offline

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    VANTAGE_HOST=0.0.0.0 \
    VANTAGE_PORT=8080 \
    VANTAGE_DATA_DIR=/var/lib/vantage
COPY --from=build /src /opt/vantage
# The data folder (secrets key file, embedded database when no VANTAGE_DATABASE_URL) belongs to
# the unprivileged user the image's node base provides (uid 1000).
RUN mkdir -p /var/lib/vantage && chown node:node /var/lib/vantage
USER node
WORKDIR /opt/vantage
VOLUME ["/var/lib/vantage"]
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.VANTAGE_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "control-plane/bin/control-plane.mjs"]
