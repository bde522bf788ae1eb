#!/usr/bin/env bash
# Builds a local stand-in for the Prometheus image docker-compose.yml's monitoring profile runs,
# for machines that reach Debian's packages but no container registry: Debian 12's `prometheus`
# (2.42) in a minimal root file system made by mmdebstrap, laid out like the official image
# (entrypoint the prometheus binary, data in /prometheus owned by `nobody`, busybox-like `wget`
# for the health check). Needs root, mmdebstrap and a running Docker engine.
#
#   test/container/prometheus-stand-in.sh [TAG]      (default local/prometheus:debian)
#
# Then: PROMETHEUS_IMAGE=local/prometheus:debian docker-compose --profile monitoring up
set -euo pipefail
tag=${1:-local/prometheus:debian}
if docker image inspect "$tag" >/dev/null 2>&1; then
  echo "$tag: present"
  exit 0
fi
command -v mmdebstrap >/dev/null || { echo "mmdebstrap is missing (apt-get install mmdebstrap)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export DOCKER_BUILDKIT=0

mmdebstrap --quiet --variant=minbase --include=prometheus,wget --aptopt='APT::Install-Recommends "false"' \
  bookworm "$work/prometheus.tar"
docker import "$work/prometheus.tar" local/prometheus-base:bookworm >/dev/null
mkdir -p "$work/image"
cat >"$work/image/Dockerfile" <<'DOCKERFILE'
FROM local/prometheus-base:bookworm
RUN mkdir -p /prometheus /etc/prometheus && chown nobody:nogroup /prometheus
USER nobody
WORKDIR /prometheus
EXPOSE 9090
ENTRYPOINT ["/usr/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]
DOCKERFILE
docker build -q -t "$tag" "$work/image" >/dev/null
echo "built: $tag ($(docker run --rm --entrypoint /usr/bin/prometheus "$tag" --version 2>&1 | head -1))"
