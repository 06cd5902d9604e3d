# syntax=docker/dockerfile:1
# The Vantage probe agent: the installer's bundle (installer/build-bundle.ts: one esbuild file
# plus its native addons), run by an unprivileged user whose only capability is CAP_NET_RAW (raw
# ICMP sockets for ping and traceroute), given to a copy of node by a file capability.
# Build from the repository root:
#   docker build -f installer/container/agent.Dockerfile -t vantage-agent .
# Run it with `--cap-drop ALL --cap-add NET_RAW`, VANTAGE_AGENT_CONTROL_PLANE_URL and, for the
# first start, VANTAGE_AGENT_TOKEN=ent_… (docs/operators/agent.md); keep /var/lib/vantage-agent
# (the node credential and the outbox) on a volume.
ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends g++ make python3 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
RUN npm install -g pnpm@10
WORKDIR /src
COPY . .
# The bundle's addons are compiled by this stage's Node.js, the same as the final stage's.
RUN pnpm install --frozen-lockfile \
 && node_modules/.bin/tsx installer/build-bundle.ts /out \
 && mkdir -p /opt/vantage-agent \
 && tar -xzf /out/vantage-agent-*.tar.gz -C /opt/vantage-agent --strip-components=1

FROM ${NODE_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends libcap2-bin ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && cp /usr/local/bin/node /usr/local/bin/node-netraw \
 && setcap cap_net_raw+ep /usr/local/bin/node-netraw \
 && mkdir -p /var/lib/vantage-agent \
 && chown node:node /var/lib/vantage-agent
COPY --from=build /opt/vantage-agent /opt/vantage-agent
ENV NODE_ENV=production \
    VANTAGE_AGENT_STATE_DIR=/var/lib/vantage-agent
USER node
VOLUME ["/var/lib/vantage-agent"]
CMD ["/usr/local/bin/node-netraw", "/opt/vantage-agent/node-agent.mjs", "run"]
