// A consumer of @kubeloom/testing installed alone from the registry: a CA, a wait, and a namespace
// created on the real control plane whose kubeconfig is argv[2].
import { createCertificateAuthority, createTestNamespace, waitFor } from '@kubeloom/testing';
import { KubeConfig } from '@kubernetes/client-node';

const [kubeconfigPath = ''] = process.argv.slice(2);
const ca = createCertificateAuthority('consumer');
let checks = 0;
await waitFor('three checks', () => ++checks >= 3, { intervalMs: 1 });
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(kubeconfigPath);
const namespace = await createTestNamespace(kubeConfig, 'consumer-testing');
if (!ca.certPem.includes('BEGIN CERTIFICATE') || !namespace.startsWith('consumer-testing-'))
  throw new Error('unexpected');
console.log(JSON.stringify({ ok: true, namespace }));
