{{/* Names and labels. */}}
{{- define "dt.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "dt.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "dt.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "dt.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The name of one component's objects: (list $ "api"). */}}
{{- define "dt.component" -}}
{{- $root := index . 0 -}}
{{- printf "%s-%s" (include "dt.fullname" $root | trunc 55 | trimSuffix "-") (index . 1) -}}
{{- end -}}

{{- define "dt.selectorLabels" -}}
{{- $root := index . 0 -}}
app.kubernetes.io/name: {{ include "dt.name" $root }}
app.kubernetes.io/instance: {{ $root.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{- define "dt.labels" -}}
{{- $root := index . 0 -}}
{{ include "dt.selectorLabels" . }}
app.kubernetes.io/version: {{ $root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ $root.Release.Service }}
app.kubernetes.io/part-of: delayed-tasks
helm.sh/chart: {{ printf "%s-%s" $root.Chart.Name $root.Chart.Version | replace "+" "_" }}
{{- with $root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "dt.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "dt.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "dt.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* Where mounted secrets and files are. */}}
{{- define "dt.paths" -}}
secrets: /etc/delayed-tasks/secrets
temporalTls: /etc/delayed-tasks/temporal-tls
policies: /etc/delayed-tasks/policies
{{- end -}}

{{/* The guards: what a process would refuse at boot is refused at render time. */}}
{{- define "dt.validate" -}}
{{- if not .Values.secrets.apiKeys.existingSecret -}}
{{- fail "secrets.apiKeys.existingSecret: the API listens on every interface and does not start without an API keys file (docs/operating.md, Kubernetes)" -}}
{{- end -}}
{{- if not (or .Values.secrets.webhookSecrets.existingSecret .Values.secrets.webhookSecret.existingSecret) -}}
{{- fail "secrets.webhookSecrets or secrets.webhookSecret: the worker signs every callback and does not start without a signing secret" -}}
{{- end -}}
{{- if and .Values.taskPolicies .Values.taskPoliciesConfigMap -}}
{{- fail "set taskPolicies or taskPoliciesConfigMap, not both" -}}
{{- end -}}
{{- $tls := .Values.temporal.tls -}}
{{- if and $tls.existingSecret (not (or $tls.caKey (and $tls.certKey $tls.keyKey))) -}}
{{- fail "temporal.tls.existingSecret needs caKey or certKey and keyKey" -}}
{{- end -}}
{{- end -}}

{{/* Pod annotations: a checksum of what is read only at start, so that a change rolls the pods. */}}
{{- define "dt.podAnnotations" -}}
{{- $root := index . 0 -}}
{{- $values := index . 1 -}}
checksum/config: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
{{- if $root.Values.metrics.podAnnotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ $values.port | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- with $values.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* A Secret volume that holds one key as a file. */}}
{{- define "dt.secretVolume" -}}
- name: {{ index . 0 }}
  secret:
    secretName: {{ (index . 1).existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ (index . 1).key }}
        path: {{ (index . 1).key }}
{{- end -}}

{{/* An env var read from a Secret key. */}}
{{- define "dt.secretEnv" -}}
- name: {{ index . 0 }}
  valueFrom:
    secretKeyRef:
      name: {{ (index . 1).existingSecret }}
      key: {{ (index . 1).key }}
{{- end -}}
