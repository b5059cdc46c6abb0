/** A short, safe description of an arbitrary value for error messages and logs. */
export function describeValue(value: unknown, max = 120): string {
  let text: string;
  if (typeof value === 'string') text = JSON.stringify(value);
  else if (typeof value === 'function') text = `function ${value.name || '(anonymous)'}`;
  else if (typeof value === 'bigint' || typeof value === 'symbol') text = value.toString();
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = Object.prototype.toString.call(value);
    }
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
