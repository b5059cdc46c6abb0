/**
 * The Pod the kube benchmarks apply: one a Deployment makes, as a controller would apply it (two
 * containers, env, probes, resources); ~11.5 KB of JSON once the apiserver applied and defaulted
 * it, most of it managedFields.
 */
export function benchPod(name: string, namespace: string) {
  const env = Array.from({ length: 40 }, (_, i) => ({
    name: `ENV_VAR_NUMBER_${i}`,
    value: `value-${i}-${'x'.repeat(40)}`,
  }));
  const probe = (p: string) => ({
    httpGet: { path: p, port: 8080, scheme: 'HTTP' },
    initialDelaySeconds: 5,
    periodSeconds: 10,
    timeoutSeconds: 1,
    successThreshold: 1,
    failureThreshold: 3,
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels: { app: `app-${name.length % 25}`, tier: 'backend', 'pod-template-hash': '5d8f7c9b4' },
      annotations: { 'kubeloom.dev/bench': 'y'.repeat(600) },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'service-5d8f7c9b4',
          uid: '6f1c2d3e-4b5a-4c6d-8e7f-901234567890',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      containers: [
        {
          name: 'main',
          image: 'registry.example.com/team/service:v1.2.3',
          env,
          ports: [
            { containerPort: 8080, name: 'http', protocol: 'TCP' },
            { containerPort: 9090, name: 'metrics', protocol: 'TCP' },
          ],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
          livenessProbe: probe('/healthz'),
          readinessProbe: probe('/readyz'),
          volumeMounts: ['config', 'certs', 'cache', 'tokens'].map((v) => ({
            name: v,
            mountPath: `/etc/service/${v}`,
            readOnly: true,
          })),
        },
        {
          name: 'sidecar',
          image: 'registry.example.com/proxy:v9',
          args: ['--port=15001', '--mode=sidecar'],
          resources: { requests: { cpu: '50m', memory: '64Mi' } },
        },
      ],
      volumes: [
        { name: 'config', configMap: { name: 'service-config' } },
        { name: 'certs', secret: { secretName: 'service-certs' } },
        { name: 'cache', emptyDir: {} },
        {
          name: 'tokens',
          downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] },
        },
      ],
      tolerations: ['not-ready', 'unreachable', 'memory-pressure', 'disk-pressure'].map((t) => ({
        key: `node.kubernetes.io/${t}`,
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      })),
    },
  };
}
