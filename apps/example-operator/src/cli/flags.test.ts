import { describe, expect, it } from 'vitest';
import { FlagError, parseBindAddress, parseDuration, parseFlags } from './flags.ts';

describe('parseFlags', () => {
  it('has controller-runtime defaults', () => {
    expect(parseFlags([], { inCluster: true })).toEqual({
      kubeconfig: undefined,
      namespace: undefined,
      leaderElect: false,
      leaderElectionNamespace: undefined,
      leaderElectionId: 'kubeloom-egress-operator',
      lease: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
      shardRing: undefined,
      shardIdentity: undefined,
      metricsBindAddress: { host: undefined, port: 8443 },
      metricsSecure: true,
      metricsCertDir: undefined,
      healthProbeBindAddress: { host: undefined, port: 8081 },
      concurrency: 1,
      poolSummary: 'krt',
      logLevel: 'info',
      logFormat: 'json',
      help: false,
    });
    expect(parseFlags([], { inCluster: false }).logFormat).toBe('text');
  });

  it('reads every flag, Go-style booleans included', () => {
    const f = parseFlags(
      [
        '--kubeconfig=/k',
        '--namespace',
        'shop',
        '--leader-elect',
        '--leader-election-namespace=ops',
        '--leader-election-id=egress',
        '--metrics-bind-address=127.0.0.1:9443',
        '--metrics-secure=false',
        '--health-probe-bind-address=[::1]:8081',
        '--concurrency=4',
        '--pool-summary=queue',
        '--log-level=debug',
        '--log-format=text',
      ],
      { inCluster: true },
    );
    expect(f).toMatchObject({
      kubeconfig: '/k',
      namespace: 'shop',
      leaderElect: true,
      leaderElectionNamespace: 'ops',
      leaderElectionId: 'egress',
      metricsBindAddress: { host: '127.0.0.1', port: 9443 },
      metricsSecure: false,
      healthProbeBindAddress: { host: '::1', port: 8081 },
      concurrency: 4,
      poolSummary: 'queue',
      logLevel: 'debug',
      logFormat: 'text',
    });
    expect(
      parseFlags(['--metrics-bind-address=0', '--health-probe-bind-address=0'], { inCluster: false }),
    ).toMatchObject({
      metricsBindAddress: undefined,
      healthProbeBindAddress: undefined,
    });
  });

  it('reads the Lease timings as Go durations (leader and shard Leases)', () => {
    expect(
      parseFlags(
        [
          '--leader-elect-lease-duration=5s',
          '--leader-elect-renew-deadline=3500ms',
          '--leader-elect-retry-period',
          '1s',
        ],
        { inCluster: true },
      ).lease,
    ).toEqual({ leaseDurationMs: 5000, renewDeadlineMs: 3500, retryPeriodMs: 1000 });
    expect(
      parseFlags(['--leader-elect-lease-duration=1m30s'], { inCluster: true }).lease.leaseDurationMs,
    ).toBe(90_000);
    expect(parseDuration('x', '1.5s')).toBe(1500);
    expect(parseDuration('x', '1h2m3s4ms')).toBe(3_723_004);
  });

  it('reads the shard ring and identity', () => {
    expect(parseFlags(['--shard-ring=egress', '--shard-identity=op-0'], { inCluster: true })).toMatchObject({
      leaderElect: false,
      shardRing: 'egress',
      shardIdentity: 'op-0',
    });
  });

  it('says what is wrong with a bad command line', () => {
    const cases: [string[], RegExp][] = [
      [['--concurency=2'], /Unknown option '--concurency'.*--help/],
      [['--concurrency=0'], /--concurrency=0: expected an integer from 1 to 64/],
      [['--concurrency=2.5'], /--concurrency=2.5: expected an integer/],
      [['--pool-summary=informer'], /--pool-summary=informer: expected one of krt, queue/],
      [['--log-level=verbose'], /--log-level=verbose: expected one of debug, info, warn, error/],
      [['--metrics-bind-address=8080'], /--metrics-bind-address=8080: expected \[host\]:port/],
      [['--metrics-bind-address=:70000'], /expected \[host\]:port/],
      [['--leader-elect=yes'], /--leader-elect=yes: expected true or false/],
      [['--namespace='], /--namespace needs a value/],
      [['positional'], /Unexpected argument 'positional'/],
      [['--leader-elect', '--shard-ring=egress'], /--leader-elect and --shard-ring exclude each other/],
      [['--shard-identity=a'], /--shard-identity needs --shard-ring/],
      [['--shard-ring='], /--shard-ring needs a value/],
      [
        ['--leader-elect-lease-duration=15'],
        /--leader-elect-lease-duration=15: expected a positive duration/,
      ],
      [['--leader-elect-retry-period=0s'], /--leader-elect-retry-period=0s: expected a positive duration/],
      [['--leader-elect-renew-deadline=-1s'], /expected a positive duration/],
      [['--leader-elect-renew-deadline=10 s'], /expected a positive duration/],
      [['--leader-elect-renew-deadline='], /expected a positive duration/],
      [
        ['--leader-elect-lease-duration=10s'],
        /--leader-elect-lease-duration \(10000 ms\) must be greater than --leader-elect-renew-deadline \(10000 ms\)/,
      ],
      [
        ['--leader-elect-renew-deadline=2400ms'],
        /--leader-elect-renew-deadline \(2400 ms\) must be greater than 1.2 × --leader-elect-retry-period \(2000 ms\)/,
      ],
    ];
    for (const [argv, message] of cases) {
      expect(() => parseFlags(argv, { inCluster: false }), argv.join(' ')).toThrow(FlagError);
      expect(() => parseFlags(argv, { inCluster: false }), argv.join(' ')).toThrow(message);
    }
  });

  it('parses bind addresses as controller-runtime does', () => {
    expect(parseBindAddress('x', ':8080')).toEqual({ host: undefined, port: 8080 });
    expect(parseBindAddress('x', '0.0.0.0:1')).toEqual({ host: '0.0.0.0', port: 1 });
    expect(parseBindAddress('x', '0')).toBeUndefined();
  });
});
