{{/* The image reference. */}}
{{- define "helmflow.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/*
The prefix of every name this chart gives: the release name when it already says helmflow, else
<release>-helmflow, so a second release in the cluster (cluster-scoped RBAC included) never collides with the first.
*/}}
{{- define "helmflow.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{ .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else if contains "helmflow" .Release.Name -}}
{{ .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else -}}
{{ printf "%s-helmflow" .Release.Name | trunc 40 | trimSuffix "-" }}
{{- end -}}
{{- end -}}

{{/* Labels on every object. */}}
{{- define "helmflow.labels" -}}
app.kubernetes.io/name: helmflow
app.kubernetes.io/part-of: helmflow
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{/* The API group, refused unless it is one helmflow serves. */}}
{{- define "helmflow.group" -}}
{{- if not (has .Values.group (list "helm.k3sm.io" "helm.cattle.io")) -}}
{{- fail (printf "group must be helm.k3sm.io or helm.cattle.io, not %s" .Values.group) -}}
{{- end -}}
{{ .Values.group }}
{{- end -}}

{{/* Labels and annotations of both Deployments' pods. . is (dict "root" $ "component" "controller"). */}}
{{- define "helmflow.podMetadata" -}}
labels:
  {{- include "helmflow.labels" .root | nindent 2 }}
  app.kubernetes.io/component: {{ .component }}
  {{- with .root.Values.podLabels }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
annotations:
  checksum/config: {{ include (print .root.Template.BasePath "/configmap.yaml") .root | sha256sum }}
  {{- with .root.Values.podAnnotations }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end -}}

{{/* The pod spec parts both Deployments share: settings, probes, security, tmp. $ is the root context. */}}
{{- define "helmflow.container" -}}
image: {{ include "helmflow.image" .root }}
imagePullPolicy: {{ .root.Values.image.pullPolicy }}
args: [{{ .role }}]
envFrom:
  - configMapRef:
      name: {{ include "helmflow.fullname" .root }}
{{- if or .root.Values.temporal.apiKey.secretName .root.Values.extraEnv }}
env:
  {{- with .root.Values.temporal.apiKey.secretName }}
  # Temporal Cloud's API key, from a Secret: never in the ConfigMap, never logged.
  - name: TEMPORAL_API_KEY
    valueFrom:
      secretKeyRef:
        name: {{ . }}
        key: {{ $.root.Values.temporal.apiKey.key }}
  {{- end }}
  {{- with .root.Values.extraEnv }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}
ports:
  - name: http
    containerPort: {{ .root.Values.httpPort }}
livenessProbe:
  httpGet:
    path: /healthz
    port: http
  periodSeconds: 10
  failureThreshold: 3
readinessProbe:
  httpGet:
    path: /readyz
    port: http
  periodSeconds: 5
# The worker bundles its workflow code at start.
startupProbe:
  httpGet:
    path: /healthz
    port: http
  periodSeconds: 2
  failureThreshold: 90
securityContext:
  {{- toYaml .root.Values.securityContext | nindent 2 }}
{{- end -}}
