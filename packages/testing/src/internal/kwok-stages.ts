/**
 * The kwok Stage configuration of the workloads plane: how simulated Nodes and Pods move through
 * their lifecycle. The kwok binary has none built in (it must be given with `--config`), so the
 * plane writes this into its temporary directory. What it does, and nothing more:
 *
 * - a Node that is not Ready becomes Ready at once (conditions, addresses, large capacity);
 *   kwok itself renews the node Lease, and a slow heartbeat stage refreshes the conditions;
 * - a scheduled Pod becomes Running and Ready at once, with a pod IP and its host's IP;
 * - a Running Pod owned by a Job succeeds (its containers exit 0);
 * - a Pod being deleted is removed (no kubelet grace period to honour).
 *
 * Templates are Go templates rendered by kwok with its functions (`Now`, `NodeConditions`,
 * `NodeIP`, `PodIPsWith`, ...); selectors are jq expressions on the object.
 */

const NODE_CONDITIONS = `
      conditions:
      {{ range NodeConditions }}
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $since | Quote }}
        message: {{ .message | Quote }}
        reason: {{ .reason | Quote }}
        status: {{ .status | Quote }}
        type: {{ .type | Quote }}
      {{ end }}`;

const NODE_READY = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: kubeloom-node-ready
spec:
  resourceRef: { apiGroup: v1, kind: Node }
  selector:
    matchExpressions:
    - { key: '.status.conditions.[] | select( .type == "Ready" ) | .status', operator: NotIn, values: ['True'] }
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $since := or .metadata.creationTimestamp $now }}${NODE_CONDITIONS}
      addresses:
      {{ with NodeIP }}
      - { type: InternalIP, address: {{ . | Quote }} }
      {{ end }}
      - { type: Hostname, address: {{ .metadata.name | Quote }} }
      {{ with NodePort }}
      daemonEndpoints:
        kubeletEndpoint:
          Port: {{ . }}
      {{ end }}
      allocatable: { cpu: 1k, memory: 1Ti, pods: 1M }
      capacity: { cpu: 1k, memory: 1Ti, pods: 1M }
      nodeInfo:
        architecture: amd64
        operatingSystem: linux
        kubeletVersion: {{ printf "kwok-%s" Version | Quote }}
        kubeProxyVersion: {{ printf "kwok-%s" Version | Quote }}
        containerRuntimeVersion: {{ printf "kwok-%s" Version | Quote }}
        kernelVersion: {{ printf "kwok-%s" Version | Quote }}
        bootID: ""
        machineID: ""
        osImage: ""
        systemUUID: ""
      phase: Running
`;

const NODE_HEARTBEAT = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: kubeloom-node-heartbeat
spec:
  resourceRef: { apiGroup: v1, kind: Node }
  selector:
    matchExpressions:
    - { key: '.status.phase', operator: In, values: [Running] }
    - { key: '.status.conditions.[] | select( .type == "Ready" ) | .status', operator: In, values: ['True'] }
  delay: { durationMilliseconds: 600000, jitterDurationMilliseconds: 610000 }
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $since := or .metadata.creationTimestamp $now }}${NODE_CONDITIONS}
`;

const POD_READY = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: kubeloom-pod-ready
spec:
  resourceRef: { apiGroup: v1, kind: Pod }
  selector:
    matchExpressions:
    - { key: '.metadata.deletionTimestamp', operator: DoesNotExist }
    - { key: '.status.phase', operator: In, values: [Pending] }
    - { key: '.status.conditions.[] | select( .type == "Ready" ) | .status', operator: NotIn, values: ['True'] }
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      {{ range list "PodScheduled" "Initialized" "ContainersReady" "Ready" }}
      - { type: {{ . }}, status: "True", lastTransitionTime: {{ $now | Quote }} }
      {{ end }}
      {{ range .spec.readinessGates }}
      - { type: {{ .conditionType | Quote }}, status: "True", lastTransitionTime: {{ $now | Quote }} }
      {{ end }}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: true
        started: true
        restartCount: 0
        state: { running: { startedAt: {{ $now | Quote }} } }
      {{ end }}
      initContainerStatuses:
      {{ range .spec.initContainers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: true
        restartCount: 0
        {{ if eq .restartPolicy "Always" }}
        started: true
        state: { running: { startedAt: {{ $now | Quote }} } }
        {{ else }}
        state: { terminated: { exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }} } }
        {{ end }}
      {{ end }}
      {{ with NodeIPsWith .spec.nodeName }}
      hostIP: {{ index . 0 | Quote }}
      hostIPs:
      {{ range . }}
      - ip: {{ . | Quote }}
      {{ end }}
      {{ end }}
      {{ with PodIPsWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) }}
      podIP: {{ index . 0 | Quote }}
      podIPs:
      {{ range . }}
      - ip: {{ . | Quote }}
      {{ end }}
      {{ end }}
      phase: Running
      startTime: {{ $now | Quote }}
`;

const POD_SUCCEEDED = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: kubeloom-pod-succeeded
spec:
  resourceRef: { apiGroup: v1, kind: Pod }
  selector:
    matchExpressions:
    - { key: '.metadata.deletionTimestamp', operator: DoesNotExist }
    - { key: '.status.phase', operator: In, values: [Running] }
    - { key: '.metadata.ownerReferences.[].kind', operator: In, values: [Job] }
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      {{ range list "PodScheduled" "Initialized" }}
      - { type: {{ . }}, status: "True", lastTransitionTime: {{ $now | Quote }} }
      {{ end }}
      {{ range list "ContainersReady" "Ready" }}
      - { type: {{ . }}, status: "False", reason: PodCompleted, lastTransitionTime: {{ $now | Quote }} }
      {{ end }}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: false
        started: false
        restartCount: 0
        state: { terminated: { exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }} } }
      {{ end }}
      phase: Succeeded
`;

const POD_DELETED = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: kubeloom-pod-deleted
spec:
  resourceRef: { apiGroup: v1, kind: Pod }
  selector:
    matchExpressions:
    - { key: '.metadata.deletionTimestamp', operator: Exists }
  next:
    delete: true
`;

/** The Stage documents, one YAML stream, for kwok's `--config`. */
export const KWOK_STAGES = [NODE_READY, NODE_HEARTBEAT, POD_READY, POD_SUCCEEDED, POD_DELETED].join('---\n');
