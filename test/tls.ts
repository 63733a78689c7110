import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A self-signed P-256 certificate for loopback HTTPS servers, valid one day for `names` (DNS
 * names and IP addresses): `cert` is also the CA a client under test trusts.
 */
export function selfSignedCertificate(names: { dns: string[]; ip?: string[] }): {
  key: string;
  cert: string;
} {
  const dir = mkdtempSync(path.join(tmpdir(), 'launchdex-tls-'));
  try {
    const altNames = [...names.dns.map((name) => `DNS:${name}`), ...(names.ip ?? []).map((ip) => `IP:${ip}`)];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${names.dns[0] ?? 'localhost'}`,
        '-addext',
        `subjectAltName=${altNames.join(',')}`,
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      key: readFileSync(path.join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
