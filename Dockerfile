# alarm-web: the API server and the web client in one image.
#   docker build -t alarm-web .      (docker-compose.yml does this for you)

# ---- build: all dependencies, the client bundle and the compiled server
FROM node:22-bookworm-slim AS build
WORKDIR /app
# The client is an npm workspace: one install covers both.
COPY package.json package-lock.json ./
COPY client/package.json client/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# ---- production dependencies only, installed apart so no build tool reaches the runtime image (the
# client's packages are all development dependencies: they end up in its bundle, not in node_modules)
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY client/package.json client/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# ---- runtime
FROM node:22-bookworm-slim
ARG BUILD_VERSION=unknown
ARG BUILD_REVISION=unknown
ARG BUILD_DATE=unknown
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/app/data \
    BUILD_VERSION=$BUILD_VERSION \
    BUILD_REVISION=$BUILD_REVISION \
    BUILD_DATE=$BUILD_DATE
WORKDIR /app
# package.json marks dist/ as ES modules; the migrations are read from db/migrations at start-up.
COPY package.json ./
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/client/dist client/dist
COPY db/migrations db/migrations
# The data folder must belong to the unprivileged user before the volume is first created from it.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME /app/data
EXPOSE 8080
# Alive is any answer from /api/health: a 503 there means the engine or a database is down, which
# restarting this container would not fix.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/api/health').then((r) => process.exit(r.ok || r.status === 503 ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/server.js"]
