#!/usr/bin/env bash
# `make helm-lint`: the Helm chart gate, offline.
#   1. helm lint --strict, with the default values and with each example values file;
#   2. helm template of each example piped to ../shared/crds/validate_manifests.py (zero errors);
#   3. the renders equal the checked-in goldens charts/scicustom/tests/golden/<example>.yaml.
# `scripts/helm_check.sh --update-golden` rewrites the goldens instead of comparing (steps 1-2 run).
# Installs what it needs, idempotently: helm (scripts/install_helm.sh) and the validator's pinned
# requirements in .tools/validate-venv.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "${ROOT}"
CHART="charts/scicustom"
GOLDEN="${CHART}/tests/golden"
EXAMPLES=(small-cpu gpu)
# Fixed release, namespace and API version, so the renders are reproducible.
RELEASE="scicustom"
NAMESPACE="scicustom"
K8S_VERSION="1.35.0"
CRDS="${ROOT}/../shared/crds"
VENV="${ROOT}/.tools/validate-venv"
HELM="${ROOT}/.tools/bin/helm"
PYTHON="${PYTHON:-python3.11}"

UPDATE=0
case "${1:-}" in
  "") ;;
  --update-golden) UPDATE=1 ;;
  *) echo "usage: $0 [--update-golden]" >&2; exit 2 ;;
esac

[[ -f "${CRDS}/validate_manifests.py" ]] || {
  echo "helm_check.sh: ${CRDS}/validate_manifests.py not found (../shared beside the checkout)" >&2; exit 2; }
"${ROOT}/scripts/install_helm.sh" >/dev/null

# The validator's venv, rebuilt only when its requirements change.
STAMP="${VENV}/.requirements.sha256"
WANT="$(sha256sum "${CRDS}/requirements.txt" | cut -d' ' -f1)"
if [[ ! -f "${STAMP}" || "$(cat "${STAMP}")" != "${WANT}" ]]; then
  rm -rf "${VENV}"
  "${PYTHON}" -m venv "${VENV}"
  "${VENV}/bin/pip" install --quiet --disable-pip-version-check -r "${CRDS}/requirements.txt"
  echo "${WANT}" > "${STAMP}"
fi

WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT

"${HELM}" lint --strict "${CHART}" --quiet
for example in "${EXAMPLES[@]}"; do
  "${HELM}" lint --strict "${CHART}" --quiet -f "k8s/examples/${example}.yaml"
done
echo "helm lint --strict: ok (default values, ${EXAMPLES[*]})"

failed=0
for example in "${EXAMPLES[@]}"; do
  rendered="${WORK}/${example}.yaml"
  "${HELM}" template "${RELEASE}" "${CHART}" --namespace "${NAMESPACE}" --kube-version "${K8S_VERSION}" \
    -f "k8s/examples/${example}.yaml" > "${rendered}"
  echo "validate ${example}:"
  "${VENV}/bin/python" "${CRDS}/validate_manifests.py" --k8s-version "${K8S_VERSION}" "${rendered}" 2>&1 \
    | sed "s|${WORK}/||"
  if (( UPDATE )); then
    mkdir -p "${GOLDEN}"
    cp "${rendered}" "${GOLDEN}/${example}.yaml"
    echo "golden ${GOLDEN}/${example}.yaml written"
  elif ! diff -u "${GOLDEN}/${example}.yaml" "${rendered}" > "${WORK}/${example}.diff"; then
    echo "helm_check.sh: the render of ${example} drifted from ${GOLDEN}/${example}.yaml:" >&2
    head -n 60 "${WORK}/${example}.diff" >&2
    echo "(intended? run scripts/helm_check.sh --update-golden and commit the goldens)" >&2
    failed=1
  else
    echo "golden ${example}: unchanged"
  fi
done
exit "${failed}"
