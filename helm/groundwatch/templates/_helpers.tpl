{{/* Chart name. */}}
{{- define "groundwatch.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified app name. */}}
{{- define "groundwatch.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "groundwatch.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "groundwatch.selectorLabels" -}}
app.kubernetes.io/name: {{ include "groundwatch.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "groundwatch.labels" -}}
helm.sh/chart: {{ include "groundwatch.chart" . }}
{{ include "groundwatch.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: groundwatch
{{- end }}

{{- define "groundwatch.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "groundwatch.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "groundwatch.secretName" -}}
{{- default (include "groundwatch.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{- define "groundwatch.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/*
One environment value as a string: lists and maps as JSON, whole numbers without exponent
(Helm reads YAML numbers as float64), booleans as true/false.
*/}}
{{- define "groundwatch.envValue" -}}
{{- $v := . -}}
{{- if or (kindIs "slice" $v) (kindIs "map" $v) -}}
{{- toJson $v -}}
{{- else if or (kindIs "float64" $v) (kindIs "int64" $v) (kindIs "int" $v) -}}
{{- if eq (float64 $v) (float64 (int64 $v)) }}{{ int64 $v }}{{ else }}{{ $v }}{{ end -}}
{{- else -}}
{{- toString $v -}}
{{- end -}}
{{- end }}

{{/*
Flatten a settings map into GROUNDWATCH_ variables: {"kafka": {"topic": "x"}} ->
GROUNDWATCH_KAFKA__TOPIC=x. Empty strings and nulls are skipped (the setting keeps its default).
Returns a dict rendered as YAML key: "value" lines.
*/}}
{{- define "groundwatch.envMap" -}}
{{- $out := dict -}}
{{- range $key, $value := . -}}
{{- if kindIs "map" $value -}}
{{- range $sub, $subValue := $value -}}
{{- if not (or (kindIs "invalid" $subValue) (and (kindIs "string" $subValue) (eq $subValue ""))) -}}
{{- $_ := set $out (printf "GROUNDWATCH_%s__%s" (upper $key) (upper $sub)) (include "groundwatch.envValue" $subValue) -}}
{{- end -}}
{{- end -}}
{{- else if not (or (kindIs "invalid" $value) (and (kindIs "string" $value) (eq $value ""))) -}}
{{- $_ := set $out (printf "GROUNDWATCH_%s" (upper $key)) (include "groundwatch.envValue" $value) -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end }}

{{/*
The API tokens, comma-separated (a form GROUNDWATCH_API__TOKENS accepts, and a single token
can be used as is by a client): given, kept from the existing Secret, or generated once.
*/}}
{{- define "groundwatch.apiTokens" -}}
{{- $tokens := .Values.secrets.api.tokens | default list -}}
{{- if $tokens -}}
{{- join "," $tokens -}}
{{- else -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "groundwatch.fullname" .) -}}
{{- if and $existing $existing.data (hasKey $existing.data "GROUNDWATCH_API__TOKENS") -}}
{{- index $existing.data "GROUNDWATCH_API__TOKENS" | b64dec -}}
{{- else -}}
{{- randAlphaNum 40 -}}
{{- end -}}
{{- end -}}
{{- end }}
