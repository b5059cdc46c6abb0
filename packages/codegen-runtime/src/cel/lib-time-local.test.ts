// The time zone `Local` is Go's `time.Local` of the evaluating process, as cel-go evaluates it:
// the zone `TZ` names (UTC for an empty or unknown one), else the system's.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { localZoneName } from './lib-time.ts';

const T = "timestamp('2023-07-14T10:30:45Z')";

/** `expr` evaluated in a fresh Node process with the environment variable TZ as given. */
function inProcess(expr: string, tz: string | undefined): string {
  const entry = fileURLToPath(new URL('../index.ts', import.meta.url));
  const script = `const m = await import(${JSON.stringify(entry)});
process.stdout.write(String(m.evaluate(m.parseCel(${JSON.stringify(expr)}), {})));`;
  const env = { ...process.env };
  delete env.TZ;
  if (tz !== undefined) env.TZ = tz;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' });
}

describe('the time zone Local', () => {
  it('is the zone TZ names, with Go’s fallbacks', () => {
    expect(localZoneName({ TZ: 'Asia/Kolkata' })).toBe('Asia/Kolkata');
    expect(localZoneName({ TZ: ':America/New_York' })).toBe('America/New_York');
    expect(localZoneName({ TZ: '' })).toBe('UTC');
    expect(localZoneName({ TZ: 'Nowhere/City' })).toBe('UTC');
    expect(localZoneName({})).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });

  it('is evaluated in the process’s own zone', () => {
    expect(inProcess(`${T}.getHours('Local')`, 'Asia/Kolkata')).toBe('16');
    expect(inProcess(`${T}.getMinutes('Local')`, 'Asia/Kolkata')).toBe('0');
    expect(inProcess(`${T}.getHours('Local')`, 'America/New_York')).toBe('6');
    expect(inProcess(`${T}.getHours('Local')`, '')).toBe('10');
    expect(inProcess(`${T}.getDayOfWeek('Local')`, 'Pacific/Kiritimati')).toBe('6');
  });
});
