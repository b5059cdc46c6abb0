import { isIP } from 'node:net';

/**
 * The string formats kube-apiserver checks (apiextensions `formats.go`, go-openapi `strfmt`),
 * approximated in JavaScript. Formats not listed here are ignored, as the apiserver ignores
 * unknown formats. Names are compared without dashes (`date-time` = `datetime`).
 */
export const KUBERNETES_FORMATS: Readonly<Record<string, (s: string) => boolean>> = {
  datetime: (s) =>
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})$/.test(s) &&
    !Number.isNaN(Date.parse(s.replace(' ', 'T'))),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  byte: (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s),
  ipv4: (s) => isIP(s) === 4,
  ipv6: (s) => isIP(s) === 6,
  cidr: (s) => {
    const m = /^(.+)\/(\d{1,3})$/.exec(s);
    if (!m) return false;
    const v = isIP(m[1]!);
    const bits = Number(m[2]);
    return (v === 4 && bits <= 32) || (v === 6 && bits <= 128);
  },
  mac: (s) =>
    /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{2}[:-]){7}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$/.test(
      s,
    ),
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid3: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid4: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  uuid5: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  hostname: (s) =>
    s.length <= 255 &&
    /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u.test(
      s,
    ),
  email: (s) => /^[^\s@]+@[^\s@]+$/.test(s),
  uri: (s) => {
    try {
      return new URL(s).protocol.length > 0;
    } catch {
      return false;
    }
  },
  duration: (s) =>
    /^[+-]?(\d+(\.\d+)?\s*(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)\s*)+$/.test(
      s.trim(),
    ),
  hexcolor: (s) => /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  password: () => true,
};

/** The checker for a format name, or undefined when the apiserver does not check it. */
export function formatChecker(format: string): ((s: string) => boolean) | undefined {
  return KUBERNETES_FORMATS[format.replaceAll('-', '').toLowerCase()];
}
