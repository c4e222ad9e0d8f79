# One image for both processes of the service:
#   API (default):  node dist/api/main.js
#   worker:         node dist/worker/main.js
# glibc base on purpose: the Temporal SDK's native core does not run on musl (Alpine).
# Node 24, the current LTS line (22 works too; 20 reached end of life in April 2026).
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --no-audit --no-fund
# The SDK ships its native core for five platforms (~25 MB each); keep only this one's.
RUN cd node_modules/@temporalio/core-bridge/releases \
  && for dir in *; do [ "$dir" = "$(uname -m)-unknown-linux-gnu" ] || rm -rf "$dir"; done \
  && [ -d "$(uname -m)-unknown-linux-gnu" ]

FROM ${NODE_IMAGE} AS runtime
# The slim image has no CA bundle; the SDK's native core reads the system one for TLS to Temporal.
RUN apt-get update \
  && apt-get install -y --no-install-recommends ca-certificates \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps \
    HOST=0.0.0.0 \
    PORT=3000 \
    WORKER_HOST=0.0.0.0 \
    WORKER_PORT=3001
# Where docker-compose.yml keeps the API keys file (a named volume takes this directory's owner).
RUN mkdir -p /var/lib/delayed-tasks/keys && chown node:node /var/lib/delayed-tasks/keys
WORKDIR /app
# Owned by root and read-only to the process user: the app never writes to its own files.
COPY package.json ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000 3001
CMD ["node", "dist/api/main.js"]
