// Validates rendered Kubernetes manifests offline and asserts the promises
// the deployment makes (security, probes, resources, drain sizing).
//
// Usage: node validate_manifests.mjs <node_modules dir> <rendered.yaml>...
// Schema checks come from the npm package kubernetes-models (the Kubernetes
// OpenAPI schemas as JSON-schema validators) and
// @kubernetes-models/prometheus-operator for the ServiceMonitor. They catch
// wrong types and missing required fields, not unknown fields, so the
// assertions below also refuse unknown keys where a typo would silently do
// nothing (a field at the wrong level of a patch, for example).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [modulesDir, ...files] = process.argv.slice(2);
if (!modulesDir || files.length === 0) {
  console.error('usage: validate_manifests.mjs <node_modules> <file.yaml>...');
  process.exit(2);
}
const load = (spec) =>
  import(pathToFileURL(join(modulesDir, spec)).href);
const YAML = (await load('yaml/dist/index.js')).default;

// apiVersion -> module that exports one class per kind.
const modelModules = {
  'v1': 'kubernetes-models/v1/index.js',
  'apps/v1': 'kubernetes-models/apps/v1/index.js',
  'policy/v1': 'kubernetes-models/policy/v1/index.js',
  'networking.k8s.io/v1': 'kubernetes-models/networking.k8s.io/v1/index.js',
  'monitoring.coreos.com/v1':
    '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/index.js',
};

const failures = [];
const fail = (file, what, message) =>
  failures.push(`${file}: ${what}: ${message}`);
const check = (file, what, ok, message) => {
  if (!ok) fail(file, what, message);
};
const allowedKeys = (file, what, object, keys) => {
  for (const key of Object.keys(object ?? {})) {
    if (!keys.includes(key)) fail(file, what, `unknown field "${key}"`);
  }
};

// Parses a Go duration of the form used by --drain_deadline ("10s", "1m30s").
function DurationSeconds(text) {
  const units = { h: 3600, m: 60, s: 1, ms: 0.001 };
  let total = 0;
  let rest = text;
  while (rest.length > 0) {
    const match = /^(\d+(?:\.\d+)?)(ms|h|m|s)/.exec(rest);
    if (!match) return NaN;
    total += Number(match[1]) * units[match[2]];
    rest = rest.slice(match[0].length);
  }
  return total;
}

for (const file of files) {
  const docs = YAML.parseAllDocuments(readFileSync(file, 'utf8'));
  const objects = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) {
      fail(file, 'yaml', doc.errors.map((e) => e.message).join('; '));
      continue;
    }
    const object = doc.toJS();
    if (object !== null) objects.push(object);
  }

  // 1. Every object validates against its schema.
  for (const object of objects) {
    const what = `${object.kind}/${object.metadata?.name}`;
    const modulePath = modelModules[object.apiVersion];
    if (!modulePath) {
      fail(file, what, `no schema known for apiVersion ${object.apiVersion}`);
      continue;
    }
    const models = await load(modulePath);
    const Model = models[object.kind];
    if (!Model) {
      fail(file, what, `no schema for kind ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      fail(file, what, `schema: ${error.message}`);
    }
  }

  // 2. The promises of docs/DEPLOY.md, asserted on the rendered objects.
  const byKind = (kind) => objects.filter((o) => o.kind === kind);
  const sets = byKind('StatefulSet');
  check(file, 'StatefulSet', sets.length === 1, `expected 1, got ${sets.length}`);
  const configMaps = byKind('ConfigMap');
  const services = byKind('Service');
  for (const set of sets) {
    const what = `StatefulSet/${set.metadata.name}`;
    const spec = set.spec;
    allowedKeys(file, what + ' spec', spec, [
      'serviceName', 'replicas', 'podManagementPolicy', 'updateStrategy',
      'persistentVolumeClaimRetentionPolicy', 'selector', 'template',
      'volumeClaimTemplates', 'minReadySeconds', 'revisionHistoryLimit',
      'ordinals']);
    const pod = spec.template.spec;
    allowedKeys(file, what + ' pod spec', pod, [
      'automountServiceAccountToken', 'enableServiceLinks',
      'terminationGracePeriodSeconds', 'securityContext',
      'topologySpreadConstraints', 'containers', 'volumes', 'affinity',
      'nodeSelector', 'tolerations', 'priorityClassName',
      'serviceAccountName']);

    const headless = services.find((s) => s.metadata.name === spec.serviceName);
    check(file, what, headless !== undefined,
          `serviceName ${spec.serviceName} names no Service`);
    if (headless) {
      check(file, `Service/${headless.metadata.name}`,
            headless.spec.clusterIP === 'None', 'must be headless');
      const grpcPort = headless.spec.ports.find((p) => p.name === 'grpc');
      check(file, `Service/${headless.metadata.name}`,
            grpcPort && ['kubernetes.io/h2c', 'grpc'].includes(grpcPort.appProtocol),
            'grpc port needs appProtocol kubernetes.io/h2c (or grpc)');
    }

    const podSecurity = pod.securityContext ?? {};
    check(file, what, podSecurity.runAsNonRoot === true, 'pod runAsNonRoot');
    check(file, what, podSecurity.runAsUser === 65532, 'pod runAsUser 65532');
    check(file, what, podSecurity.seccompProfile?.type === 'RuntimeDefault',
          'pod seccompProfile RuntimeDefault');
    check(file, what, pod.automountServiceAccountToken === false,
          'no service account token');
    check(file, what, (pod.topologySpreadConstraints ?? []).length > 0,
          'topologySpreadConstraints');
    for (const volume of pod.volumes ?? []) {
      // Restricted PSS: only these volume types.
      const types = Object.keys(volume).filter((k) => k !== 'name');
      check(file, `${what} volume ${volume.name}`,
            types.every((t) => ['configMap', 'emptyDir', 'projected', 'secret',
                                'downwardAPI', 'persistentVolumeClaim',
                                'ephemeral', 'csi'].includes(t)),
            `volume type ${types} not allowed by the restricted standard`);
    }

    const containers = pod.containers ?? [];
    check(file, what, containers.length === 1, 'one container');
    for (const container of containers) {
      const cwhat = `${what} container ${container.name}`;
      allowedKeys(file, cwhat, container, [
        'name', 'image', 'imagePullPolicy', 'args', 'command', 'ports',
        'startupProbe', 'livenessProbe', 'readinessProbe', 'lifecycle',
        'resources', 'securityContext', 'volumeMounts', 'env']);
      const sc = container.securityContext ?? {};
      check(file, cwhat, sc.allowPrivilegeEscalation === false,
            'allowPrivilegeEscalation false');
      check(file, cwhat, sc.readOnlyRootFilesystem === true,
            'readOnlyRootFilesystem');
      check(file, cwhat, sc.runAsNonRoot !== false, 'runAsNonRoot');
      check(file, cwhat, sc.privileged !== true, 'not privileged');
      check(file, cwhat,
            JSON.stringify(sc.capabilities?.drop) === '["ALL"]' &&
                !(sc.capabilities?.add?.length > 0),
            'capabilities drop ALL, add none');

      const ports = Object.fromEntries(
          (container.ports ?? []).map((p) => [p.name, p.containerPort]));
      check(file, cwhat,
            ports.grpc === 50051 && ports.metrics === 9464 &&
                ports.health === 50052,
            'ports grpc 50051, metrics 9464 and health 50052');
      const args = container.args ?? [];
      check(file, cwhat, args.includes('--grpc_address=0.0.0.0:50051'),
            'binds gRPC on 0.0.0.0:50051');
      check(file, cwhat, args.includes('--metrics_address=0.0.0.0:9464'),
            'binds metrics on 0.0.0.0:9464');
      check(file, cwhat, args.includes('--health_address=0.0.0.0:50052'),
            'serves the probes on 0.0.0.0:50052');

      check(file, cwhat,
            container.livenessProbe?.grpc?.service === 'sator.liveness' &&
                container.livenessProbe.grpc.port === 50052,
            'gRPC liveness probe on service sator.liveness');
      check(file, cwhat,
            container.readinessProbe?.grpc?.service === 'sator.readiness' &&
                container.readinessProbe.grpc.port === 50052,
            'gRPC readiness probe on service sator.readiness');

      const resources = container.resources ?? {};
      check(file, cwhat, resources.requests?.cpu !== undefined &&
                resources.requests?.memory !== undefined,
            'cpu and memory requests');
      check(file, cwhat, resources.limits?.memory !== undefined,
            'memory limit');
      check(file, cwhat, resources.limits?.cpu === undefined,
            'no CPU limit (see the comment in statefulset.yaml)');

      const mounts = container.volumeMounts ?? [];
      const dataMount = mounts.find((m) => m.mountPath === '/var/lib/sator');
      check(file, cwhat,
            dataMount && (spec.volumeClaimTemplates ?? []).some(
                (t) => t.metadata.name === dataMount.name),
            '/var/lib/sator is mounted from a volumeClaimTemplate');

      // Grace period >= preStop sleep + --drain_deadline + 5 s.
      const flagfileArg = args.find((a) => a.startsWith('--flagfile='));
      const flagsMount = flagfileArg &&
          mounts.find((m) => flagfileArg.slice(11).startsWith(m.mountPath + '/'));
      const flagsVolume = flagsMount &&
          (pod.volumes ?? []).find((v) => v.name === flagsMount.name);
      const flagsMap = flagsVolume &&
          configMaps.find((c) => c.metadata.name === flagsVolume.configMap?.name);
      check(file, cwhat, flagsMap !== undefined,
            '--flagfile comes from a ConfigMap of this render');
      const flagsText = flagsMap ?
          Object.values(flagsMap.data ?? {}).join('\n') + '\n' + args.join('\n') :
          args.join('\n');
      const drains = [...flagsText.matchAll(/^--drain_deadline=(\S+)$/gm)];
      const drain = drains.length > 0 ?
          DurationSeconds(drains[drains.length - 1][1]) : 10;
      check(file, cwhat, Number.isFinite(drain),
            `--drain_deadline not a duration`);
      const preStop = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
      const grace = pod.terminationGracePeriodSeconds ?? 30;
      check(file, cwhat, grace >= preStop + drain + 5,
            `terminationGracePeriodSeconds ${grace} < preStop ${preStop} + ` +
            `drain ${drain} + 5`);
      check(file, cwhat, preStop > 0, 'preStop sleep');
    }
  }

  for (const kind of ['PodDisruptionBudget', 'ServiceMonitor', 'NetworkPolicy',
                      'ConfigMap']) {
    check(file, kind, byKind(kind).length === 1, `expected exactly one ${kind}`);
  }
  const metrics = services.filter((s) =>
      (s.spec.ports ?? []).some((p) => p.port === 9464));
  check(file, 'metrics Service', metrics.length === 1, 'one Service on 9464');
  for (const monitor of byKind('ServiceMonitor')) {
    const selector = monitor.spec.selector?.matchLabels ?? {};
    const selected = services.filter((s) => Object.entries(selector).every(
        ([k, v]) => s.metadata.labels?.[k] === v));
    check(file, `ServiceMonitor/${monitor.metadata.name}`,
          selected.length === 1 && selected[0] === metrics[0],
          'selects exactly the metrics Service');
  }
  for (const policy of byKind('NetworkPolicy')) {
    const pwhat = `NetworkPolicy/${policy.metadata.name}`;
    const rules = policy.spec.ingress ?? [];
    const grpcRule = rules.find((r) => r.ports?.some((p) => p.port === 'grpc'));
    const metricsRule =
        rules.find((r) => r.ports?.some((p) => p.port === 'metrics'));
    check(file, pwhat, grpcRule?.from?.length > 0 &&
              grpcRule.from.every((peer) => peer.podSelector),
          'gRPC only from selected (game-server) pods');
    check(file, pwhat, metricsRule?.from?.length > 0 &&
              metricsRule.from.every((peer) => peer.namespaceSelector),
          'metrics only from selected (monitoring) namespaces');
  }
  const namespaces = byKind('Namespace');
  for (const namespace of namespaces) {
    check(file, `Namespace/${namespace.metadata.name}`,
          namespace.metadata.labels?.['pod-security.kubernetes.io/enforce'] ===
              'restricted',
          'enforces the restricted Pod Security Standard');
  }
  console.log(`${file}: ${objects.length} objects checked`);
}

if (failures.length > 0) {
  for (const failure of failures) console.error(`FAIL ${failure}`);
  process.exit(1);
}
console.log('all manifests valid');
