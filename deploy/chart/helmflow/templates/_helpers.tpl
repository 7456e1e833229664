{{/* The image reference. */}}
{{- define "helmflow.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
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

{{/* The pod spec parts both Deployments share: settings, probes, security, tmp. $ is the root context. */}}
{{- define "helmflow.container" -}}
image: {{ include "helmflow.image" .root }}
imagePullPolicy: {{ .root.Values.image.pullPolicy }}
args: [{{ .role }}]
envFrom:
  - configMapRef:
      name: helmflow
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
# tsx compiles the sources (and the worker bundles its workflow code) at start.
startupProbe:
  httpGet:
    path: /healthz
    port: http
  periodSeconds: 2
  failureThreshold: 90
securityContext:
  {{- toYaml .root.Values.securityContext | nindent 2 }}
{{- end -}}
