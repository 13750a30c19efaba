{{/* Names: <release>-<entry>, or <release>-scicustom-<entry> when the release name lacks the chart's. */}}
{{- define "scicustom.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "scicustom.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "scicustom.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "scicustom.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: scicustom
{{- end -}}

{{/* Selector labels of one entry; the component label is also OTEL_SERVICE_NAME. Needs (dict "root" $ "name" $name). */}}
{{- define "scicustom.selectorLabels" -}}
app.kubernetes.io/name: {{ include "scicustom.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/* image reference: repository@digest, else repository:tag (tag defaults to appVersion). Needs (dict "root" $ "image" $img). */}}
{{- define "scicustom.image" -}}
{{- $img := mergeOverwrite (deepCopy .root.Values.image) (.image | default dict) -}}
{{- if $img.digest -}}
{{- printf "%s@%s" $img.repository $img.digest -}}
{{- else -}}
{{- printf "%s:%s" $img.repository (default .root.Chart.AppVersion $img.tag) -}}
{{- end -}}
{{- end -}}

{{/* What each worker stage consumes (platform.md, services/scicustom/workers/topics.py); the topic
     is "<topicPrefix>.<event type>". */}}
{{- define "scicustom.consumedEventType" -}}
{{- $consumes := dict
  "tag" "ingest.items-imported"
  "index" "ingest.items-tagged"
  "parse" "paper.submitted"
  "extract-qa" "paper.parsed"
  "extract-recipes" "paper.parsed"
  "extract-hypotheses" "paper.parsed"
  "standing" "ingest.items-indexed"
  "standing-notify" "build.completed"
  "vote" "build.requested"
  "candidates" "build.units-voted"
  "cutoff" "build.candidates-ready"
  "select" "build.cutoff-found"
  "generate" "build.subset-selected"
  "complete" "build.benchmark-generated" -}}
{{- $type := get $consumes . -}}
{{- if not $type -}}
{{- fail (printf "worker stage %q: no consumed topic in scicustom.consumedEventType" .) -}}
{{- end -}}
{{- $type -}}
{{- end -}}

{{/* The first enabled modelServer entry's name, or "". */}}
{{- define "scicustom.modelServerName" -}}
{{- $found := "" -}}
{{- range $name, $svc := .Values.services -}}
{{- if and (eq $svc.kind "modelServer") (ne $svc.enabled false) (not $found) -}}
{{- $found = $name -}}
{{- end -}}
{{- end -}}
{{- $found -}}
{{- end -}}

{{/* host:port clients use for the tagger model's OIP v2 endpoint. */}}
{{- define "scicustom.taggerUrl" -}}
{{- $name := include "scicustom.modelServerName" . -}}
{{- if $name -}}
{{- $svc := get .Values.services $name -}}
{{- if $svc.clientUrl -}}
{{- tpl $svc.clientUrl . -}}
{{- else -}}
{{- printf "%s-%s-predictor.%s.svc.cluster.local:80" (include "scicustom.fullname" .) $name .Release.Namespace -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The typed settings as a YAML map of env name -> string: the ConfigMap and the hook Job both use it. */}}
{{- define "scicustom.settingsEnv" -}}
{{- $s := .Values.settings -}}
{{- $infra := .Values.infrastructure -}}
{{- $env := dict
  "SCICUSTOM_PROFILE" "cluster"
  "SCICUSTOM_HOME" "/data"
  "SCICUSTOM_GRPC_HOST" "0.0.0.0"
  "SCICUSTOM_GRPC_PORT" (toString $s.grpcPort)
  "SCICUSTOM_GRPC_MAX_MESSAGE_BYTES" (toString (int64 $s.grpcMaxMessageBytes))
  "SCICUSTOM_LOG_FORMAT" $s.logFormat
  "SCICUSTOM_TOPIC_PREFIX" $s.topicPrefix
  "SCICUSTOM_WORKER_MAX_ATTEMPTS" (toString $s.workerMaxAttempts)
  "SCICUSTOM_WORKER_BACKOFF_S" (toString $s.workerBackoffSeconds)
  "SCICUSTOM_WORKER_BREAKER_THRESHOLD" (toString $s.workerBreakerThreshold)
  "SCICUSTOM_KAFKA_BOOTSTRAP" (tpl $infra.kafka.bootstrapServers .)
  "SCICUSTOM_S3_ENDPOINT" (tpl $infra.s3.endpoint .)
  "SCICUSTOM_S3_BUCKET" $infra.s3.bucket
  "SCICUSTOM_S3_SECURE" (toString $infra.s3.secure)
  "SCICUSTOM_ELASTICSEARCH_URL" (tpl $infra.elasticsearch.url .)
  "SCICUSTOM_ELASTICSEARCH_INDEX" $infra.elasticsearch.index
  "SCICUSTOM_ELASTICSEARCH_SHARDS" (toString $infra.elasticsearch.shards)
  "SCICUSTOM_ELASTICSEARCH_REPLICAS" (toString $infra.elasticsearch.replicas)
  "SCICUSTOM_KAFKA_REPLICATION_FACTOR" (toString $infra.kafka.replicationFactor)
  "SCICUSTOM_KAFKA_MAX_POLL_INTERVAL_MS" (toString (int64 $infra.kafka.maxPollIntervalMs))
  "SCICUSTOM_BUILD_SERVICE_ADDRESS" (default (printf "%s-builds:%v" (include "scicustom.fullname" .) $s.grpcPort) $s.buildServiceAddress)
  "SCICUSTOM_MAX_ACTIVE_BUILDS_PER_TENANT" (toString (int64 $s.maxActiveBuildsPerTenant))
  "SCICUSTOM_BUILD_HEARTBEAT_TIMEOUT_S" (toString .Values.reaper.heartbeatTimeoutSeconds)
  "SCICUSTOM_BUILD_MAX_REQUEUES" (toString (int64 .Values.reaper.maxRequeues))
  "HF_HUB_OFFLINE" "1"
  "TRANSFORMERS_OFFLINE" "1"
-}}
{{- $_ := set $env "SCICUSTOM_METRICS_PORT" (ternary (toString .Values.metrics.port) "0" .Values.metrics.enabled) -}}
{{- if $infra.elasticsearch.username -}}
{{- $_ := set $env "SCICUSTOM_ELASTICSEARCH_USERNAME" $infra.elasticsearch.username -}}
{{- end -}}
{{- if $s.llmApiBase -}}
{{- $_ := set $env "SCICUSTOM_LLM_API_BASE" (tpl $s.llmApiBase .) -}}
{{- end -}}
{{- $model := include "scicustom.modelServerName" . -}}
{{- if $model -}}
{{- $svc := get .Values.services $model -}}
{{- $_ := set $env "SCICUSTOM_TAGGER_URL" (include "scicustom.taggerUrl" .) -}}
{{- $_ := set $env "SCICUSTOM_TAGGER_PROTOCOL" $svc.protocol -}}
{{- $_ := set $env "SCICUSTOM_TAGGER_MODEL_NAME" $svc.modelName -}}
{{- end -}}
{{- $kafka := $infra.kafka -}}
{{- if or $kafka.sasl.enabled $kafka.tls.enabled -}}
{{- $_ := set $env "SCICUSTOM_KAFKA_SECURITY_PROTOCOL" (printf "%s%s" (ternary "SASL_" "" $kafka.sasl.enabled) (ternary "SSL" "PLAINTEXT" $kafka.tls.enabled)) -}}
{{- end -}}
{{- if $kafka.sasl.enabled -}}
{{- $_ := set $env "SCICUSTOM_KAFKA_SASL_MECHANISM" $kafka.sasl.mechanism -}}
{{- end -}}
{{- if and $kafka.tls.enabled $kafka.tls.caSecretName -}}
{{- $_ := set $env "SCICUSTOM_KAFKA_SSL_CAFILE" "/etc/scicustom/kafka-ca/ca.crt" -}}
{{- end -}}
{{- $otel := .Values.otel -}}
{{- if $otel.enabled -}}
{{- $_ := set $env "OTEL_EXPORTER_OTLP_ENDPOINT" (tpl $otel.endpoint .) -}}
{{- $_ := set $env "OTEL_EXPORTER_OTLP_PROTOCOL" $otel.protocol -}}
{{- $_ := set $env "OTEL_TRACES_SAMPLER" $otel.tracesSampler -}}
{{- $_ := set $env "OTEL_TRACES_SAMPLER_ARG" $otel.tracesSamplerArg -}}
{{- $_ := set $env "OTEL_PROPAGATORS" "tracecontext,baggage" -}}
{{- range $k, $v := $otel.env -}}
{{- $_ := set $env $k (toString $v) -}}
{{- end -}}
{{- else -}}
{{- $_ := set $env "OTEL_SDK_DISABLED" "true" -}}
{{- end -}}
{{- toYaml $env -}}
{{- end -}}

{{/* Env from Secrets and from the pod itself (never values). Needs (dict "root" $ "entry" $svc). */}}
{{- define "scicustom.podEnv" -}}
{{- $root := .root -}}
{{- $infra := $root.Values.infrastructure -}}
- name: SCICUSTOM_S3_ACCESS_KEY
  valueFrom:
    secretKeyRef: {name: {{ $infra.s3.credentialsSecret | quote }}, key: {{ $infra.s3.accessKeyKey | quote }}}
- name: SCICUSTOM_S3_SECRET_KEY
  valueFrom:
    secretKeyRef: {name: {{ $infra.s3.credentialsSecret | quote }}, key: {{ $infra.s3.secretKeyKey | quote }}}
{{- if $infra.llm.apiKeySecret }}
- name: SCICUSTOM_LLM_API_KEY
  valueFrom:
    secretKeyRef: {name: {{ $infra.llm.apiKeySecret | quote }}, key: {{ $infra.llm.apiKeyKey | quote }}}
{{- end }}
{{- if $infra.elasticsearch.passwordSecret }}
- name: SCICUSTOM_ELASTICSEARCH_PASSWORD
  valueFrom:
    secretKeyRef: {name: {{ tpl $infra.elasticsearch.passwordSecret $root | quote }}, key: {{ $infra.elasticsearch.passwordKey | quote }}}
{{- end }}
{{- if $infra.kafka.sasl.enabled }}
- name: SCICUSTOM_KAFKA_SASL_USERNAME
  valueFrom:
    secretKeyRef: {name: {{ $infra.kafka.sasl.secretName | quote }}, key: {{ $infra.kafka.sasl.usernameKey | quote }}}
- name: SCICUSTOM_KAFKA_SASL_PASSWORD
  valueFrom:
    secretKeyRef: {name: {{ $infra.kafka.sasl.secretName | quote }}, key: {{ $infra.kafka.sasl.passwordKey | quote }}}
{{- end }}
{{- range $name, $ref := .entry.secretEnv }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef: {name: {{ $ref.name | quote }}, key: {{ $ref.key | quote }}}
{{- end }}
- name: K8S_POD_NAME
  valueFrom:
    fieldRef: {fieldPath: metadata.name}
- name: K8S_NAMESPACE_NAME
  valueFrom:
    fieldRef: {fieldPath: metadata.namespace}
- name: K8S_NODE_NAME
  valueFrom:
    fieldRef: {fieldPath: spec.nodeName}
{{- if and $root.Values.otel.enabled $root.Values.otel.headersSecret.name }}
- name: OTEL_EXPORTER_OTLP_HEADERS
  valueFrom:
    secretKeyRef: {name: {{ $root.Values.otel.headersSecret.name | quote }}, key: {{ $root.Values.otel.headersSecret.key | quote }}}
{{- end }}
- name: OTEL_SERVICE_NAME
  valueFrom:
    fieldRef: {fieldPath: "metadata.labels['app.kubernetes.io/component']"}
{{- $attrs := list "service.namespace=scicustom" (printf "service.version=%s" $root.Chart.AppVersion) "k8s.namespace.name=$(K8S_NAMESPACE_NAME)" "k8s.pod.name=$(K8S_POD_NAME)" "k8s.node.name=$(K8S_NODE_NAME)" }}
{{- range $k, $v := $root.Values.otel.resourceAttributes }}
{{- $attrs = append $attrs (printf "%s=%s" $k (toString $v)) }}
{{- end }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ join "," $attrs | quote }}
{{- range $name, $value := .entry.env }}
- name: {{ $name }}
  value: {{ toString $value | quote }}
{{- end }}
{{- end -}}

{{- define "scicustom.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: [ALL]
{{- end -}}

{{- define "scicustom.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.podSecurityContext.runAsUser }}
runAsGroup: {{ .Values.podSecurityContext.runAsGroup }}
fsGroup: {{ .Values.podSecurityContext.fsGroup }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Egress rules for a list of target names. Needs (dict "root" $ "targets" $list). */}}
{{- define "scicustom.egressRules" -}}
{{- $root := .root -}}
{{- $infra := $root.Values.infrastructure -}}
- to:
{{ toYaml $root.Values.networkPolicy.dnsPeers | indent 4 }}
  ports:
    - {protocol: UDP, port: 53}
    - {protocol: TCP, port: 53}
{{- $targets := .targets }}
{{- if $root.Values.otel.enabled }}
{{- $targets = append $targets "otlp" }}
{{- end }}
{{- range $target := $targets }}
{{- if eq $target "taggerModel" }}
{{- $model := include "scicustom.modelServerName" $root }}
{{- if $model }}
- to:
    - podSelector:
        matchLabels:
          serving.kserve.io/inferenceservice: {{ printf "%s-%s" (include "scicustom.fullname" $root) $model }}
  ports:
    - {protocol: TCP, port: 8080}
    - {protocol: TCP, port: 8081}
    - {protocol: TCP, port: 9000}
{{- end }}
{{- else }}
{{- $spec := ternary $root.Values.otel (get $infra $target) (eq $target "otlp") }}
- ports:
  {{- range $port := $spec.ports }}
    - {protocol: TCP, port: {{ $port }}}
  {{- end }}
  {{- if $spec.networkPeers }}
  to:
{{ toYaml $spec.networkPeers | indent 4 }}
  {{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* The Secret of the gRPC services' TLS certificate. */}}
{{- define "scicustom.tlsSecretName" -}}
{{- default (printf "%s-grpc-tls" (include "scicustom.fullname" .)) .Values.tls.secretName -}}
{{- end -}}

{{/* Authentication and TLS settings of a gRPC service's pod (SECURITY.md): paths into the Secrets
     mounted at /etc/scicustom/auth and /etc/scicustom/tls, never their contents. */}}
{{- define "scicustom.grpcSecurityEnv" -}}
{{- if .Values.auth.enabled }}
- {name: SCICUSTOM_AUTH_TOKENS_FILE, value: {{ printf "/etc/scicustom/auth/%s" .Values.auth.tokensKey | quote }}}
{{- else }}
- {name: SCICUSTOM_AUTH_DISABLED, value: "true"}
{{- end }}
{{- if .Values.tls.enabled }}
- {name: SCICUSTOM_TLS_CERT_FILE, value: /etc/scicustom/tls/tls.crt}
- {name: SCICUSTOM_TLS_KEY_FILE, value: /etc/scicustom/tls/tls.key}
- {name: SCICUSTOM_GRPC_HEALTH_PORT, value: {{ .Values.tls.healthPort | quote }}}
- {name: SCICUSTOM_TLS_CA_FILE, value: /etc/scicustom/tls/ca.crt}
{{- if .Values.tls.mutual }}
- {name: SCICUSTOM_TLS_CLIENT_CA_FILE, value: /etc/scicustom/tls/ca.crt}
- {name: SCICUSTOM_TLS_CLIENT_CERT_FILE, value: /etc/scicustom/tls/tls.crt}
- {name: SCICUSTOM_TLS_CLIENT_KEY_FILE, value: /etc/scicustom/tls/tls.key}
{{- end }}
{{- end }}
{{- end -}}
