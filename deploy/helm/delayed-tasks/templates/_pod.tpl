{{/*
The pod of one process, (list $ "api") or (list $ "worker"): same image, security context, Temporal
connection and secrets; each its own command, port, probes and process settings.
*/}}
{{- define "dt.pod" -}}
{{- $root := index . 0 -}}
{{- $component := index . 1 -}}
{{- $v := index $root.Values $component -}}
{{- $s := $root.Values.secrets -}}
{{- $t := $root.Values.temporal -}}
{{- $paths := include "dt.paths" $root | fromYaml -}}
{{- $isApi := eq $component "api" -}}
{{- $webhookSecrets := or (not $isApi) $root.Values.api.mountWebhookSecrets -}}
serviceAccountName: {{ include "dt.serviceAccountName" $root }}
automountServiceAccountToken: false
enableServiceLinks: false
terminationGracePeriodSeconds: {{ add $v.shutdownGraceSeconds (ternary $v.shutdownNotReadySeconds 0 $isApi) $root.Values.terminationMarginSeconds }}
securityContext:
  {{- toYaml $root.Values.podSecurityContext | nindent 2 }}
{{- with $root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with $v.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
affinity:
{{- if $v.affinity }}
  {{- toYaml $v.affinity | nindent 2 }}
{{- else }}
  # One pod per node where the nodes allow it: a node's loss takes one replica.
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- include "dt.selectorLabels" (list $root $component) | nindent 14 }}
{{- end }}
{{- with $v.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
containers:
  - name: {{ $component }}
    image: {{ include "dt.image" $root }}
    imagePullPolicy: {{ $root.Values.image.pullPolicy }}
    command: ["node", "dist/{{ $component }}/main.js"]
    ports:
      - name: http
        containerPort: {{ $v.port }}
        protocol: TCP
    envFrom:
      - configMapRef:
          name: {{ include "dt.fullname" $root }}
    env:
      {{- if $isApi }}
      - {name: HOST, value: 0.0.0.0}
      - {name: PORT, value: {{ $v.port | quote }}}
      - {name: SHUTDOWN_GRACE_SECONDS, value: {{ $v.shutdownGraceSeconds | quote }}}
      - {name: SHUTDOWN_NOT_READY_SECONDS, value: {{ $v.shutdownNotReadySeconds | quote }}}
      - {name: API_KEYS_FILE, value: {{ printf "%s/api-keys/%s" $paths.secrets $s.apiKeys.key | quote }}}
      - {name: CONSOLE_ENABLED, value: {{ $v.console.enabled | quote }}}
      {{- with $v.console.temporalUiUrl }}
      - {name: TEMPORAL_UI_URL, value: {{ . | quote }}}
      {{- end }}
      {{- if $s.codecAuthToken.existingSecret }}
      {{- include "dt.secretEnv" (list "CODEC_AUTH_TOKEN" $s.codecAuthToken) | nindent 6 }}
      {{- end }}
      {{- if $s.metricsToken.existingSecret }}
      {{- include "dt.secretEnv" (list "METRICS_TOKEN" $s.metricsToken) | nindent 6 }}
      {{- end }}
      {{- if $s.consoleSessionSecret.existingSecret }}
      {{- include "dt.secretEnv" (list "CONSOLE_SESSION_SECRET" $s.consoleSessionSecret) | nindent 6 }}
      {{- end }}
      {{- else }}
      - {name: WORKER_HOST, value: 0.0.0.0}
      - {name: WORKER_PORT, value: {{ $v.port | quote }}}
      - {name: SHUTDOWN_GRACE_SECONDS, value: {{ $v.shutdownGraceSeconds | quote }}}
      - {name: WORKER_MAX_CACHED_WORKFLOWS, value: {{ $v.maxCachedWorkflows | quote }}}
      - {name: WORKER_MAX_CONCURRENT_WORKFLOW_TASKS, value: {{ $v.maxConcurrentWorkflowTasks | quote }}}
      {{- end }}
      {{- if and $webhookSecrets $s.webhookSecrets.existingSecret }}
      - {name: WEBHOOK_SECRETS_FILE, value: {{ printf "%s/webhook-secrets/%s" $paths.secrets $s.webhookSecrets.key | quote }}}
      {{- end }}
      {{- if and $webhookSecrets $s.webhookSecret.existingSecret }}
      {{- include "dt.secretEnv" (list "WEBHOOK_SECRET" $s.webhookSecret) | nindent 6 }}
      {{- end }}
      {{- if $s.brokers.existingSecret }}
      - {name: BROKERS_FILE, value: {{ printf "%s/brokers/%s" $paths.secrets $s.brokers.key | quote }}}
      {{- end }}
      {{- if $s.payloadKeys.existingSecret }}
      - {name: PAYLOAD_ENCRYPTION_KEYS_FILE, value: {{ printf "%s/payload-keys/%s" $paths.secrets $s.payloadKeys.key | quote }}}
      {{- end }}
      {{- if $t.apiKey.existingSecret }}
      {{- include "dt.secretEnv" (list "TEMPORAL_API_KEY" $t.apiKey) | nindent 6 }}
      {{- end }}
      {{- if $t.tls.existingSecret }}
      {{- if and $t.tls.certKey $t.tls.keyKey }}
      - {name: TEMPORAL_TLS_CERT_PATH, value: {{ printf "%s/%s" $paths.temporalTls $t.tls.certKey | quote }}}
      - {name: TEMPORAL_TLS_KEY_PATH, value: {{ printf "%s/%s" $paths.temporalTls $t.tls.keyKey | quote }}}
      {{- end }}
      {{- with $t.tls.caKey }}
      - {name: TEMPORAL_TLS_CA_PATH, value: {{ printf "%s/%s" $paths.temporalTls . | quote }}}
      {{- end }}
      {{- end }}
      {{- with $v.extraEnv }}
      {{- toYaml . | nindent 6 }}
      {{- end }}
    startupProbe:
      httpGet: {path: /healthz, port: http}
      periodSeconds: 2
      failureThreshold: 60
      timeoutSeconds: 2
    livenessProbe:
      httpGet: {path: /healthz, port: http}
      periodSeconds: 10
      failureThreshold: 3
      timeoutSeconds: 3
    readinessProbe:
      httpGet: {path: /readyz, port: http}
      periodSeconds: 5
      failureThreshold: 2
      successThreshold: 1
      # /readyz asks Temporal (TEMPORAL_RPC_TIMEOUT_MS at most).
      timeoutSeconds: {{ add1 (div $t.rpcTimeoutMs 1000) }}
    resources:
      {{- toYaml $v.resources | nindent 6 }}
    securityContext:
      {{- toYaml $root.Values.securityContext | nindent 6 }}
    volumeMounts:
      - {name: tmp, mountPath: /tmp}
      {{- if $isApi }}
      - {name: api-keys, mountPath: {{ printf "%s/api-keys" $paths.secrets }}, readOnly: true}
      {{- end }}
      {{- if and $webhookSecrets $s.webhookSecrets.existingSecret }}
      - {name: webhook-secrets, mountPath: {{ printf "%s/webhook-secrets" $paths.secrets }}, readOnly: true}
      {{- end }}
      {{- if $s.brokers.existingSecret }}
      - {name: brokers, mountPath: {{ printf "%s/brokers" $paths.secrets }}, readOnly: true}
      {{- end }}
      {{- if $s.payloadKeys.existingSecret }}
      - {name: payload-keys, mountPath: {{ printf "%s/payload-keys" $paths.secrets }}, readOnly: true}
      {{- end }}
      {{- if $t.tls.existingSecret }}
      - {name: temporal-tls, mountPath: {{ $paths.temporalTls }}, readOnly: true}
      {{- end }}
      {{- if or $root.Values.taskPolicies $root.Values.taskPoliciesConfigMap }}
      - {name: task-policies, mountPath: {{ $paths.policies }}, readOnly: true}
      {{- end }}
volumes:
  # The root file system is read-only; Node and the Temporal SDK get a small scratch directory.
  - name: tmp
    emptyDir: {sizeLimit: 64Mi}
  {{- if $isApi }}
  {{- include "dt.secretVolume" (list "api-keys" $s.apiKeys) | nindent 2 }}
  {{- end }}
  {{- if and $webhookSecrets $s.webhookSecrets.existingSecret }}
  {{- include "dt.secretVolume" (list "webhook-secrets" $s.webhookSecrets) | nindent 2 }}
  {{- end }}
  {{- if and $s.brokers.existingSecret $isApi }}
  # The declarations only: the API checks creates against them and never connects to a broker, so
  # the password and TLS files they name stay in the worker pods.
  {{- include "dt.secretVolume" (list "brokers" $s.brokers) | nindent 2 }}
  {{- else if $s.brokers.existingSecret }}
  # The whole Secret: the declarations and the password and TLS files they name.
  - name: brokers
    secret:
      secretName: {{ $s.brokers.existingSecret }}
      defaultMode: 0440
  {{- end }}
  {{- if $s.payloadKeys.existingSecret }}
  {{- include "dt.secretVolume" (list "payload-keys" $s.payloadKeys) | nindent 2 }}
  {{- end }}
  {{- if $t.tls.existingSecret }}
  - name: temporal-tls
    secret:
      secretName: {{ $t.tls.existingSecret }}
      defaultMode: 0440
  {{- end }}
  {{- if or $root.Values.taskPolicies $root.Values.taskPoliciesConfigMap }}
  - name: task-policies
    configMap:
      name: {{ default (printf "%s-policies" (include "dt.fullname" $root)) $root.Values.taskPoliciesConfigMap }}
      items:
        - {key: policies.json, path: policies.json}
  {{- end }}
{{- end -}}
